#pragma once
// A CSR conjugate-gradient step (impl::csr_step) as plain GPU launches, written once for CUDA
// and HIP (impl::cg_step_tuned): a thread a row; the step's scalars worked out once a block
// rather than once a row; the block's sums joined through shuffles, written as the block's
// partial, and the last block to finish joins the partials in block order (the same result
// whatever the scheduling) into the step's record. Kokkos' team reduction took a launch's
// host time and a row's instructions over the step's memory traffic (Nsight Compute on the
// H200: perf/results/issue48-cuda-h200.json).
#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kernwerk/gpu/reduce_kernels.hpp"

namespace kernwerk::gpu_impl {

constexpr int cg_step_threads = reduce_block;  // block_combine's block

// A value of plain doubles (cg_sums), read through volatile: another block wrote it, and a
// multiprocessor's L1 does not see other blocks' writes.
template <class Value>
__device__ Value load_other_block(const Value* value) {
  constexpr int count = int(sizeof(Value) / sizeof(double));
  Value out;
  for (int c = 0; c < count; ++c)
    reinterpret_cast<double*>(&out)[c] = reinterpret_cast<const volatile double*>(value)[c];
  return out;
}

// The step's sums of a block: its partial, and the last block to finish joins the partials in
// block order into *target. `arrived` counts the blocks that wrote theirs (0 before the
// launch; the last block leaves it 0 again).
template <class Runtime, class Sums>
__device__ void join_partials(Sums sums, Sums* partials, unsigned* arrived, Sums* target) {
  __shared__ int last;
  sums = block_combine<Runtime>(sums);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sums;
    __threadfence();  // the partial before the count
    last = atomicAdd(arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  Sums total{};
  for (unsigned b = threadIdx.x; b < gridDim.x; b += cg_step_threads) total.add(load_other_block(partials + b));
  total = block_combine<Runtime>(total);
  if (threadIdx.x == 0) {
    *target = total;
    *arrived = 0;
  }
}

// The step's scalars, worked out once a block; false where the run has stopped.
template <class Step>
__device__ bool block_scalars(const Step& s, double& alpha, double& beta) {
  __shared__ double shared_alpha, shared_beta;
  __shared__ int go;
  if (threadIdx.x == 0) {
    const auto scalars = s.record.begin(s.k, blockIdx.x == 0);
    shared_alpha = scalars.alpha;
    shared_beta = scalars.beta;
    go = scalars.go;  // the same in every block: the test reads what the step before left
  }
  __syncthreads();
  alpha = shared_alpha;
  beta = shared_beta;
  return go;
}

// Step s.k over rows [0, n) in one launch.
template <class Runtime, class Step, class Sums>
__global__ void __launch_bounds__(cg_step_threads)
    cg_csr_step(const Step s, std::int64_t n, Sums* partials, unsigned* arrived, Sums* target) {
  double alpha, beta;
  if (!block_scalars(s, alpha, beta)) return;
  const std::int64_t i = std::int64_t(blockIdx.x) * cg_step_threads + threadIdx.x;
  Sums sums{};
  if (i < n) s.row(i, alpha, beta, sums);
  join_partials<Runtime>(sums, partials, arrived, target);
}

template <class Runtime>
struct gpu_cg_step {
  static constexpr bool available = true;
  // The blocks of a step over n rows (a partial each).
  static std::int64_t blocks(std::int64_t n) { return (n + cg_step_threads - 1) / cg_step_threads; }
  template <class Step, class Sums>
  static void run(const typename Runtime::execution_space& space, const Step& step, std::int64_t n,
                  Sums* partials, unsigned* arrived, Sums* target) {
    // (Two launches, the updates streamed and then a product gathering only the new residuals,
    // lost on every Laplacian: perf/results/issue48-cg-split-cuda-h100.json.)
    cg_csr_step<Runtime><<<unsigned(blocks(n)), cg_step_threads, 0, Runtime::stream(space)>>>(
        step, n, partials, arrived, target);
    Runtime::check_launch("kernwerk cg step");
  }
};

}  // namespace kernwerk::gpu_impl
