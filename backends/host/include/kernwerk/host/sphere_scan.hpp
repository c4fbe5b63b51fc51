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

// For each of `count` observations (float32 unit vectors), the index of the reference with the
// smallest float32 squared chord (the first of equal ones) and whether any other reference came
// within the float32 error margin of it, in which case float32 cannot name the winner.
void scan_sphere_f32(const sphere_references_f32& references, const float (*observations)[3],
                     int count, std::int64_t* best, unsigned char* ambiguous);

// The vector instruction sets the scan can use: 0 portable, 1 AVX2 + FMA, 2 AVX-512. The scan
// takes the widest the machine has, or at most `limit_simd_width` (for tests of every path).
int widest_simd();

// float32 FMAs per second of one thread through the widest vector path the scan would use
// (independent chains, no memory traffic): the host's FMA ceiling, per core.
double fma_rate_one_thread();
void limit_simd_width(int widest);

}  // namespace kernwerk::host
