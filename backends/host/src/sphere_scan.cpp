// The float32 scan of the host's tuned nearest neighbour: see kernwerk/host/sphere_scan.hpp.
// x86-64 machines with AVX-512 or AVX2 and FMA take a 16- or 8-wide path chosen at run time;
// every other machine, and the tail, the portable loop.
#include "kernwerk/host/sphere_scan.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
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
constexpr float given_up = 1.0e30f;   // above every value: a given-up scan takes nothing more

inline float centred_value(float x, float y, float z, float dx, float dy, float dz) {
  return std::fma(z, dz, std::fma(y, dy, x * dx));  // the order of the vector paths
}

// The references that can be among one observation's k nearest, gathered as the scan goes: every
// reference whose value is at least the limit, the k-th largest value seen less the margin (the
// k largest kept in order in `top`, which the vector paths update with vector instructions: no
// loop, no branch per slot). Entries the limit has passed are dropped when the buffer fills.
// Where more than 2 k + 32 references come within the margin (a cluster tighter than float32
// resolves), the observation is given up: its scan takes nothing more, and it is reported
// too_many (the float64 rule over an index settles it; going on cost a buffer's sort each time
// it filled, for a list that mostly ended incomplete: perf/results/layouts-host-epyc-2core.json,
// clusters).
struct candidates {
  // 2 k + 4 vectors, the size at which the buffer is tightened, and a vector more.
  static constexpr int room = 2 * most_neighbours + 5 * widest_lanes;
  int k = 1;
  int full = room;
  int size = 0;
  float margin = 0.0f;
  float limit = no_limit;
  bool crowded = false;  // given up
  std::int64_t window_from = 0, window_to = 0;  // the window's references, scanned first
  alignas(64) float top[most_neighbours];  // the k largest values taken, largest first
  alignas(64) float value[room];
  alignas(64) std::int32_t index[room];

  void start(int wanted, float value_margin) {
    k = wanted;
    full = 2 * wanted + 4 * widest_lanes;
    size = 0;
    margin = value_margin;
    limit = no_limit;
    crowded = false;
    window_from = window_to = 0;
    std::fill(top, top + most_neighbours, no_limit);
  }

  // Whether the references from j on (whole vectors of 8 or 16) were scanned in the window.
  bool seeded(std::int64_t j) const { return j >= window_from && j < window_to; }

  // What a reference's value must reach to be taken.
  float threshold() const { return crowded ? given_up : limit; }

  // Whether value v enters the k largest.
  bool ranks(float v) const { return v > top[k - 1]; }

  // After `top` changed.
  void update_limit() { limit = top[k - 1] - margin; }

  // Room for `count` more entries (which can raise the threshold).
  void make_room(int count) {
    if (size + count > full) tighten();
  }

  // Takes reference j, whose value v is at least the threshold (the portable path).
  void add(float v, std::int64_t j) {
    make_room(1);
    if (!(v >= threshold())) return;
    value[size] = v;
    index[size++] = static_cast<std::int32_t>(j);
    if (!ranks(v)) return;
    int slot = k - 1;
    for (; slot > 0 && top[slot - 1] < v; --slot) top[slot] = top[slot - 1];
    top[slot] = v;
    update_limit();
  }

  // Keeps the values at least `least`.
  void keep_from(float least) {
    int kept = 0;
    for (int e = 0; e < size; ++e)
      if (value[e] >= least) value[kept] = value[e], index[kept++] = index[e];
    size = kept;
  }

  // Drops the values the limit has passed; past 2 k + 32 entries (full less two vectors), gives
  // up.
  void tighten() {
    keep_from(threshold());
    if (size > full - 2 * widest_lanes) crowded = true, size = 0;
  }

