#pragma once
// CUDA's sort_pairs, with CUB (shipped with the toolkit): the index build's Morton sort in a
// few passes of CUB's onesweep kernels instead of the generic 8-bit passes; up to 2^16 pairs,
// tiles of 2048 sorted by a block each (CUB's block radix sort) and then merged in pairs, a
// launch a level: 3 to 6 launches where onesweep makes about 15, and each launch costs 10 to
// 25 us of host time on the H200 (perf/results/issue46-launches-cuda-h200.json's note).
// Equal keys keep their order, as in the generic sort.
#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <utility>

#include "kernwerk/cuda/runtime.hpp"
#include "kernwerk/impl/index/sort_pairs.hpp"

namespace kernwerk::cuda_impl {

constexpr int tile_threads = 256, tile_items = 8, sort_tile = tile_threads * tile_items;
constexpr std::int64_t tiled_sort_max = std::int64_t(1) << 16;

// Each block sorts a tile of `sort_tile` pairs (the last one padded with keys of all ones,
// which sort after every real key: the block sort is stable). In place is allowed.
template <class Value>
__global__ void __launch_bounds__(tile_threads)
    sort_tiles(const std::uint64_t* keys_in, const Value* values_in, std::uint64_t* keys_out,
               Value* values_out, std::int64_t n, int key_bits) {
  using block_sort = cub::BlockRadixSort<std::uint64_t, tile_threads, tile_items, Value>;
  __shared__ typename block_sort::TempStorage temporary;
  std::uint64_t keys[tile_items];
  Value values[tile_items];
  const std::int64_t first = std::int64_t(blockIdx.x) * sort_tile + threadIdx.x * tile_items;
  for (int i = 0; i < tile_items; ++i) {
    const std::int64_t e = first + i;
    keys[i] = e < n ? keys_in[e] : ~std::uint64_t(0);
    values[i] = e < n ? values_in[e] : Value();
  }
  block_sort(temporary).Sort(keys, values, 0, key_bits);
  for (int i = 0; i < tile_items; ++i) {
    const std::int64_t e = first + i;
    if (e < n) {
      keys_out[e] = keys[i];
      values_out[e] = values[i];
    }
  }
}

// Merges sorted runs of `width` pairs two by two: each pair goes to its place, found by a
// binary search in the other run (a left pair before the right run's equal keys, so that the
// merge is stable).
template <class Value>
__global__ void merge_runs(const std::uint64_t* keys_in, const Value* values_in,
                           std::uint64_t* keys_out, Value* values_out, std::int64_t n,
                           std::int64_t width) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const std::int64_t left = e / (2 * width) * (2 * width);
    const std::int64_t middle = left + width < n ? left + width : n;
    const std::int64_t end = left + 2 * width < n ? left + 2 * width : n;
    const std::uint64_t key = keys_in[e];
    const bool in_left = e < middle;
    std::int64_t low = in_left ? middle : left, high = in_left ? end : middle;
    while (low < high) {  // the other run's keys below `key` (left) or not above it (right)
      const std::int64_t probe = low + (high - low) / 2;
      const std::uint64_t other = keys_in[probe];
      if (in_left ? other < key : other <= key) low = probe + 1;
      else high = probe;
    }
    const std::int64_t place =
        in_left ? e + (low - middle) : left + (e - middle) + (low - left);
    keys_out[place] = key;
    values_out[place] = values_in[e];
  }
}

}  // namespace kernwerk::cuda_impl

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
           (n <= cuda_impl::tiled_sort_max ? 0 : carver::bytes_for<char>(temporary_bytes<Value>(n)));
  }

  template <class Value, class Scratch>
  static void run(const Kokkos::Cuda& space, std::uint64_t* keys, Value* values, std::int64_t n,
                  int key_bits, Scratch& scratch) {
    const cudaStream_t stream = space.cuda_stream();
    std::uint64_t* other_keys = scratch.template take<std::uint64_t>(n);
    Value* other_values = scratch.template take<Value>(n);
    if (n <= cuda_impl::tiled_sort_max) {
      sort_tiled(stream, keys, values, other_keys, other_values, n, key_bits);
      return;
    }
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

 private:
  // The tiles sorted, then merged level by level; the tiles go where an even number of merges
  // leaves the result in `keys`.
  template <class Value>
  static void sort_tiled(cudaStream_t stream, std::uint64_t* keys, Value* values,
                         std::uint64_t* other_keys, Value* other_values, std::int64_t n,
                         int key_bits) {
    using cuda_impl::sort_tile;
    int levels = 0;
    for (std::int64_t width = sort_tile; width < n; width *= 2) ++levels;
    std::uint64_t *from_keys = levels % 2 ? other_keys : keys, *to_keys = levels % 2 ? keys : other_keys;
    Value *from_values = levels % 2 ? other_values : values, *to_values = levels % 2 ? values : other_values;
    const auto tiles = unsigned((n + sort_tile - 1) / sort_tile);
    cuda_impl::sort_tiles<<<tiles, cuda_impl::tile_threads, 0, stream>>>(keys, values, from_keys,
                                                                          from_values, n, key_bits);
    cuda_impl::cuda_runtime::check_launch("kernwerk sort_tiles");
    for (std::int64_t width = sort_tile; width < n; width *= 2) {
      cuda_impl::merge_runs<<<unsigned((n + 255) / 256), 256, 0, stream>>>(
          from_keys, from_values, to_keys, to_values, n, width);
      cuda_impl::cuda_runtime::check_launch("kernwerk merge_runs");
      std::swap(from_keys, to_keys);
      std::swap(from_values, to_values);
    }
  }
};

}  // namespace kernwerk::impl

#endif  // KOKKOS_ENABLE_CUDA
