#!/usr/bin/env python3
"""Times NumPy versions of the workloads kernwerk_bench_workloads measures at --scale small and
writes JSON in its schema, for perf/results_table.py (Debian's python3-numpy).

  python3 perf/peers_workloads_host.py --machine NAME --json FILE [--repeat 3]
"""
import math

import numpy as np

from peers_common import arguments, write_workloads, timed, workload_record as record


def main():
    args = arguments()
    random = np.random.default_rng(1)
    out = []

    n, steps = 500, 200
    field = random.random((n, n), dtype=np.float32)

    def run_diffusion():
        f = field.copy()
        padded = np.zeros((n + 2, n + 2), dtype=np.float32)
        for _ in range(steps):
            padded[1:-1, 1:-1] = f
            lap = 4 * f - padded[:-2, 1:-1] - padded[2:, 1:-1] - padded[1:-1, :-2] - padded[1:-1, 2:]
            f = f - np.float32(0.25) * lap
        return f
    median, best, _ = timed(run_diffusion, args.repeat, True)
    out.append(record("diffuse", "numpy", f"{n}^2 x {steps} steps", median / steps, best / steps,
                      8 * n * n, 6 * n * n, "per step"))

    m = 4096
    h = math.pi / m
    x = h * (np.arange(m) + 0.5)

    def run_integration():
        total = 0.0
        for start in range(0, m, 256):  # rows in blocks: the full grid would not fit
            total += np.sin(x[start:start + 256, None] + x[None, :]).sum()
        return total * h * h
    median, best, value = timed(run_integration, args.repeat, True)
    out.append(record("integrate2d", "numpy", f"{m}^2 sin(x+y)", median, best, 0, float(m) ** 2,
                      f"|error| {abs(value):.2e}"))

    v = random.random(1 << 24, dtype=np.float32)
    median, best, _ = timed(lambda: v.sum(dtype=np.float64), args.repeat, True)
    out.append(record("sum", "numpy-f64-accumulate", "2^24 float32", median, best, 4.0 * (1 << 24), float(1 << 24)))
    a = random.random(10000000, dtype=np.float32)
    y = random.random(10000000, dtype=np.float32)
    median, best, _ = timed(lambda: np.float32(2.0) * a + y, args.repeat, True)
    out.append(record("saxpy", "numpy", "10000000 float32", median, best, 12.0e7, 2.0e7))

    g = 512
    ma = random.random((g, g), dtype=np.float32)
    mb = random.random((g, g), dtype=np.float32)
    median, best, _ = timed(lambda: ma @ mb, args.repeat, True)
    out.append(record("gemm", "numpy-blas", f"{g}^3 float32", median, best, 0, 2.0 * g ** 3))

    ca = random.random((1000, 500), dtype=np.float32)
    cb = random.random((500, 700), dtype=np.float32)
    nbytes, flops = 4.0 * (1000 * 500 + 500 * 700), 2.0 * (1000 * 500 + 500 * 700)
    for name, run in (("numpy-einsum", lambda: np.einsum("ij,jk->k", ca, cb, optimize="optimal")),
                      ("numpy-matmul-then-sum", lambda: (ca @ cb).sum(axis=0))):
        median, best, _ = timed(run, args.repeat, True)
        out.append(record("matmul_colsum", name, "1000x500x700", median, best, nbytes, flops))

    matrix = random.random((150, 100), dtype=np.float32)
    batch = random.random((10, 100), dtype=np.float32)
    median, best, _ = timed(lambda: batch @ matrix.T, args.repeat * 20, True)
    out.append(record("gemv_batched", "numpy", "10 x (150x100) float32", median, best,
                      4.0 * (150 * 100 + 10 * 250), 2.0 * 10 * 150 * 100))

    write_workloads(args, "Python", "peers (NumPy)", out)

if __name__ == "__main__":
    main()
