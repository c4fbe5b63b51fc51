#pragma once
// CUDA's vendor radix sort (CUB, shipped with the toolkit) for sort_pairs: the index build's
// Morton sort in a few passes of its onesweep kernels instead of the generic 8-bit passes.
// Equal keys keep their order, as in the generic sort.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cub/device/device_radix_sort.cuh>

#include <cstdint>

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"

namespace kernwerk::impl {

template <>
struct sort_pairs_tuned<Kokkos::Cuda> {
  static constexpr bool available = true;

  template <class Value>
  static std::size_t temporary_bytes(std::int64_t n) {
    std::size_t bytes = 0;
    cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
    cub::DoubleBuffer<Value> values(nullptr, nullptr);
    cuda_impl::cuda_runtime::check(
        cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, values, int(n), 0, 64),
        "cub::DeviceRadixSort::SortPairs (size)");
    return bytes;
  }
  template <class Value>
  static std::size_t bytes(std::int64_t n) {
    return carver::bytes_for<std::uint64_t>(n) + carver::bytes_for<Value>(n) +
           carver::bytes_for<char>(temporary_bytes<Value>(n));
  }

  template <class Value, class Scratch>
  static void run(const Kokkos::Cuda& space, std::uint64_t* keys, Value* values, std::int64_t n,
                  int key_bits, Scratch& scratch) {
    const cudaStream_t stream = space.cuda_stream();
    std::uint64_t* other_keys = scratch.template take<std::uint64_t>(n);
    Value* other_values = scratch.template take<Value>(n);
    std::size_t temporary = temporary_bytes<Value>(n);
    void* storage = scratch.template take<char>(temporary);
    cub::DoubleBuffer<std::uint64_t> key_buffers(keys, other_keys);
    cub::DoubleBuffer<Value> value_buffers(values, other_values);
    cuda_impl::cuda_runtime::check(
        cub::DeviceRadixSort::SortPairs(storage, temporary, key_buffers, value_buffers, int(n), 0,
                                        key_bits, stream),
        "cub::DeviceRadixSort::SortPairs");
    if (key_buffers.Current() != keys) {
      cuda_impl::cuda_runtime::check(
          cudaMemcpyAsync(keys, key_buffers.Current(), n * sizeof(std::uint64_t),
                          cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
      cuda_impl::cuda_runtime::check(
          cudaMemcpyAsync(values, value_buffers.Current(), n * sizeof(Value),
                          cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    }
  }
};

}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