  // Observation i's candidates, in no particular order; or too_many[i].
  void report(int i, bool* too_many, candidate_visit visit, void* context) {
    tighten();
    too_many[i] = crowded;
    if (!too_many[i]) visit(context, i, index, size);
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

// A window's vectors from its middle outwards (s = 0 .. vectors - 1): the references nearest the
// observation's place on the curve first, so that the best values come before the others.
inline std::int64_t middle_out(std::int64_t s, std::int64_t vectors) {
  return vectors / 2 + (s % 2 ? -(s + 1) / 2 : s / 2);
}

// The window from `from` to `to` (whole vectors of 16) scanned before the rest, which then
// passes it by (scan_sphere_f32 marks it so, once each path's window scan is done).
void window_portable(const centred_references_f32& refs, const float* o, candidates& found,
                     std::int64_t from, std::int64_t to) {
  constexpr int lanes = widest_lanes;
  const std::int64_t vectors = (to - from) / lanes;
  for (std::int64_t s = 0; s < vectors; ++s)
    for (std::int64_t j = from + middle_out(s, vectors) * lanes, end = j + lanes; j < end; ++j) {
      const float v = centred_value(o[0], o[1], o[2], refs.x[j], refs.y[j], refs.z[j]);
      if (v >= found.threshold()) found.add(v, j);
    }
}

// The portable scan goes over the same blocks of 16 as the widest vector path, with a loop a
// compiler can vectorise (NEON, SVE) and one branch a block.
void scan_portable(const centred_references_f32& refs, const float* o, candidates& found) {
  constexpr int lanes = widest_lanes;
  const std::int64_t vectors = (refs.count + lanes - 1) / lanes, first = first_round(vectors);
  for (std::int64_t step = 0; step < vectors; ++step) {
    const std::int64_t j = in_two_rounds(step, first) * lanes;
    const float limit = found.threshold();
    float value[lanes];
    bool hit = false;
    for (int lane = 0; lane < lanes; ++lane) {
      value[lane] = centred_value(o[0], o[1], o[2], refs.x[j + lane], refs.y[j + lane], refs.z[j + lane]);
      hit |= value[lane] >= limit;
    }
    if (hit && !found.seeded(j))
      for (int lane = 0; lane < lanes; ++lane)
        if (value[lane] >= found.threshold()) found.add(value[lane], j + lane);
  }
}

#ifdef KERNWERK_HOST_AVX2
constexpr int together = 4;  // observations sharing each load of references

// The hits of one vector for one observation (the lanes whose value reaches its threshold) join
// its candidates: packed into the buffer by a compress, then each that beats the k-th largest
// goes into `top`, held in vector registers sorted largest first. Inserting v is, lane by lane,
// top[i] = max(top[i], min(top[i - 1], v)) (top[-1] = +inf): a permute, a min and a max a
// vector, no branch; a value that ranks no more is a no-op, so the lanes that beat the k-th at
// the start all go in without a compare between them.
constexpr float above_all = 1.0e30f;

// AVX2 has no compress: the lane order for each 8-bit mask, 4 bits a lane.
constexpr std::array<std::uint32_t, 256> packed_lanes = [] {
  std::array<std::uint32_t, 256> order{};
  for (unsigned mask = 0; mask < 256; ++mask)
    for (unsigned lane = 0, at = 0; lane < 8; ++lane)
      if (mask >> lane & 1) order[mask] |= lane << (4 * at++);
  return order;
}();

__attribute__((target("avx2,fma"))) inline __m256 take_hits(candidates& found, __m256 value,
                                                            std::int64_t j, int hits) {
  constexpr int lanes = 8, most_vectors = most_neighbours / lanes;
  if (found.seeded(j)) return _mm256_set1_ps(found.threshold());
  found.make_room(lanes);
  hits &= _mm256_movemask_ps(_mm256_cmp_ps(value, _mm256_set1_ps(found.threshold()), _CMP_GE_OQ));
  const __m256i order = _mm256_and_si256(
      _mm256_srlv_epi32(_mm256_set1_epi32(int(packed_lanes[hits])),
                        _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
      _mm256_set1_epi32(15));
  _mm256_storeu_ps(found.value + found.size, _mm256_permutevar8x32_ps(value, order));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(found.index + found.size),
                      _mm256_add_epi32(_mm256_set1_epi32(std::int32_t(j)), order));
  found.size += __builtin_popcount(unsigned(hits));
  int ranked =
      hits & _mm256_movemask_ps(_mm256_cmp_ps(value, _mm256_set1_ps(found.top[found.k - 1]), _CMP_GT_OQ));
  if (!ranked) return _mm256_set1_ps(found.threshold());
  const int vectors = (found.k + lanes - 1) / lanes;
  const __m256i previous = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), last = _mm256_set1_epi32(7);
  __m256 top[most_vectors];
  for (int r = 0; r < vectors; ++r) top[r] = _mm256_load_ps(found.top + r * lanes);
  for (; ranked; ranked &= ranked - 1) {
    const __m256 v = _mm256_permutevar8x32_ps(value, _mm256_set1_epi32(__builtin_ctz(unsigned(ranked))));
    __m256 before = _mm256_set1_ps(above_all);  // the lane before each vector's first
    for (int r = 0; r < vectors; ++r) {
      const __m256 shifted = _mm256_blend_ps(_mm256_permutevar8x32_ps(top[r], previous), before, 1);
      before = _mm256_permutevar8x32_ps(top[r], last);
      top[r] = _mm256_max_ps(top[r], _mm256_min_ps(shifted, v));
    }
  }
  for (int r = 0; r < vectors; ++r) _mm256_store_ps(found.top + r * lanes, top[r]);
  found.update_limit();
  return _mm256_set1_ps(found.threshold());
}

__attribute__((target("avx2,fma"))) void window_avx2(const centred_references_f32& refs,
                                                     const float* o, candidates& found,
                                                     std::int64_t from, std::int64_t to) {
  constexpr int lanes = 8;
  const __m256 ox = _mm256_set1_ps(o[0]), oy = _mm256_set1_ps(o[1]), oz = _mm256_set1_ps(o[2]);
  __m256 limit = _mm256_set1_ps(found.threshold());
  const std::int64_t vectors = (to - from) / lanes;
  for (std::int64_t s = 0; s < vectors; ++s) {
    const std::int64_t j = from + middle_out(s, vectors) * lanes;
    const __m256 rx = _mm256_loadu_ps(refs.x + j), ry = _mm256_loadu_ps(refs.y + j),
                 rz = _mm256_loadu_ps(refs.z + j);
    const __m256 value = _mm256_fmadd_ps(oz, rz, _mm256_fmadd_ps(oy, ry, _mm256_mul_ps(ox, rx)));
    const int hits = _mm256_movemask_ps(_mm256_cmp_ps(value, limit, _CMP_GE_OQ));
    if (hits) limit = take_hits(found, value, j, hits);
  }
}

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
      const int hits = _mm256_movemask_ps(_mm256_cmp_ps(value, limit[p], _CMP_GE_OQ));
      if (hits) limit[p] = take_hits(found[p], value, j, hits);  // rare: a new best or a near tie
    }
  }
}

