// The float32 scan of the host's tuned nearest neighbour: see kernwerk/host/sphere_scan.hpp.
// x86-64 machines with AVX-512 or AVX2 and FMA take a 16- or 8-wide path chosen at run time;
// every other machine, and the tail, the portable loop.
#include "kernwerk/host/sphere_scan.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <utility>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KERNWERK_HOST_AVX2 1
#endif

namespace kernwerk::host {
namespace {

constexpr int widest_lanes = 16;
constexpr float no_limit = -1.0e30f;  // below every value (|u.d| <= 2)

inline float centred_value(float x, float y, float z, float dx, float dy, float dz) {
  return std::fma(z, dz, std::fma(y, dy, x * dx));  // the order of the vector paths
}

// The references that can be among one observation's k nearest, gathered as the scan goes: every
// reference whose value is at least the limit, the k-th largest value seen less the margin (the
// k largest kept in order beside the buffer; only a new one of them moves the others). Entries
// the limit has passed are dropped when the buffer fills. Where more references than it holds
// come within the margin (a cluster float32 cannot resolve, seen from afar), the smallest values
// are dropped and only larger ones taken from then on; should the limit end below a dropped
// value, the list is incomplete: too_many.
struct candidates {
  static constexpr int room = 2 * most_neighbours + 4 * widest_lanes;
  int k = 1;
  int full = room;  // 2 k + 4 vectors: the size at which the buffer is tightened
  int size = 0;
  int ranked = 0;  // values in `top`, at most k
  float margin = 0.0f;
  float limit = no_limit;
  float lost = no_limit;  // the largest value dropped for want of room
  float top[most_neighbours];  // the largest values taken, largest first
  float value[room];
  std::int32_t index[room];

  void start(int wanted, float value_margin) {
    k = wanted;
    full = 2 * wanted + 4 * widest_lanes;
    size = 0;
    ranked = 0;
    margin = value_margin;
    limit = no_limit;
    lost = no_limit;
  }

  // What a reference's value must reach to be taken.
  float threshold() const { return std::max(limit, lost); }

  // Takes reference j, whose value v is at least the threshold.
  void add(float v, std::int64_t j) {
    if (size == full) {
      tighten();
      if (!(v >= threshold())) return;
    }
    value[size] = v;
    index[size++] = static_cast<std::int32_t>(j);
    if (ranked == k && !(v > top[k - 1])) return;
    int slot = ranked < k ? ranked++ : k - 1;
    for (; slot > 0 && top[slot - 1] < v; --slot) top[slot] = top[slot - 1];
    top[slot] = v;
    if (ranked == k) limit = std::max(limit, top[k - 1] - margin);
  }

  // Keeps the values at least `least`.
  void keep_from(float least) {
    int kept = 0;
    for (int e = 0; e < size; ++e)
      if (value[e] >= least) value[kept] = value[e], index[kept++] = index[e];
    size = kept;
  }

  // Drops the values the limit has passed; then, past 2 k + 32 entries (full less two vectors),
  // the smallest values.
  void tighten() {
    keep_from(threshold());
    const int most = full - 2 * widest_lanes;
    if (size > most) {  // the (most + 1)-th largest value and every smaller one go
      float order[room];
      std::copy(value, value + size, order);
      std::nth_element(order, order + most, order + size, std::greater<float>());
      lost = order[most];
      keep_from(std::nextafter(lost, 1.0e30f));
    }
  }

  bool complete() const { return lost < limit; }

