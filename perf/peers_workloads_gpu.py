#!/usr/bin/env python3
"""Times the course's GPU versions of the workloads kernwerk_bench_workloads measures (full
sizes) and writes JSON in its schema, for perf/results_table.py.

  python3 perf/peers_workloads_gpu.py --machine NAME --json FILE [--repeat 3] [--only all|cg]

Peers: the course's Numba diffusion kernel (8x8 blocks, shared-memory tile, updating the field
in place as published) and its 2-D integration kernel (one thread per x, float64 sin, the
partial sums summed on the host); CuPy for the sum (float32 data, float64 accumulation),
saxpy, the float32 matrix product (cuBLAS), and the course's matmul + sum and einsum; CuPy's
cupyx.scipy.sparse.linalg.cg on the 5-point Laplacians (int32 CSR, to ||r|| <= 1e-6 ||b||, the
time per step) with cuSPARSE's product A v alone (CuPy's CSR matrix times a vector: its SpMV
with CuPy's own cost of a call, about 50 us on the H200), the course's dense CG (`cg_solve`, A.dot(p) by cuBLAS, 200 steps) on the
Kac-Murdock-Szego matrix kernwerk_bench_workloads uses, and A.dot(v) alone (cuBLAS gemv).
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


def course_workloads(out, repeat, sync):
    """Every workload but conjugate gradient."""
    n, steps = 2000, 10000
    field = cp.asarray(np.random.default_rng(3966789).random((n, n), dtype=np.float32))
    lapl = cp.zeros_like(field)
    grid = ((n + TPB - 1) // TPB, (n + TPB - 1) // TPB)

    def run_diffusion():
        for _ in range(steps):
            diffusion[grid, (TPB, TPB)](field, lapl)
        sync()
    median, best, _ = timed(run_diffusion, repeat, True)
    out.append(record("diffuse", "numba-course", f"{n}^2 x {steps} steps", median / steps, best / steps,
                      8 * n * n, 6 * n * n, "per step, in place (races)"))

    partial = cuda.device_array(N_INTEGRATE, dtype=np.float64)

    def run_integration():
        integrate_rows[(N_INTEGRATE + 127) // 128, 128](partial)
        return H * H * partial.copy_to_host().sum()
    median, best, value = timed(run_integration, repeat, True)
    out.append(record("integrate2d", "numba-course", f"{N_INTEGRATE}^2 sin(x+y)", median, best, 0,
                      float(N_INTEGRATE) ** 2, f"|error| {abs(value):.2e}"))

    x = cp.random.default_rng(3).random(1 << 28, dtype=cp.float32)

    def run_sum():
        value = x.sum(dtype=cp.float64)
        sync()
        return value
    median, best, _ = timed(run_sum, repeat, True)
    out.append(record("sum", "cupy-f64-accumulate", "2^28 float32", median, best, 4.0 * (1 << 28), float(1 << 28)))

    a = cp.random.default_rng(4).random(100000000, dtype=cp.float32)
    y = cp.random.default_rng(5).random(100000000, dtype=cp.float32)

    def run_saxpy():
        result = 2.0 * a + y
        sync()
        return result
    median, best, _ = timed(run_saxpy, repeat, True)
    out.append(record("saxpy", "cupy", "100000000 float32", median, best, 12.0e8, 2.0e8, "two kernels"))

    m = 4096
    ma = cp.random.default_rng(6).random((m, m), dtype=cp.float32)
    mb = cp.random.default_rng(7).random((m, m), dtype=cp.float32)

    def run_matmul():
        result = ma @ mb
        sync()
        return result
    median, best, _ = timed(run_matmul, repeat, True)
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
        median, best, _ = timed(run, repeat, True)
        out.append(record("matmul_colsum", name, "10000x5000x7000", median, best, colsum_bytes, colsum_flops))


def main():
    args = arguments(groups=("all", "cg"))
    sync = cp.cuda.Device().synchronize
    out = []
    if args.only == "all":
        course_workloads(out, args.repeat, sync)
    conjugate_gradients(out, args.repeat, sync)
    write_workloads(args, "Cuda", "peers (Numba, CuPy)", out)


def laplacian(g):
    """The 5-point Laplacian of a g x g grid, int32 CSR, as kernwerk_bench_workloads builds it."""
    import cupyx.scipy.sparse as sparse
    n = g * g
    index = np.arange(n).reshape(g, g)
    rows, cols, vals = [index.ravel()], [index.ravel()], [np.full(n, 4.0)]
    for di, dj in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        i0, i1 = max(0, -di), g - max(0, di)
        j0, j1 = max(0, -dj), g - max(0, dj)
        rows.append(index[i0:i1, j0:j1].ravel())
        cols.append(index[i0 + di:i1 + di, j0 + dj:j1 + dj].ravel())
        vals.append(np.full(rows[-1].size, -1.0))
    a = sparse.coo_matrix((cp.asarray(np.concatenate(vals)),
                           (cp.asarray(np.concatenate(rows)), cp.asarray(np.concatenate(cols)))),
                          shape=(n, n)).tocsr()
    a.indices = a.indices.astype(cp.int32)
    a.indptr = a.indptr.astype(cp.int32)
    return a


def cg_solve(A, b, conv_iters, max_iters):
    """The course's dense CG (its cg_solve), with a step limit."""
    x = cp.zeros_like(b)
    r = b - A.dot(x)
    p = r
    rsold = r.dot(r)
    for i in range(max_iters):
        Ap = A.dot(p)
        alpha = rsold / (p.dot(Ap))
        x = x + alpha * p
        r = r - alpha * Ap
        rsnew = r.dot(r)
        if i % conv_iters == 0 and cp.sqrt(rsnew) < 1e-10:
            break
        beta = rsnew / rsold
        p = r + beta * p
        rsold = rsnew
    return x


