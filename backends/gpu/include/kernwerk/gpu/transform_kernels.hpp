#pragma once
// The tuned GPU elementwise map of kernwerk::transform for contiguous rank-1 Views, written
// once for CUDA and HIP: a grid-stride loop over raw pointers, enough blocks to fill the GPU,
// 16-byte loads and stores where every View is float and aligned.
// (The same map through Kokkos 3.4's RangePolicy reached a fraction of the copy bandwidth:
// perf/results/workloads-cuda-h200.json; commit 0a11ed2.)
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace kernwerk::gpu_impl {

constexpr int map_threads = 256;

template <class Out, class Function, class... In>
__global__ void __launch_bounds__(map_threads)
    map_contiguous(Out* out, std::int64_t n, Function f, const In*... in) {
  // Four elements a stride apart per iteration: four independent loads of each input in flight.
  const std::int64_t stride = std::int64_t(gridDim.x) * map_threads;
  std::int64_t i = std::int64_t(blockIdx.x) * map_threads + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
#pragma unroll
    for (int u = 0; u < 4; ++u) out[i + u * stride] = static_cast<Out>(f(in[i + u * stride]...));
  }
  for (; i < n; i += stride) out[i] = static_cast<Out>(f(in[i]...));
}

__device__ __forceinline__ float lane_of(const float4& v, int lane) {
  return lane == 0 ? v.x : lane == 1 ? v.y : lane == 2 ? v.z : v.w;
}

template <class Function, std::size_t... I>
__device__ __forceinline__ float apply_lane(const Function& f, const float4 (&values)[sizeof...(I)],
                                            int lane, std::index_sequence<I...>) {
  return static_cast<float>(f(lane_of(values[I], lane)...));
}

// All-float maps over 16-byte aligned Views: one 16-byte load per input and one store per
// four elements; the n % 4 last elements one by one.
template <class Function, class... In>
__global__ void __launch_bounds__(map_threads)
    map_float4(float* out, std::int64_t n, Function f, const In*... in) {
  const std::int64_t vectors = n / 4, stride = std::int64_t(gridDim.x) * map_threads;
  const std::int64_t first = std::int64_t(blockIdx.x) * map_threads + threadIdx.x;
  for (std::int64_t v = first; v < vectors; v += stride) {
    const float4 values[sizeof...(In)] = {reinterpret_cast<const float4*>(in)[v]...};
    float4 result;
    result.x = apply_lane(f, values, 0, std::index_sequence_for<In...>{});
    result.y = apply_lane(f, values, 1, std::index_sequence_for<In...>{});
    result.z = apply_lane(f, values, 2, std::index_sequence_for<In...>{});
    result.w = apply_lane(f, values, 3, std::index_sequence_for<In...>{});
    reinterpret_cast<float4*>(out)[v] = result;
  }
  const std::int64_t i = 4 * vectors + first;
  if (i < n) out[i] = static_cast<float>(f(in[i]...));
}

template <class Runtime>
struct gpu_transform {
  template <class View>
  static bool contiguous(const View& v) {
    return v.extent(0) < 2 || v.stride(0) == 1;
  }
  template <class Output, class... Inputs>
  static bool covers(const Output& out, const Inputs&... inputs) {
    return contiguous(out) && (contiguous(inputs) && ...);
  }
  template <class Output, class Function, class... Inputs>
  static void run(const typename Runtime::execution_space& space, const Output& out,
                  const Function& f, const Inputs&... inputs) {
    const std::int64_t n = out.extent(0);
    if (n == 0) return;
    const std::int64_t wanted = (n + map_threads - 1) / map_threads;
    const int blocks = int(std::min<std::int64_t>(wanted, 16 * Runtime::multiprocessors()));
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
    constexpr bool all_float =
        std::is_same_v<typename Output::value_type, float> &&
        (std::is_same_v<typename Inputs::non_const_value_type, float> && ...);
    if constexpr (all_float) {
      if (aligned(out.data()) && (aligned(inputs.data()) && ...)) {
        map_float4<Function, typename Inputs::non_const_value_type...>
            <<<blocks, map_threads, 0, Runtime::stream(space)>>>(out.data(), n, f, inputs.data()...);
        Runtime::check_launch("map_float4");
        return;
      }
    }
    map_contiguous<typename Output::value_type, Function,
                   typename Inputs::non_const_value_type...>
        <<<blocks, map_threads, 0, Runtime::stream(space)>>>(out.data(), n, f, inputs.data()...);
    Runtime::check_launch("map_contiguous");
  }
};

}  // namespace kernwerk::gpu_impl
