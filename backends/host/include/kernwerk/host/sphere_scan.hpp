#pragma once
// The float32 scan behind the host's tuned nearest neighbour, compiled once into the library
// (with a run-time choice of AVX2 + FMA on x86-64).
#include <cstdint>

namespace kernwerk::host {

// Reference unit vectors in float32, one array per coordinate.
struct sphere_references_f32 {
  const float* x;
  const float* y;
  const float* z;
  std::int64_t count;
};

// Receives the candidates of an ambiguous observation p: visit(context, p, j).
using candidate_visit = void (*)(void* context, int observation, std::int64_t reference);
constexpr std::int64_t too_many_candidates = -2;

// For each of `count` observations (float32 unit vectors), the index of the reference with the
// smallest float32 squared chord (the first of equal ones) when no other reference came within
// its float32 error margin. Otherwise float32 cannot name the winner and best is -1: visit was
// called for every reference within the margin, in increasing index, the short list the
// float64 winner and every reference as near as it are on; or, where that list grew past 16,
// best is too_many_candidates.
void scan_sphere_f32(const sphere_references_f32& references, const float (*observations)[3],
                     int count, std::int64_t* best, candidate_visit visit, void* context);

// The vector instruction sets the scan can use: 0 portable, 1 AVX2 + FMA, 2 AVX-512. The scan
// takes the widest the machine has, or at most `limit_simd_width` (for tests of every path).
int widest_simd();

// float32 FMAs per second of one thread through the widest vector path the scan would use
// (independent chains, no memory traffic): the host's FMA ceiling, per core.
double fma_rate_one_thread();
void limit_simd_width(int widest);

}  // namespace kernwerk::host
