#!/usr/bin/env python3
"""Times the course's GPU versions of the workloads kernwerk_bench_workloads measures (full
sizes) and writes JSON in its schema, for perf/results_table.py.

  python3 perf/peers_workloads_gpu.py --machine NAME --json FILE [--repeat 3]

Peers: the course's Numba diffusion kernel (8x8 blocks, shared-memory tile, updating the field
in place as published) and its 2-D integration kernel (one thread per x, float64 sin, the
partial sums summed on the host); CuPy for the sum (float32 data, float64 accumulation),
saxpy, the float32 matrix product (cuBLAS), and the course's matmul + sum and einsum.
"""
import math

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda on numpy 2 expects it
    np.row_stack = np.vstack
import cupy as cp  # noqa: E402
from numba import cuda, float32  # noqa: E402

from peers_common import arguments, write_workloads, timed, workload_record as record  # noqa: E402

TPB = 8
SHASIZE = TPB + 2  # compile-time constants, as the course has them


@cuda.jit
def diffusion(field, lapl):
    x, y = cuda.grid(2)
    shared = cuda.shared.array(shape=(SHASIZE, SHASIZE), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    if tx == 0 and x > 0:
        shared[0, ty + 1] = field[x - 1, y]
    if ty == 0 and y > 0:
        shared[tx + 1, 0] = field[x, y - 1]
    if tx == TPB - 1 and x < field.shape[0] - 1:
        shared[-1, ty + 1] = field[x + 1, y]
    if ty == TPB - 1 and y < field.shape[1] - 1:
        shared[tx + 1, -1] = field[x, y + 1]
    shared[tx + 1, ty + 1] = field[x, y]
    val = 4 * shared[tx + 1, ty + 1]
    cuda.syncthreads()
    if x > 0:
        val -= shared[tx, ty + 1]
    if y > 0:
        val -= shared[tx + 1, ty]
    if x < field.shape[0] - 1:
        val -= shared[tx + 2, ty + 1]
    if y < field.shape[1] - 1:
        val -= shared[tx + 1, ty + 2]
    if x < field.shape[0] and y < field.shape[1]:
        lapl[x, y] = val
        field[x, y] -= val * 0.25


N_INTEGRATE = 100 * 1024
H = math.pi / N_INTEGRATE


@cuda.jit
def integrate_rows(partial):
    tid = cuda.threadIdx.x + cuda.blockIdx.x * cuda.blockDim.x
    if tid >= N_INTEGRATE:
        return
    total = 0.0
    x = H * (tid + 0.5)
    for j in range(N_INTEGRATE):
        total += math.sin(x + H * (j + 0.5))
    partial[tid] = total


def main():
    args = arguments()
    sync = cp.cuda.Device().synchronize
    out = []

    n, steps = 2000, 10000
    field = cp.asarray(np.random.default_rng(3966789).random((n, n), dtype=np.float32))
    lapl = cp.zeros_like(field)
    grid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)

    def run_diffusion():
        for _ in range(steps):
            diffusion[grid, (TPB, TPB)](field, lapl)
        sync()
    median, best, _ = timed(run_diffusion, args.repeat, True)
    out.append(record("diffuse", "numba-course", f"{n}^2 x {steps} steps", median / steps, best / steps,
                      8 * n * n, 6 * n * n, "per step, in place (races)"))

    partial = cuda.device_array(N_INTEGRATE, dtype=np.float64)

    def run_integration():
        integrate_rows[(N_INTEGRATE + 127) // 128, 128](partial)
        return H * H * partial.copy_to_host().sum()
    median, best, value = timed(run_integration, args.repeat, True)
    out.append(record("integrate2d", "numba-course", f"{N_INTEGRATE}^2 sin(x+y)", median, best, 0,
                      float(N_INTEGRATE) ** 2, f"|error| {abs(value):.2e}"))

    x = cp.random.default_rng(3).random(1 << 28, dtype=cp.float32)

    def run_sum():
        value = x.sum(dtype=cp.float64)
        sync()
        return value
    median, best, _ = timed(run_sum, args.repeat, True)
    out.append(record("sum", "cupy-f64-accumulate", "2^28 float32", median, best, 4.0 * (1 << 28), float(1 << 28)))

    a = cp.random.default_rng(4).random(100000000, dtype=cp.float32)
    y = cp.random.default_rng(5).random(100000000, dtype=cp.float32)

    def run_saxpy():
        result = 2.0 * a + y
        sync()
        return result
    median, best, _ = timed(run_saxpy, args.repeat, True)
    out.append(record("saxpy", "cupy", "100000000 float32", median, best, 12.0e8, 2.0e8, "two kernels"))

    m = 4096
    ma = cp.random.default_rng(6).random((m, m), dtype=cp.float32)
    mb = cp.random.default_rng(7).random((m, m), dtype=cp.float32)

    def run_matmul():
        result = ma @ mb
        sync()
        return result
    median, best, _ = timed(run_matmul, args.repeat, True)
    out.append(record("gemm", "cupy-cublas", f"{m}^3 float32", median, best, 0, 2.0 * m ** 3))

    ca = cp.random.default_rng(8).random((10000, 5000), dtype=cp.float32)
    cb = cp.random.default_rng(9).random((5000, 7000), dtype=cp.float32)

    def run_einsum():
        result = cp.einsum("ij,jk->k", ca, cb)
        sync()
        return result

    def run_matmul_sum():
        result = cp.sum(ca @ cb, axis=0)
        sync()
        return result
    colsum_bytes = 4.0 * (10000 * 5000 + 5000 * 7000)
    colsum_flops = 2.0 * (10000 * 5000 + 5000 * 7000)
    for name, run in (("cupy-einsum", run_einsum), ("cupy-matmul-then-sum", run_matmul_sum)):
        median, best, _ = timed(run, args.repeat, True)
        out.append(record("matmul_colsum", name, "10000x5000x7000", median, best, colsum_bytes, colsum_flops))

    write_workloads(args, "Cuda", "peers (Numba, CuPy)", out)

if __name__ == "__main__":
    main()
