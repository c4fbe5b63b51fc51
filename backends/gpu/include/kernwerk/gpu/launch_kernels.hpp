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

#include "kernwerk/impl/launch.hpp"
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

using impl::has_final;

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

// launch_steps in one block: each step over the whole block, a barrier between steps (the
// block's global writes are seen by all of its threads after it). A reduction folds the
// threads' values into steps_slots slots a group at a time, then as a tree; a scan gives each
// thread a run of consecutive elements.
constexpr int steps_block = 512;
constexpr int steps_slots = 64;

template <class Step>
struct step_shared {
  static constexpr std::size_t bytes = 0;
};
template <class Functor>
struct step_shared<impl::reduce_step<Functor>> {
  static constexpr std::size_t bytes = sizeof(typename Functor::value_type) * steps_slots;
};
template <class Functor>
struct step_shared<impl::scan_step<Functor>> {  // a value a thread, and one a warp's group
  static constexpr std::size_t bytes =
      sizeof(typename Functor::value_type) * (steps_block + steps_block / 32);
};

template <class Functor>
__device__ void run_step(const impl::for_step<Functor>& step, unsigned char*) {
  for (std::int64_t i = threadIdx.x; i < step.n; i += steps_block) step.f(i);
  __syncthreads();
}

template <class Functor>
__device__ void run_step(const impl::reduce_step<Functor>& step, unsigned char* shared) {
  using value_type = typename Functor::value_type;
  static_assert(std::is_trivially_copyable_v<value_type>, "a reduction value is copied bytewise");
  value_type value;
  step.f.init(value);
  for (std::int64_t i = threadIdx.x; i < step.n; i += steps_block) step.f(i, value);
  value_type* slots = reinterpret_cast<value_type*>(shared);
  const int slot = int(threadIdx.x) % steps_slots;
  for (int group = steps_block / steps_slots - 1; group > 0; --group) {
    if (int(threadIdx.x) / steps_slots == group) slots[slot] = value;
    __syncthreads();
    if (int(threadIdx.x) < steps_slots) step.f.join(value, slots[slot]);
    __syncthreads();
  }
  if (int(threadIdx.x) < steps_slots) slots[slot] = value;
  __syncthreads();
  for (int half = steps_slots / 2; half > 0; half /= 2) {
    if (int(threadIdx.x) < half) step.f.join(slots[threadIdx.x], slots[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    value = slots[0];
    if constexpr (has_final<Functor>::value) step.f.final(value);
    *step.result = value;
  }
  __syncthreads();
}

template <class Functor>
__device__ void run_step(const impl::scan_step<Functor>& step, unsigned char* shared) {
  using value_type = typename Functor::value_type;
  static_assert(std::is_trivially_copyable_v<value_type>, "a scan value is copied bytewise");
  constexpr int group = 32;
  const std::int64_t run = (step.n + steps_block - 1) / steps_block;
  const std::int64_t first = std::int64_t(threadIdx.x) * run;
  const std::int64_t last = first + run < step.n ? first + run : step.n;
  value_type total;
  step.f.init(total);
  for (std::int64_t i = first; i < last; ++i) step.f(i, total, false);
  value_type* before = reinterpret_cast<value_type*>(shared);  // each thread's, then each group's
  value_type* groups = before + steps_block;
  before[threadIdx.x] = total;
  __syncthreads();
  if (int(threadIdx.x) < steps_block / group) {  // within each group of threads
    value_type running;
    step.f.init(running);
    for (int t = int(threadIdx.x) * group; t < (int(threadIdx.x) + 1) * group; ++t) {
      const value_type here = before[t];
      before[t] = running;
      step.f.join(running, here);
    }
    groups[threadIdx.x] = running;
  }
  __syncthreads();
  if (threadIdx.x == 0) {  // across the groups
    value_type running;
    step.f.init(running);
    for (int g = 0; g < steps_block / group; ++g) {
      const value_type here = groups[g];
      groups[g] = running;
      step.f.join(running, here);
    }
  }
  __syncthreads();
  value_type partial = groups[threadIdx.x / group];
  step.f.join(partial, before[threadIdx.x]);
  for (std::int64_t i = first; i < last; ++i) step.f(i, partial, true);
  __syncthreads();
}

template <class... Steps>
__global__ void __launch_bounds__(steps_block) run_steps_kernel(const Steps... steps) {
  constexpr std::size_t bytes = std::max({std::size_t(16), step_shared<Steps>::bytes...});
  static_assert(bytes <= 40960, "the steps' values in static shared memory");
  // An aligned type rather than alignas beside __shared__, which clang (HIP) refuses there.
  struct alignas(16) shared_bytes {
    unsigned char data[bytes];
  };
  __shared__ shared_bytes shared;
  (run_step(steps, shared.data), ...);
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

  template <class... Steps>
  static void run_steps(const execution_space& space, const Steps&... steps) {
    static_assert((sizeof(Steps) + ...) <= 4096, "the steps fit a kernel's arguments");
    run_steps_kernel<<<1, steps_block, 0, Runtime::stream(space)>>>(steps...);
    Runtime::check_launch("kernwerk launch_steps");
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
