// The float32 scan of the host's tuned nearest neighbour: see kernwerk/host/sphere_scan.hpp.
// x86-64 machines with AVX-512 or AVX2 and FMA take a 16- or 8-wide path chosen at run time;
// every other machine, and the tail, the portable loop.
#include "kernwerk/host/sphere_scan.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define KERNWERK_HOST_AVX2 1
#endif

namespace kernwerk::host {
namespace {

// The float32 error bound of two squared chords near c, added (derived in
// backends/gpu/include/kernwerk/gpu/nearest_kernels.hpp; the same float32 operations run here).
inline float chord_margin(float c) { return 1.0e-6f * std::sqrt(c) + 6.0e-7f * c + 1.0e-12f; }

// The best chord so far, and the references within its margin (the candidates an ambiguous
// winner is decided among) while they are few.
struct running_best {
  static constexpr int kept = 16;
  float best = 1.0e30f;  // above every chord, with a finite margin
  float limit = 1.0e30f;
  std::int64_t index = -1;
  bool overflow = false;  // more than `kept` candidates since the best last moved past the margin
  int near = 0;
  float near_chord[kept];
  std::int64_t near_index[kept];

  // Whether another reference is within the margin of the best: float32 cannot name the winner.
  bool ambiguous() const { return near > 1 || overflow; }

  // Candidates arrive in index order, each with a chord at most `limit`.
  void fold(float chord, std::int64_t j) {
    if (chord < best - chord_margin(best)) near = 0, overflow = false;  // all earlier ruled out
    if (chord < best) {  // a lower limit: drop the candidates it rules out
      best = chord;
      index = j;
      limit = best + chord_margin(best);
      int still = 0;
      for (int e = 0; e < near; ++e)
        if (near_chord[e] <= limit) near_chord[still] = near_chord[e], near_index[still++] = near_index[e];
      near = still;
    }
    if (near < kept) near_chord[near] = chord, near_index[near++] = j;
    else overflow = true;
  }