// The same with 16 lanes, where the machine has AVX-512 (compares give masks directly; the
// compress goes to a register, which is fast where a compress to memory is not, as on Zen 4).
// Inserts v into top (first, and second where k > 16).
template <bool Two>
__attribute__((target("avx512f"))) inline void insert_value(__m512& first, __m512& second, __m512 v) {
  // Lane i takes lane i - 1; lane 0 of the first above_all, of the second the first's last.
  const __m512i previous = _mm512_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14),
                carried = _mm512_setr_epi32(31, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
  const __m512 shifted = _mm512_mask_permutexvar_ps(_mm512_set1_ps(above_all), 0xfffe, previous, first);
  if constexpr (Two) {
    const __m512 shifted_second = _mm512_permutex2var_ps(second, carried, first);
    second = _mm512_max_ps(second, _mm512_min_ps(shifted_second, v));
  }
  first = _mm512_max_ps(first, _mm512_min_ps(shifted, v));
}

// Inserts the lanes `ranked` of value: two without a branch (the second a no-op where there is
// one), the rare others in a loop.
template <bool Two>
__attribute__((target("avx512f"))) inline void insert_ranked(__m512& first, __m512& second,
                                                             __m512 value, unsigned ranked) {
  unsigned rest = ranked & (ranked - 1);
  insert_value<Two>(first, second, _mm512_permutexvar_ps(_mm512_set1_epi32(__builtin_ctz(ranked)), value));
  insert_value<Two>(first, second,
                    _mm512_mask_permutexvar_ps(_mm512_set1_ps(no_limit), __mmask16(rest ? 0xffff : 0),
                                               _mm512_set1_epi32(__builtin_ctz(rest | 0x10000)), value));
  for (rest &= rest - 1; rest; rest &= rest - 1)
    insert_value<Two>(first, second, _mm512_permutexvar_ps(_mm512_set1_epi32(__builtin_ctz(rest)), value));
}

