#pragma once
// The tuned single-precision gemm for GPUs, written once for CUDA and HIP: C = alpha A B +
// beta C with row-major A, B, C (unit column stride, any row stride). Each block of 256
// threads computes a 128 x 128 tile of C through 8-deep slices of A and B in shared memory
// (two buffers: the next slice loads while the current one multiplies); each thread keeps an
// 8 x 8 block of C in registers and forms outer products from 8 values of A and 8 of B.
// Tiles at the matrix edges load zeros past the edges and store only inside.
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>


namespace kernwerk::gpu_impl {

constexpr int gemm_block_m = 128, gemm_block_n = 128, gemm_depth = 8, gemm_per_thread = 8;
constexpr int gemm_threads = 256;

struct gemm_arguments {
  int m, n, k;
  float alpha, beta;
  const float* a;
  std::int64_t lda;
  const float* b;
  std::int64_t ldb;
  float* c;
  std::int64_t ldc;
};

// A template (of one instance), so that the header may be included by several sources.
template <class Unused = void>
__global__ void __launch_bounds__(gemm_threads) sgemm_tiles(const gemm_arguments g) {
  __shared__ float4 a_slices[2][gemm_depth][gemm_block_m / 4];  // A transposed: [k][row]
  __shared__ float4 b_slices[2][gemm_depth][gemm_block_n / 4];  // [k][column]
  const int thread = threadIdx.x;
  const int row0 = blockIdx.y * gemm_block_m, col0 = blockIdx.x * gemm_block_n;
  // This thread's rows: (thread / 16) * 4 + {0..3} and + 64; columns likewise with thread % 16.
  const int ty = thread / 16, tx = thread % 16;
  // Loading: A's slice is 128 rows x 8 deep (thread loads row thread / 2, 4 deep from
  // (thread % 2) * 4); B's is 8 deep x 128 columns (row thread / 32, 4 columns from
  // (thread % 32) * 4).
  const int a_row = thread / 2, a_k = (thread % 2) * 4;
  const int b_k = thread / 32, b_col = (thread % 32) * 4;

  float a_load[4], b_load[4];
  const auto fetch = [&](int k0) {
    const int r = row0 + a_row;
    for (int q = 0; q < 4; ++q) {
      const int kk = k0 + a_k + q;
      a_load[q] = r < g.m && kk < g.k ? g.a[r * g.lda + kk] : 0.0f;
    }
    const int kb = k0 + b_k;
    for (int q = 0; q < 4; ++q) {
      const int cc = col0 + b_col + q;
      b_load[q] = kb < g.k && cc < g.n ? g.b[kb * g.ldb + cc] : 0.0f;
    }
  };
  const auto store = [&](int buffer) {
    float* a_slice = reinterpret_cast<float*>(a_slices[buffer]);
    for (int q = 0; q < 4; ++q) a_slice[(a_k + q) * gemm_block_m + a_row] = a_load[q];
    b_slices[buffer][b_k][b_col / 4] = make_float4(b_load[0], b_load[1], b_load[2], b_load[3]);
  };

  float sum[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) sum[i][j] = 0.0f;

  fetch(0);
  store(0);
  __syncthreads();
  int buffer = 0;
  for (int k0 = 0; k0 < g.k; k0 += gemm_depth) {
    const bool more = k0 + gemm_depth < g.k;
    if (more) fetch(k0 + gemm_depth);  // global loads in flight during the products
    for (int kk = 0; kk < gemm_depth; ++kk) {
      const float4 a0 = a_slices[buffer][kk][ty], a1 = a_slices[buffer][kk][ty + 16];
      const float4 b0 = b_slices[buffer][kk][tx], b1 = b_slices[buffer][kk][tx + 16];
      const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) sum[i][j] = fmaf(a[i], b[j], sum[i][j]);
    }
    if (more) {
      store(buffer ^ 1);
      __syncthreads();
      buffer ^= 1;
    }
  }

  for (int i = 0; i < 8; ++i) {
    const int r = row0 + ty * 4 + (i % 4) + (i / 4) * 64;
    if (r >= g.m) continue;
    for (int j = 0; j < 8; ++j) {
      const int cc = col0 + tx * 4 + (j % 4) + (j / 4) * 64;
      if (cc >= g.n) continue;
      float* out = g.c + r * g.ldc + cc;
      *out = g.beta == 0.0f ? g.alpha * sum[i][j] : fmaf(g.alpha, sum[i][j], g.beta * *out);
    }
  }
}

// impl::gemm_tuned for row-major float Views on a GPU runtime.
template <class Runtime, class A, class B, class C>
struct gpu_gemm {
  static constexpr bool available = true;
  template <class V>
  static bool row_major(const V& v) {
    return v.extent(1) < 2 || v.stride(1) == 1;
  }
  static bool covers(const A& a, const B& b, const C& c) {
    if constexpr (std::is_same_v<typename C::value_type, float>) {
      const std::size_t limit = 1u << 30;
      return row_major(a) && row_major(b) && row_major(c) && a.extent(0) < limit &&
             a.extent(1) < limit && b.extent(1) < limit;
    }
    return false;
  }
  static void run(const typename Runtime::execution_space& space, double alpha, const A& a,
                  const B& b, double beta, const C& c) {
    if constexpr (std::is_same_v<typename C::value_type, float>) {
      const auto row_stride = [](const auto& v) {
        return std::int64_t(v.extent(0) < 2 ? v.extent(1) : v.stride(0));
      };
      const gemm_arguments g{int(c.extent(0)), int(c.extent(1)), int(a.extent(1)), float(alpha),
                             float(beta),      a.data(),        row_stride(a),    b.data(),
                             row_stride(b),    c.data(),        row_stride(c)};
      const dim3 grid((g.n + gemm_block_n - 1) / gemm_block_n,
                      (g.m + gemm_block_m - 1) / gemm_block_m);
      sgemm_tiles<><<<grid, gemm_threads, 0, Runtime::stream(space)>>>(g);
      Runtime::check_launch("sgemm_tiles");
    }
  }
};

}  // namespace kernwerk::gpu_impl
