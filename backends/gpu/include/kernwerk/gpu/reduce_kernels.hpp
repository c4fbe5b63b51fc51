#pragma once
// Tuned GPU reductions written once for CUDA and HIP (Runtime: warp width, shuffles, streams):
// the float64 sum of a contiguous float or double array, and the midpoint-rule sum of
// kernwerk::integrate2d. Each thread accumulates with compensation (impl::compensated_value);
// a warp combines its lanes with shuffles, the warps of a block through shared memory, and a
// second launch of one block combines the blocks' partial sums in a fixed order, so the result
// does not depend on scheduling.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/compensated.hpp"
#include "kernwerk/impl/grids/midpoint_grid.hpp"
#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

using impl::compensated_value;

constexpr int reduce_block = 256;

// Combines the threads' values of a block of reduce_block threads by add(other), in a fixed
// order; thread 0 gets the total. A value is plain doubles (compensated_value, or a struct of
// them such as conjugate gradient's pair of sums).
template <class Runtime, class Value>
__device__ Value block_combine(Value value) {
  static_assert(std::is_trivially_copyable_v<Value> && sizeof(Value) % sizeof(double) == 0,
                "a value of plain doubles");
  constexpr int count = int(sizeof(Value) / sizeof(double));
  constexpr int warps = reduce_block / Runtime::warp_size;
  for (int offset = Runtime::warp_size / 2; offset > 0; offset /= 2) {
    Value other;
    for (int c = 0; c < count; ++c)
      reinterpret_cast<double*>(&other)[c] = Runtime::shuffle_down(reinterpret_cast<const double*>(&value)[c], offset);
    value.add(other);
  }
  struct alignas(Value) slot {  // raw bytes: a value type may have initialisers
    unsigned char bytes[sizeof(Value)];
  };
  __shared__ slot slots[warps];
  Value* per_warp = reinterpret_cast<Value*>(slots);
  const int lane = threadIdx.x % Runtime::warp_size, warp = threadIdx.x / Runtime::warp_size;
  if (lane == 0) per_warp[warp] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    value = Value{};
    for (int w = 0; w < warps; ++w) value.add(per_warp[w]);
  }
  return value;
}

template <class Runtime>
__global__ void __launch_bounds__(reduce_block)
    combine_partials(const double2* __restrict__ partials, int count, double* __restrict__ result) {
  compensated_value value;
  for (int b = threadIdx.x; b < count; b += reduce_block)
    value.add(compensated_value{partials[b].x, partials[b].y});
  value = block_combine<Runtime>(value);
  if (threadIdx.x == 0) *result = value.value();
}

// Loads of 16 bytes: four floats or two doubles at a time.
template <class T>
struct wide;
template <>
struct wide<float> {
  using type = float4;
  static constexpr int lanes = 4;
  __device__ static void add(compensated_value& sum, const float4& v) {
    sum.add(double(v.x));
    sum.add(double(v.y));
    sum.add(double(v.z));
    sum.add(double(v.w));
  }
};
template <>
struct wide<double> {
  using type = double2;
  static constexpr int lanes = 2;
  __device__ static void add(compensated_value& sum, const double2& v) {
    sum.add(v.x);
    sum.add(v.y);
  }
};

template <class Runtime, class T>
__global__ void __launch_bounds__(reduce_block)
    sum_contiguous(const T* __restrict__ x, std::int64_t n, double2* __restrict__ partials) {
  using vector = wide<T>;
  compensated_value value;
  // Elements before the first 16-byte boundary, then whole vectors, then the tail.
  const std::int64_t head = std::min<std::int64_t>(
      n, ((16 - reinterpret_cast<std::uintptr_t>(x) % 16) % 16) / sizeof(T));
  const std::int64_t thread = std::int64_t(blockIdx.x) * reduce_block + threadIdx.x;
  const std::int64_t threads = std::int64_t(gridDim.x) * reduce_block;
  if (thread < head) value.add(double(x[thread]));
  const auto* vectors = reinterpret_cast<const typename vector::type*>(x + head);
  const std::int64_t count = (n - head) / vector::lanes;
  for (std::int64_t v = thread; v < count; v += threads) vector::add(value, vectors[v]);
  for (std::int64_t i = head + count * vector::lanes + thread; i < n; i += threads)
    value.add(double(x[i]));
  value = block_combine<Runtime>(value);
  if (threadIdx.x == 0) partials[blockIdx.x] = double2{value.sum, value.carry};
}

