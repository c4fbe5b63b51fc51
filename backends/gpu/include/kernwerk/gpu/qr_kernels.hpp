#pragma once
// The generic QR's panel step (impl::householder_qr::panel_step) as a plain GPU launch, written
// once for CUDA and HIP (impl::qr_panel_tuned): a launch a column, without Kokkos' checks of a
// team policy on the host at each one. A block is the step's team: a warp a column, its lanes on
// the team's rows, a row a lane where the panel has rows enough for the teams; a step's time on
// the H200 was its lanes' walk over their rows more than its launch
// (perf/results/issue48-cuda-h200.json, issue48-qr-rows-cuda-h200.json).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/impl/math.hpp"

namespace kernwerk::gpu_impl {

constexpr int qr_panel_threads = 1024;

template <class Runtime, class T>
__device__ T warp_total(T value) {
  for (int mask = Runtime::warp_size / 2; mask > 0; mask /= 2) value += Runtime::shuffle_xor(value, mask);
  return value;
}
template <class Runtime, class T>
__device__ T warp_largest(T value) {
  for (int mask = Runtime::warp_size / 2; mask > 0; mask /= 2)
    value = impl::math::fmax(value, Runtime::shuffle_xor(value, mask));
  return value;
}

// Step j of the panel as panel_step's operator() does it for team blockIdx.x (its comments
// give the algebra): column j's reflector from the teams' sums, applied to the later columns
// over the team's rows; then the sums of column j + 1 from the team's rows.
template <class Runtime, class Step>
__global__ void __launch_bounds__(qr_panel_threads) qr_panel_step(const Step s) {
  using T = typename Step::value_type;
  namespace math = impl::math;
  constexpr int lanes = Runtime::warp_size, warps = qr_panel_threads / lanes;
  const int lane = int(threadIdx.x) % lanes, warp = int(threadIdx.x) / lanes;
  const std::int64_t p = s.panel.extent(0);
  const int kb = int(s.panel.extent(1)), k = int(blockIdx.x), j = s.j;
  const std::int64_t r0 = k * s.rows, r1 = r0 + s.rows < p ? r0 + s.rows : p;
  const int in = j & 1, out = (j + 1) & 1, next = j + 1;
  const std::int64_t below = r0 > next ? r0 : next;
  T t = 0, scal = 0;
  bool reflect = false;
  if (j >= 0) {
    T big = 0, sum = 0;
    for (int q = lane; q < s.teams; q += lanes) big = math::fmax(big, s.sums(in, kb, q));
    big = warp_largest<Runtime>(big);
    T beta = 0;
    if (big > 0) {
      for (int q = lane; q < s.teams; q += lanes) {
        const T r = s.sums(in, kb, q) / big;
        sum += s.sums(in, j, q) * r * r;
      }
      sum = warp_total<Runtime>(sum);
      const T alpha = s.head(in, j), x_norm = big * math::sqrt(sum);
      const T scale = math::fmax(math::fabs(alpha), x_norm);
      const T length = scale * math::sqrt((alpha / scale) * (alpha / scale) + (x_norm / scale) * (x_norm / scale));
      beta = alpha >= 0 ? -length : length;
      t = (beta - alpha) / beta;
      scal = 1 / (alpha - beta);
      reflect = true;
    }
    if (k == 0 && threadIdx.x == 0) s.tau(s.first + j) = t;
    if (reflect) {
      for (int c = j + 1 + warp; c < kb; c += warps) {
        T d = 0;
        for (int q = lane; q < s.teams; q += lanes) d += s.sums(in, c, q) * (scal * s.sums(in, kb, q));
        const T w = t * (s.head(in, c) + warp_total<Runtime>(d));
        for (std::int64_t i = below + lane; i < r1; i += lanes) s.panel(i, c) -= w * (scal * s.panel(i, j));
        if (lane == 0 && r0 <= j && j < r1) s.panel(j, c) -= w;
      }
      if (threadIdx.x == 0 && r0 <= j && j < r1) s.panel(j, j) = beta;
    }
    __syncthreads();
  }
  for (int c = (j > 0 ? j : 0) + warp; c < kb; c += warps) {
    if (c == j) {  // v below the diagonal
      if (reflect)
        for (std::int64_t i = below + lane; i < r1; i += lanes) s.panel(i, j) *= scal;
      continue;
    }
    const std::int64_t lo = r0 > next + 1 ? r0 : next + 1;
    T big = 0, sum = 0;
    for (std::int64_t i = lo + lane; i < r1; i += lanes) big = math::fmax(big, math::fabs(s.panel(i, next)));
    big = warp_largest<Runtime>(big);
    if (big > 0) {
      for (std::int64_t i = lo + lane; i < r1; i += lanes) {
        const T x = s.panel(i, next) / big;
        sum += x * (c == next ? x : s.panel(i, c));
      }
      sum = warp_total<Runtime>(sum);
    }
    if (lane == 0) {
      s.sums(out, c, k) = sum;
      if (c == next) s.sums(out, kb, k) = big;
      if (r0 <= next && next < r1) s.head(out, c) = s.panel(next, c);
    }
  }
}

template <class Runtime>
struct gpu_qr_panel {
  static constexpr bool available = true;
  static constexpr std::int64_t row_step = Runtime::warp_size;  // a row a lane
  template <class Step>
  static void run(const typename Runtime::execution_space& space, const Step& step, int teams) {
    qr_panel_step<Runtime><<<unsigned(teams), qr_panel_threads, 0, Runtime::stream(space)>>>(step);
    Runtime::check_launch("kernwerk qr panel step");
  }
};

}  // namespace kernwerk::gpu_impl
