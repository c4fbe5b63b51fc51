#pragma once
// The float32 scan behind the host's tuned nearest neighbour, compiled once into the library
// (with a run-time choice of AVX2 + FMA or AVX-512 on x86-64).
#include <cstdint>

namespace kernwerk::host {

// The references' unit vectors v centred on their mean c, d = v - c, in float32, one array per
// coordinate, each padded with NaN to a whole number of 16 (kernwerk/impl/geometry/centred_values.hpp:
// an observation's nearest references have the largest values u.d).
struct centred_references_f32 {
  const float* x;
  const float* y;
  const float* z;
  std::int64_t count;  // without the padding
  float margin;        // impl::centred_value_margin of their spread
};

// The most neighbours the scan finds for an observation.
constexpr int most_neighbours = 32;

// Receives the candidates of observation p, in no particular order: visit(context, p,
// references, count).
using candidate_visit = void (*)(void* context, int observation, const std::int32_t* references,
                                 int count);

// For each of `count` observations (float32 unit vectors), the references that can be among its
// k nearest (1 <= k <= most_neighbours, k <= references.count): those whose float32 value is
// within the margin of the k-th largest. visit is called with them; the float64 rule decides
// among them. Where more than 2 k + 32 references are that near (a cluster tighter than the
// margin resolves, seen from afar; a point repeated many times), too_many[p] is set instead and
// visit is not called for p.
// windows: where the references are in an order that keeps neighbours near one another (along
// a curve), the first of `window` references (a multiple of 16) around each observation's place
// in that order, or nullptr. Each observation's scan starts there: the k-th best value of its
// neighbours is a limit that few references pass afterwards, where a scan from afar passes
// about k ln(m / k) of them, one branch and one insertion each.
void scan_sphere_f32(const centred_references_f32& references, const float (*observations)[3],
                     int count, int k, bool* too_many, candidate_visit visit, void* context,
                     const std::int64_t* windows = nullptr, int window = 0);

// The window's length for k: about four times k, 32 to 128 references.
constexpr int window_for(int k) { return k <= 8 ? 32 : k <= 16 ? 64 : 128; }

// The vector instruction sets the scan can use: 0 portable, 1 AVX2 + FMA, 2 AVX-512. The scan
// takes the widest the machine has, or at most `limit_simd_width` (for tests of every path).
int widest_simd();

// float32 FMAs per second of one thread through the widest vector path the scan would use
// (independent chains, no memory traffic): the host's FMA ceiling, per core.
double fma_rate_one_thread();
void limit_simd_width(int widest);

}  // namespace kernwerk::host