  // Observation i's candidates, visited in increasing index; or too_many[i].
  void report(int i, bool* too_many, candidate_visit visit, void* context) {
    tighten();
    too_many[i] = !complete();
    if (too_many[i]) return;
    for (int e = 1; e < size; ++e)  // insertion sort: a few entries, mostly in order
      for (int f = e; f > 0 && index[f - 1] > index[f]; --f) std::swap(index[f - 1], index[f]);
    for (int e = 0; e < size; ++e) visit(context, i, index[e]);
  }
};

// The scans visit the references in two rounds: first one vector of `lanes` in every
// `spread_out`, spread over the whole set, then the others. Candidates may come in any order (the
// report sorts them), and a first round drawn from everywhere raises the limit past references
// clustered early in the order (half a set in one small cap, say), which would otherwise all be
// taken on the way to the limit.
constexpr std::int64_t spread_out = 16;

// The vectors of a set of `vectors`, in the order of the two rounds: step s visits vector
// in_two_rounds(s, ...), s = 0 .. vectors - 1. first_round: the first round's length.
inline std::int64_t first_round(std::int64_t vectors) { return (vectors + spread_out - 1) / spread_out; }
inline std::int64_t in_two_rounds(std::int64_t step, std::int64_t first) {
  if (step < first) return step * spread_out;
  const std::int64_t t = step - first;
  return t / (spread_out - 1) * spread_out + 1 + t % (spread_out - 1);
}

void scan_portable(const centred_references_f32& refs, const float* o, candidates& found) {
  const std::int64_t first = first_round(refs.count);
  for (std::int64_t step = 0; step < refs.count; ++step) {
    const std::int64_t j = in_two_rounds(step, first);
    const float v = centred_value(o[0], o[1], o[2], refs.x[j], refs.y[j], refs.z[j]);
    if (v >= found.threshold()) found.add(v, j);
  }
}

#ifdef KERNWERK_HOST_AVX2
constexpr int together = 4;  // observations sharing each load of references

// Scans `together` observations at once over the padded references, 8 a step; a step whose
// values are all below every limit costs no branch taken (the NaN padding never passes).
__attribute__((target("avx2,fma"))) void scan_avx2(const centred_references_f32& refs,
                                                   const float (*o)[3], candidates* found) {
  constexpr int lanes = 8;
  __m256 ox[together], oy[together], oz[together], limit[together];
  for (int p = 0; p < together; ++p) {
    ox[p] = _mm256_set1_ps(o[p][0]);
    oy[p] = _mm256_set1_ps(o[p][1]);
    oz[p] = _mm256_set1_ps(o[p][2]);
    limit[p] = _mm256_set1_ps(found[p].threshold());
  }
  const std::int64_t vectors = (refs.count + lanes - 1) / lanes, first = first_round(vectors);
  for (std::int64_t step = 0; step < vectors; ++step) {
    const std::int64_t j = in_two_rounds(step, first) * lanes;
    const __m256 rx = _mm256_loadu_ps(refs.x + j), ry = _mm256_loadu_ps(refs.y + j),
                 rz = _mm256_loadu_ps(refs.z + j);
    for (int p = 0; p < together; ++p) {
      const __m256 value =
          _mm256_fmadd_ps(oz[p], rz, _mm256_fmadd_ps(oy[p], ry, _mm256_mul_ps(ox[p], rx)));
      int hits = _mm256_movemask_ps(_mm256_cmp_ps(value, limit[p], _CMP_GE_OQ));
      if (hits) {  // rare: a new best or a near tie among these 8
        alignas(32) float values[lanes];
        _mm256_store_ps(values, value);
        for (; hits; hits &= hits - 1) {
          const int lane = __builtin_ctz(hits);
          if (values[lane] >= found[p].threshold()) found[p].add(values[lane], j + lane);
        }
        limit[p] = _mm256_set1_ps(found[p].threshold());
      }
    }
  }
}

// The same with 16 lanes, where the machine has AVX-512 (compares give masks directly).
__attribute__((target("avx512f"))) void scan_avx512(const centred_references_f32& refs,
                                                     const float (*o)[3], candidates* found) {
  constexpr int lanes = 16;
  __m512 ox[together], oy[together], oz[together], limit[together];
  for (int p = 0; p < together; ++p) {
    ox[p] = _mm512_set1_ps(o[p][0]);
    oy[p] = _mm512_set1_ps(o[p][1]);
    oz[p] = _mm512_set1_ps(o[p][2]);
    limit[p] = _mm512_set1_ps(found[p].threshold());
  }
  const std::int64_t vectors = (refs.count + lanes - 1) / lanes, first = first_round(vectors);
  for (std::int64_t step = 0; step < vectors; ++step) {
    const std::int64_t j = in_two_rounds(step, first) * lanes;
    const __m512 rx = _mm512_loadu_ps(refs.x + j), ry = _mm512_loadu_ps(refs.y + j),
                 rz = _mm512_loadu_ps(refs.z + j);
    for (int p = 0; p < together; ++p) {
      const __m512 value =
          _mm512_fmadd_ps(oz[p], rz, _mm512_fmadd_ps(oy[p], ry, _mm512_mul_ps(ox[p], rx)));
      unsigned hits = _mm512_cmp_ps_mask(value, limit[p], _CMP_GE_OQ);
      if (hits) {
        alignas(64) float values[lanes];
        _mm512_store_ps(values, value);
        for (; hits; hits &= hits - 1) {
          const int lane = __builtin_ctz(hits);
          if (values[lane] >= found[p].threshold()) found[p].add(values[lane], j + lane);
        }
        limit[p] = _mm512_set1_ps(found[p].threshold());
      }
    }
  }
}

#endif

#ifdef KERNWERK_HOST_AVX2
// Independent FMA chains, enough to cover the FMA latency; returns float lanes per iteration.
constexpr int fma_chains = 12;

__attribute__((target("avx512f"))) float fma_avx512(long iterations, float* out) {
  __m512 a[fma_chains];
  for (int c = 0; c < fma_chains; ++c) a[c] = _mm512_set1_ps(1.0f + 1e-7f * c);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (long k = 0; k < iterations; ++k)
    for (int c = 0; c < fma_chains; ++c) a[c] = _mm512_fmadd_ps(a[c], x, y);
  for (int c = 1; c < fma_chains; ++c) a[0] = _mm512_add_ps(a[0], a[c]);
  *out = _mm512_reduce_add_ps(a[0]);
  return fma_chains * 16.0f;
}

__attribute__((target("avx2,fma"))) float fma_avx2(long iterations, float* out) {
  __m256 a[fma_chains];
  for (int c = 0; c < fma_chains; ++c) a[c] = _mm256_set1_ps(1.0f + 1e-7f * c);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (long k = 0; k < iterations; ++k)
    for (int c = 0; c < fma_chains; ++c) a[c] = _mm256_fmadd_ps(a[c], x, y);
  for (int c = 1; c < fma_chains; ++c) a[0] = _mm256_add_ps(a[0], a[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, a[0]);
  *out = lanes[0];
  return fma_chains * 8.0f;
}
#endif

int machine_simd() {
#ifdef KERNWERK_HOST_AVX2
  if (__builtin_cpu_supports("avx512f")) return 2;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 1;
#endif
  return 0;
}

std::atomic<int> simd_limit{2};

}  // namespace

int widest_simd() {
  static const int widest = machine_simd();
  return widest;
}

void limit_simd_width(int widest) { simd_limit = widest; }

double fma_rate_one_thread() {
  const long iterations = 1L << 22;
  float out = 0;
  double lanes_per_iteration = 12;  // the portable loop: 12 scalar chains
  const auto start = std::chrono::steady_clock::now();
  const int simd = std::min(widest_simd(), simd_limit.load());
#ifdef KERNWERK_HOST_AVX2
  if (simd == 2) lanes_per_iteration = fma_avx512(iterations, &out);
  else if (simd == 1) lanes_per_iteration = fma_avx2(iterations, &out);
#endif
  if (simd == 0) {
    float a[12];
    for (int c = 0; c < 12; ++c) a[c] = 1.0f + 1e-7f * c;
    for (long k = 0; k < iterations; ++k)
      for (int c = 0; c < 12; ++c) a[c] = std::fma(a[c], 0.999999f, 1e-7f);
    out = a[0] + a[11];
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile float keep = out;  // the result is used, so the work is done
  (void)keep;
  return lanes_per_iteration * double(iterations) / seconds;
}

void scan_sphere_f32(const centred_references_f32& references, const float (*observations)[3],
                     int count, int k, bool* too_many, candidate_visit visit, void* context) {
  candidates found[4];
  int first = 0;
#ifdef KERNWERK_HOST_AVX2
  const int simd = std::min(widest_simd(), simd_limit.load());
  if (simd > 0) {
    const auto scan = simd == 2 ? scan_avx512 : scan_avx2;
    for (; first < count; first += together) {
      const int here = std::min(together, count - first);
      float o[together][3];  // a short last group repeats its first observation
      for (int p = 0; p < together; ++p) {
        const float* from = observations[first + (p < here ? p : 0)];
        o[p][0] = from[0], o[p][1] = from[1], o[p][2] = from[2];
        found[p].start(k, references.margin);
      }
      scan(references, o, found);
      for (int p = 0; p < here; ++p) found[p].report(first + p, too_many, visit, context);
    }
  }
#endif
  for (; first < count; ++first) {
    found[0].start(k, references.margin);
    scan_portable(references, observations[first], found[0]);
    found[0].report(first, too_many, visit, context);
  }
}

}  // namespace kernwerk::host