template <class Runtime, class Function>
__global__ void __launch_bounds__(reduce_block)
    integrate_rows(Function f, impl::midpoint_grid grid, double2* __restrict__ partials) {
  compensated_value value;
  for (std::int64_t i = blockIdx.x; i < grid.n; i += gridDim.x) {
    const double x = grid.x(i);
    compensated_value row;
    for (std::int64_t j = threadIdx.x; j < grid.m; j += reduce_block) row.add(f(x, grid.y(j)));
    value.add(row);
  }
  value = block_combine<Runtime>(value);
  if (threadIdx.x == 0) partials[blockIdx.x] = double2{value.sum, value.carry};
}

// Launches `first(blocks, partials)` and the combining launch; returns the float64 result.
template <class Runtime, class Launch>
double reduce_on_device(const typename Runtime::execution_space& space, int blocks,
                        const Launch& first) {
  using memory_space = typename Runtime::execution_space::memory_space;
  using scratch_type = impl::workspace<memory_space>;
  scratch_type scratch(scratch_type::template bytes_for<double2>(blocks) +
                       scratch_type::template bytes_for<double>(1));
  auto* partials = scratch.template take<double2>(blocks);
  auto* result = scratch.template take<double>(1);
  const auto stream = Runtime::stream(space);
  first(blocks, partials, stream);
  Runtime::check_launch("reduction");
  combine_partials<Runtime><<<1, reduce_block, 0, stream>>>(partials, blocks, result);
  Runtime::check_launch("combine_partials");
  double host = 0.0;
  Kokkos::deep_copy(space, Kokkos::View<double, Kokkos::HostSpace>(&host),
                    Kokkos::View<const double, memory_space>(result));
  space.fence();
  return host;
}

template <class Runtime>
int reduce_blocks(std::int64_t work_items) {
  const std::int64_t wanted = (work_items + reduce_block - 1) / reduce_block;
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(wanted, 8 * Runtime::multiprocessors())));
}

// impl::sum_tuned for contiguous float and double Views.
template <class Runtime, class X>
struct gpu_sum {
  static constexpr bool available = true;
  using T = typename X::non_const_value_type;
  static bool covers(const X& x) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
      return x.span_is_contiguous() && (x.extent(0) < 2 || x.stride(0) == 1) && x.extent(0) > 0;
    return false;
  }
  static double run(const typename Runtime::execution_space& space, const X& x) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const std::int64_t n = x.extent(0);
      return reduce_on_device<Runtime>(
          space, reduce_blocks<Runtime>(n / wide<T>::lanes + 1),
          [&](int blocks, double2* partials, auto stream) {
            sum_contiguous<Runtime, T><<<blocks, reduce_block, 0, stream>>>(x.data(), n, partials);
          });
    }
    return 0.0;
  }
};

// impl::integrate_tuned.
template <class Runtime>
struct gpu_integrate {
  static constexpr bool available = true;
  template <class Function>
  static double run(const typename Runtime::execution_space& space, const Function& f,
                    const impl::midpoint_grid& grid) {
    const int blocks = int(std::min<std::int64_t>(grid.n, 8 * Runtime::multiprocessors()));
    return reduce_on_device<Runtime>(space, blocks, [&](int count, double2* partials, auto stream) {
      integrate_rows<Runtime, Function><<<count, reduce_block, 0, stream>>>(f, grid, partials);
    });
  }
};

}  // namespace kernwerk::gpu_impl