  // Writes observation i's answer (see scan_sphere_f32), visiting its candidates if ambiguous.
  void report(int i, std::int64_t* answer, candidate_visit visit, void* context) const {
    if (!ambiguous()) {
      answer[i] = index;
    } else if (overflow) {
      answer[i] = too_many_candidates;
    } else {
      answer[i] = -1;
      for (int e = 0; e < near; ++e) visit(context, i, near_index[e]);
    }
  }
};

inline float squared_chord(float ox, float oy, float oz, float rx, float ry, float rz) {
  const float dx = ox - rx, dy = oy - ry, dz = oz - rz;
  return std::fma(dz, dz, std::fma(dy, dy, dx * dx));
}

void scan_portable(const sphere_references_f32& references, const float* o, running_best& result,
                   std::int64_t from) {
  for (std::int64_t j = from; j < references.count; ++j) {
    const float chord = squared_chord(o[0], o[1], o[2], references.x[j], references.y[j],
                                      references.z[j]);
    if (chord <= result.limit) result.fold(chord, j);
  }
}

#ifdef KERNWERK_HOST_AVX2
constexpr int lanes = 8;
constexpr int together = 4;  // observations sharing each load of references

// Scans `together` observations at once, 8 references a step; a step whose chords all exceed
// every limit costs no branch taken. Returns the first reference it left to the caller.
__attribute__((target("avx2,fma"))) std::int64_t scan_avx2(const sphere_references_f32& refs,
                                                           const float (*o)[3],
                                                           running_best* result) {
  __m256 ox[together], oy[together], oz[together], limit[together];
  for (int p = 0; p < together; ++p) {
    ox[p] = _mm256_set1_ps(o[p][0]);
    oy[p] = _mm256_set1_ps(o[p][1]);
    oz[p] = _mm256_set1_ps(o[p][2]);
    limit[p] = _mm256_set1_ps(result[p].limit);
  }
  const std::int64_t whole = refs.count / lanes * lanes;
  for (std::int64_t j = 0; j < whole; j += lanes) {
    const __m256 rx = _mm256_loadu_ps(refs.x + j), ry = _mm256_loadu_ps(refs.y + j),
                 rz = _mm256_loadu_ps(refs.z + j);
    for (int p = 0; p < together; ++p) {
      const __m256 dx = _mm256_sub_ps(ox[p], rx), dy = _mm256_sub_ps(oy[p], ry),
                   dz = _mm256_sub_ps(oz[p], rz);
      const __m256 chord =
          _mm256_fmadd_ps(dz, dz, _mm256_fmadd_ps(dy, dy, _mm256_mul_ps(dx, dx)));
      const int hits = _mm256_movemask_ps(_mm256_cmp_ps(chord, limit[p], _CMP_LE_OQ));
      if (hits) {  // rare: a new best or a near tie among these 8
        alignas(32) float chords[lanes];
        _mm256_store_ps(chords, chord);
        for (int lane = 0; lane < lanes; ++lane)
          if (chords[lane] <= result[p].limit) result[p].fold(chords[lane], j + lane);
        limit[p] = _mm256_set1_ps(result[p].limit);
      }
    }
  }
  return whole;
}

// The same with 16 lanes, where the machine has AVX-512 (compares give masks directly).
__attribute__((target("avx512f"))) std::int64_t scan_avx512(const sphere_references_f32& refs,
                                                             const float (*o)[3],
                                                             running_best* result) {
  constexpr int wide = 16;
  __m512 ox[together], oy[together], oz[together], limit[together];
  for (int p = 0; p < together; ++p) {
    ox[p] = _mm512_set1_ps(o[p][0]);
    oy[p] = _mm512_set1_ps(o[p][1]);
    oz[p] = _mm512_set1_ps(o[p][2]);
    limit[p] = _mm512_set1_ps(result[p].limit);
  }
  const std::int64_t whole = refs.count / wide * wide;
  for (std::int64_t j = 0; j < whole; j += wide) {
    const __m512 rx = _mm512_loadu_ps(refs.x + j), ry = _mm512_loadu_ps(refs.y + j),
                 rz = _mm512_loadu_ps(refs.z + j);
    for (int p = 0; p < together; ++p) {
      const __m512 dx = _mm512_sub_ps(ox[p], rx), dy = _mm512_sub_ps(oy[p], ry),
                   dz = _mm512_sub_ps(oz[p], rz);
      const __m512 chord =
          _mm512_fmadd_ps(dz, dz, _mm512_fmadd_ps(dy, dy, _mm512_mul_ps(dx, dx)));
      if (_mm512_cmp_ps_mask(chord, limit[p], _CMP_LE_OQ)) {
        alignas(64) float chords[wide];
        _mm512_store_ps(chords, chord);
        for (int lane = 0; lane < wide; ++lane)
          if (chords[lane] <= result[p].limit) result[p].fold(chords[lane], j + lane);
        limit[p] = _mm512_set1_ps(result[p].limit);
      }
    }
  }
  return whole;
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

void scan_sphere_f32(const sphere_references_f32& references, const float (*observations)[3],
                     int count, std::int64_t* best, candidate_visit visit, void* context) {
  running_best result[4];
  int first = 0;
#ifdef KERNWERK_HOST_AVX2
  const int simd = std::min(widest_simd(), simd_limit.load());
  if (simd > 0) {
    const auto scan = simd == 2 ? scan_avx512 : scan_avx2;
    for (; first + together <= count; first += together) {
      for (int p = 0; p < together; ++p) result[p] = running_best{};
      const std::int64_t done = scan(references, observations + first, result);
      for (int p = 0; p < together; ++p) {
        scan_portable(references, observations[first + p], result[p], done);
        result[p].report(first + p, best, visit, context);
      }
    }
  }
#endif
  for (; first < count; ++first) {
    result[0] = running_best{};
    scan_portable(references, observations[first], result[0], 0);
    result[0].report(first, best, visit, context);
  }
}

}  // namespace kernwerk::host