def conjugate_gradients(out, repeat, sync):
    from cupyx.scipy.sparse.linalg import cg
    for g in (128, 1024, 2048):
        a = laplacian(g)
        b = cp.random.default_rng(12).random(g * g) * 2 - 1
        steps = [0]

        def count(_):
            steps[0] += 1
        try:
            solve = lambda callback=None: cg(a, b, rtol=1e-6, maxiter=10 * g * g, callback=callback)
            solve(count)
        except TypeError:  # an older CuPy: tol, not rtol
            solve = lambda callback=None: cg(a, b, tol=1e-6, maxiter=10 * g * g, callback=callback)
            steps[0] = 0
            solve(count)

        def run_cg():
            x, info = solve()
            sync()
            return info
        median, best, info = timed(run_cg, repeat, False)
        nnz = int(a.nnz)
        nbytes = 4.0 * (g * g + 1) + 12.0 * nnz + 80.0 * g * g
        out.append(record("conjugate_gradient", "cupy-cg-csr", f"{g}^2 Laplacian, {steps[0]} steps",
                          median / steps[0], best / steps[0], nbytes, 0, f"per step, int32 indices, info {info}"))
        # cuSPARSE's SpMV alone, many products a timing so that launches do not decide it
        v = cp.random.default_rng(15).random(g * g)
        products = 200

        def run_spmv():
            for _ in range(products):
                y = a @ v
            sync()
            return y
        median, best, y = timed(run_spmv, repeat, True)
        spmv_bytes = 4.0 * (g * g + 1) + 12.0 * nnz + 16.0 * g * g
        out.append(record("spmv", "cupy-cusparse", f"{g}^2 Laplacian", median / products, best / products,
                          spmv_bytes, 2.0 * nnz, "A v alone: CSR arrays once, v and y once"))
    n, steps = 8192, 200
    i = cp.arange(n, dtype=cp.float64)
    a = cp.power(0.905, cp.abs(i[:, None] - i[None, :]))
    b = cp.random.default_rng(13).random(n) * 2 - 1

    def run_course():
        x = cg_solve(a, b, 25, steps)
        sync()
        return x
    median, best, _ = timed(run_course, repeat, True)
    out.append(record("conjugate_gradient", "cupy-course-dense", f"{n}^2 float64, {steps} steps",
                      median / steps, best / steps, 8.0 * n * n + 88.0 * n, 2.0 * n * n, "per step, the course's cg_solve"))
    v = cp.random.default_rng(14).random(n)

    def run_gemv():
        y = a.dot(v)
        sync()
        return y
    median, best, _ = timed(run_gemv, repeat, True)
    out.append(record("gemv", "cupy-cublas", f"{n}^2 float64", median, best, 8.0 * n * n + 16.0 * n,
                      2.0 * n * n, "A v: the bound of a dense step"))

if __name__ == "__main__":
    main()
