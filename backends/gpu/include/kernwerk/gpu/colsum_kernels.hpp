#pragma once
// The tuned GPU matmul_colsum, written once for CUDA and HIP: out = (1^T A) B in two streaming
// passes. Each pass gives every thread one column and a slice of rows (enough slices to fill
// the GPU), sums its slice in float64 with coalesced loads along the row, and adds the slice's
// sum into a float64 total per column with an atomic add.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kernwerk/impl/workspace.hpp"

namespace kernwerk::gpu_impl {

constexpr int colsum_threads = 256;

template <class T>
__global__ void __launch_bounds__(colsum_threads)
    weighted_column_sums(const T* __restrict__ m, std::int64_t rows, std::int64_t columns,
                         std::int64_t stride, std::int64_t rows_per_slice,
                         const double* __restrict__ weight, double* __restrict__ total) {
  const std::int64_t c = std::int64_t(blockIdx.x) * colsum_threads + threadIdx.x;
  if (c >= columns) return;
  const std::int64_t begin = std::int64_t(blockIdx.y) * rows_per_slice;
  const std::int64_t end = begin + rows_per_slice < rows ? begin + rows_per_slice : rows;
  double sum = 0.0;
#pragma unroll 8
  for (std::int64_t r = begin; r < end; ++r)
    sum += weight ? double(m[r * stride + c]) * weight[r] : double(m[r * stride + c]);
  atomicAdd(&total[c], sum);
}

template <class Out>
__global__ void __launch_bounds__(colsum_threads)
    store_totals(const double* __restrict__ total, std::int64_t count, Out* out, std::int64_t stride) {
  const std::int64_t k = std::int64_t(blockIdx.x) * colsum_threads + threadIdx.x;
  if (k < count) out[k * stride] = static_cast<Out>(total[k]);
}

template <class Runtime>
struct gpu_colsum {
  static constexpr bool available = true;
  template <class V>
  static bool row_major(const V& v) {
    return v.extent(1) < 2 || v.stride(1) == 1;
  }
  template <class A, class B, class Out>
  static bool covers(const A& a, const B& b, const Out&) {
    return row_major(a) && row_major(b);
  }
  template <class V>
  static std::int64_t row_stride(const V& v) {
    return std::int64_t(v.extent(0) < 2 ? v.extent(1) : v.stride(0));
  }
  template <class M>
  static void pass(const typename Runtime::execution_space& space, const M& m,
                   const double* weight, double* total) {
    const std::int64_t rows = m.extent(0), columns = m.extent(1);
    if (columns == 0 || rows == 0) return;
    const std::int64_t across = (columns + colsum_threads - 1) / colsum_threads;
    const std::int64_t wanted_blocks = 8 * std::int64_t(Runtime::multiprocessors());
    const std::int64_t slices =
        std::max<std::int64_t>(1, std::min<std::int64_t>(std::min<std::int64_t>(rows, 65535),
                                                         (wanted_blocks + across - 1) / across * 4));
    const std::int64_t rows_per_slice = (rows + slices - 1) / slices;
    const dim3 blocks(unsigned(across), unsigned((rows + rows_per_slice - 1) / rows_per_slice));
    weighted_column_sums<typename M::non_const_value_type>
        <<<blocks, colsum_threads, 0, Runtime::stream(space)>>>(
            m.data(), rows, columns, row_stride(m), rows_per_slice, weight, total);
    Runtime::check_launch("weighted_column_sums");
  }
  template <class A, class B, class Out>
  static void run(const typename Runtime::execution_space& space, const A& a, const B& b,
                  const Out& out) {
    using memory_space = typename Runtime::execution_space::memory_space;
    using scratch_type = impl::workspace<memory_space>;
    const std::size_t j = a.extent(1), k = b.extent(1);
    scratch_type scratch(scratch_type::template bytes_for<double>(j) +
                         scratch_type::template bytes_for<double>(k));
    double* const column_sums = scratch.template take<double>(j);
    double* const totals = scratch.template take<double>(k);
    const auto stream = Runtime::stream(space);
    Runtime::clear_async(column_sums, j * sizeof(double), stream);
    Runtime::clear_async(totals, k * sizeof(double), stream);
    pass(space, a, nullptr, column_sums);  // 1^T A
    pass(space, b, column_sums, totals);   // (1^T A) B
    if (k > 0) {
      store_totals<typename Out::value_type>
          <<<unsigned((k + colsum_threads - 1) / colsum_threads), colsum_threads, 0, stream>>>(
              totals, std::int64_t(k), out.data(), std::int64_t(k < 2 ? 1 : out.stride(0)));
      Runtime::check_launch("store_totals");
    }
    space.fence();  // before the workspace is released
  }
};

}  // namespace kernwerk::gpu_impl
