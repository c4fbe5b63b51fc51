#pragma once
// Plain launches of kernwerk's Kokkos-style functors on a GPU, written once for CUDA and HIP
// (impl::launch_tuned): a grid-stride loop, and a reduction of a block's values in shared
// memory with a second one-block launch over the blocks' values in a fixed order, so that the
// result does not depend on scheduling. The functor is the kernel's argument.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

constexpr int launch_block = 256;
constexpr int reduce_launch_block = 128;    // a block's values lie in shared memory
constexpr int reduce_launch_blocks = 1024;  // at most, with a value each in the scratch

template <class Functor>
__global__ void __launch_bounds__(launch_block) for_each_index(const Functor f, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * launch_block;
  for (std::int64_t i = std::int64_t(blockIdx.x) * launch_block + threadIdx.x; i < n; i += stride)
    f(i);
}

template <class Functor, class = void>
struct has_final : std::false_type {};
template <class Functor>
struct has_final<Functor, std::void_t<decltype(std::declval<const Functor&>().final(
                              std::declval<typename Functor::value_type&>()))>> : std::true_type {};

// Joins the values of a block; thread 0 gets the block's.
template <class Functor>
__device__ void join_block(const Functor& f, typename Functor::value_type& value) {
  using value_type = typename Functor::value_type;
  static_assert(std::is_trivially_copyable_v<value_type>, "a reduction value is copied bytewise");
  static_assert(sizeof(value_type) * reduce_launch_block <= 32768, "a block's values in shared memory");
  struct alignas(value_type) slot {  // raw bytes: a value type may have constructors
    unsigned char bytes[sizeof(value_type)];
  };
  __shared__ slot slots[reduce_launch_block];
  value_type* values = reinterpret_cast<value_type*>(slots);
  values[threadIdx.x] = value;
  __syncthreads();
  for (int half = reduce_launch_block / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) f.join(values[threadIdx.x], values[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) value = values[0];
}

template <class Functor>
__global__ void __launch_bounds__(reduce_launch_block)
    reduce_blocks(const Functor f, std::int64_t n, typename Functor::value_type* block_values) {
  typename Functor::value_type value;
  f.init(value);
  const std::int64_t stride = std::int64_t(gridDim.x) * reduce_launch_block;
  for (std::int64_t i = std::int64_t(blockIdx.x) * reduce_launch_block + threadIdx.x; i < n;
       i += stride)
    f(i, value);
  join_block(f, value);
  if (threadIdx.x == 0) block_values[blockIdx.x] = value;
}

template <class Functor>
__global__ void __launch_bounds__(reduce_launch_block)
    reduce_final(const Functor f, const typename Functor::value_type* block_values, int blocks,
                 typename Functor::value_type* result) {
  typename Functor::value_type value;
  f.init(value);
  for (int b = threadIdx.x; b < blocks; b += reduce_launch_block) f.join(value, block_values[b]);
  join_block(f, value);
  if (threadIdx.x == 0) {
    if constexpr (has_final<Functor>::value) f.final(value);
    *result = value;
  }
}

template <class Runtime>
struct gpu_launch {
  static constexpr bool available = true;
  using execution_space = typename Runtime::execution_space;

  template <class Functor>
  static void run_for(const execution_space& space, std::int64_t n, const Functor& f) {
    const std::int64_t wanted = (n + launch_block - 1) / launch_block;
    const auto blocks = unsigned(std::min<std::int64_t>(wanted, 32 * Runtime::multiprocessors()));
    for_each_index<<<blocks, launch_block, 0, Runtime::stream(space)>>>(f, n);
    Runtime::check_launch("kernwerk launch_for");
  }

  template <class Value>
  static std::size_t reduce_bytes() {
    return impl::carver::bytes_for<Value>(reduce_launch_blocks);
  }

  template <class Functor>
  static void run_reduce(const execution_space& space, std::int64_t n, const Functor& f,
                         typename Functor::value_type* result, void* scratch) {
    using value_type = typename Functor::value_type;
    const std::int64_t wanted = (n + reduce_launch_block - 1) / reduce_launch_block;
    const int blocks = int(std::max<std::int64_t>(
        1, std::min<std::int64_t>({wanted, 4 * Runtime::multiprocessors(), reduce_launch_blocks})));
    auto* block_values = static_cast<value_type*>(scratch);
    const auto stream = Runtime::stream(space);
    reduce_blocks<<<blocks, reduce_launch_block, 0, stream>>>(f, n, block_values);
    Runtime::check_launch("kernwerk launch_reduce");
    reduce_final<<<1, reduce_launch_block, 0, stream>>>(f, block_values, blocks, result);
    Runtime::check_launch("kernwerk launch_reduce (blocks)");
  }
};

}  // namespace kernwerk::gpu_impl