__attribute__((target("avx512f"))) inline __m512 take_hits(candidates& found, __m512 value,
                                                           std::int64_t j, __mmask16 hits) {
  constexpr int lanes = 16;
  if (found.seeded(j)) return _mm512_set1_ps(found.threshold());
  found.make_room(lanes);
  hits &= _mm512_cmp_ps_mask(value, _mm512_set1_ps(found.threshold()), _CMP_GE_OQ);
  const __m512i lane_index = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  _mm512_storeu_ps(found.value + found.size, _mm512_maskz_compress_ps(hits, value));
  _mm512_storeu_si512(found.index + found.size,
                      _mm512_maskz_compress_epi32(
                          hits, _mm512_add_epi32(_mm512_set1_epi32(std::int32_t(j)), lane_index)));
  found.size += __builtin_popcount(unsigned(hits));
  const unsigned ranked = _mm512_mask_cmp_ps_mask(
      hits, value, _mm512_set1_ps(found.top[found.k - 1]), _CMP_GT_OQ);
  if (!ranked) return _mm512_set1_ps(found.threshold());
  __m512 first = _mm512_load_ps(found.top), kth;
  const __m512i kth_lane = _mm512_set1_epi32((found.k - 1) % lanes);
  if (found.k <= lanes) {
    insert_ranked<false>(first, first, value, ranked);
    kth = _mm512_permutexvar_ps(kth_lane, first);
  } else {
    __m512 second = _mm512_load_ps(found.top + lanes);
    insert_ranked<true>(first, second, value, ranked);
    _mm512_store_ps(found.top + lanes, second);
    kth = _mm512_permutexvar_ps(kth_lane, second);
  }
  _mm512_store_ps(found.top, first);
  const __m512 limit = _mm512_sub_ps(kth, _mm512_set1_ps(found.margin));  // update_limit's
  found.limit = _mm512_cvtss_f32(limit);
  return found.crowded ? _mm512_set1_ps(given_up) : limit;
}

__attribute__((target("avx512f"))) void window_avx512(const centred_references_f32& refs,
                                                       const float* o, candidates& found,
                                                       std::int64_t from, std::int64_t to) {
  constexpr int lanes = 16;
  const __m512 ox = _mm512_set1_ps(o[0]), oy = _mm512_set1_ps(o[1]), oz = _mm512_set1_ps(o[2]);
  __m512 limit = _mm512_set1_ps(found.threshold());
  const std::int64_t vectors = (to - from) / lanes;
  for (std::int64_t s = 0; s < vectors; ++s) {
    const std::int64_t j = from + middle_out(s, vectors) * lanes;
    const __m512 rx = _mm512_loadu_ps(refs.x + j), ry = _mm512_loadu_ps(refs.y + j),
                 rz = _mm512_loadu_ps(refs.z + j);
    const __m512 value = _mm512_fmadd_ps(oz, rz, _mm512_fmadd_ps(oy, ry, _mm512_mul_ps(ox, rx)));
    const __mmask16 hits = _mm512_cmp_ps_mask(value, limit, _CMP_GE_OQ);
    if (hits) limit = take_hits(found, value, j, hits);
  }
}

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
      const __mmask16 hits = _mm512_cmp_ps_mask(value, limit[p], _CMP_GE_OQ);
      if (hits) limit[p] = take_hits(found[p], value, j, hits);
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
                     int count, int k, bool* too_many, candidate_visit visit, void* context,
                     const std::int64_t* windows, int window) {
  candidates found[4];
  using window_scan = void (*)(const centred_references_f32&, const float*, candidates&,
                               std::int64_t, std::int64_t);
  window_scan scan_window = window_portable;
  const auto start = [&](candidates& c, int i, const float* o) {
    c.start(k, references.margin);
    if (!windows) return;
    scan_window(references, o, c, windows[i], windows[i] + window);
    c.window_from = windows[i], c.window_to = windows[i] + window;  // the rest passes it by
  };
  int first = 0;
#ifdef KERNWERK_HOST_AVX2
  const int simd = std::min(widest_simd(), simd_limit.load());
  if (simd > 0) {
    scan_window = simd == 2 ? window_avx512 : window_avx2;
    const auto scan = simd == 2 ? scan_avx512 : scan_avx2;
    for (; first < count; first += together) {
      const int here = std::min(together, count - first);
      float o[together][3];  // a short last group repeats its first observation
      for (int p = 0; p < together; ++p) {
        const float* from = observations[first + (p < here ? p : 0)];
        o[p][0] = from[0], o[p][1] = from[1], o[p][2] = from[2];
        start(found[p], first + (p < here ? p : 0), o[p]);
      }
      scan(references, o, found);
      for (int p = 0; p < here; ++p) found[p].report(first + p, too_many, visit, context);
    }
  }
#endif
  for (; first < count; ++first) {
    start(found[0], first, observations[first]);
    scan_portable(references, observations[first], found[0]);
    found[0].report(first, too_many, visit, context);
  }
}

}  // namespace kernwerk::host
