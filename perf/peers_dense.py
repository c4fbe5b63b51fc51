#!/usr/bin/env python3
"""Times the peers of kernwerk_bench_dense on the same sizes and writes JSON in its schema, for
perf/results_table.py.

  python3 perf/peers_dense.py --device gpu|host --machine NAME --json FILE [--repeat 5]

gpu: CuPy (cp.linalg.qr, cp.fft: cuSOLVER and cuFFT, with CuPy's plan cache) and PyTorch
(torch.linalg.qr, torch.fft), QR 4096 x 4096 float64 reduced and the complex FFTs of the full
scale. host: NumPy's np.linalg.qr and np.fft on QR 4096 x 4096 float64 and a 2^22-point
complex128 FFT (kernwerk_bench_dense --scale small). Each QR is checked by ||A - QR|| / ||A||,
each FFT by its round trip.
"""
import argparse
import json
import math
import sys

import numpy as np

from peers_common import timed, workload_record as record


def arguments():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", choices=["gpu", "host"], required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--machine", default="unnamed")
    parser.add_argument("--json", required=True)
    return parser.parse_args()


def fft_cases(device):
    """(name, shape, dtype, axes) as kernwerk_bench_dense times them."""
    if device == "host":
        return [("2^22", (1 << 22,), np.complex128, (-1,))]
    return [("2^24", (1 << 24,), np.complex64, (-1,)), ("2^24", (1 << 24,), np.complex128, (-1,)),
            ("4096x4096 plane", (4096, 4096), np.complex64, (-2, -1)),
            ("4096 lines of 4096", (4096, 4096), np.complex64, (-1,))]


def main():
    args = arguments()
    records = []
    if args.device == "gpu":
        import cupy as cp
        import torch
        sync = cp.cuda.Device().synchronize
        peers = {"cupy": (cp, lambda a: cp.linalg.qr(a, mode="reduced"), cp.fft.fftn),
                 "torch": (None, lambda a: torch.linalg.qr(a, mode="reduced"),
                           lambda x, axes: torch.fft.fftn(x, dim=axes))}
        space = "Cuda"
    else:
        sync = lambda: None
        peers = {"numpy": (np, lambda a: np.linalg.qr(a, mode="reduced"), np.fft.fftn)}
        space = "host (NumPy " + np.__version__ + ")"
    random = np.random.default_rng(5)
    n = 4096
    a_host = random.uniform(-1, 1, (n, n))
    for name, (module, qr, fftn) in peers.items():
        if name == "torch":
            a = torch.from_numpy(a_host).cuda()
            norm = lambda x: float(torch.linalg.norm(x))
        else:
            a = module.asarray(a_host)
            norm = lambda x: float(module.linalg.norm(x))

        def run_qr():
            result = qr(a)
            sync()
            return result
        median, best, (q, r) = timed(run_qr, args.repeat, True)
        residual = norm(a - q @ r) / norm(a)
        if not residual < 1e-12:
            sys.exit(f"{name} qr: ||A - QR|| / ||A|| = {residual}")
        records.append(record("qr", name, f"{n}^2 float64 reduced", median, best, 0, 8 / 3 * n ** 3,
                              f"||A-QR||/||A|| {residual:.1e}"))
        for size, shape, dtype, axes in fft_cases(args.device):
            x_host = (random.uniform(-1, 1, shape) + 1j * random.uniform(-1, 1, shape)).astype(dtype)
            if name == "torch":
                x = torch.from_numpy(x_host).cuda()
                inverse = lambda y: torch.fft.ifftn(y, dim=axes)
                error = lambda b: float(torch.linalg.norm(b - x) / torch.linalg.norm(x))
            else:
                x = module.asarray(x_host)
                inverse = lambda y: module.fft.ifftn(y, axes=axes)
                error = lambda b: float(module.linalg.norm(b - x) / module.linalg.norm(x))

            def run_fft():
                y = fftn(x, axes=axes)
                sync()
                return y
            median, best, y = timed(run_fft, args.repeat, True)
            round_trip = error(inverse(y))
            points = math.prod(shape)
            per = points if len(axes) == len(shape) else shape[-1]
            eps = np.finfo(np.float32 if dtype == np.complex64 else np.float64).eps
            if not round_trip < 50 * eps * math.log2(points):
                sys.exit(f"{name} fft {size}: round trip error {round_trip}")
            kind = "complex64" if dtype == np.complex64 else "complex128"
            records.append(record("fft", name, f"{size} {kind}", median, best, 2 * points * np.dtype(dtype).itemsize,
                                  5 * points * math.log2(per), f"round trip {round_trip:.1e}"))
    with open(args.json, "w") as f:
        json.dump({"benchmark": "dense", "machine": args.machine, "execution_space": space,
                   "repeat": args.repeat, "note": "peers of kernwerk_bench_dense", "results": records}, f, indent=1)
    for r in records:
        print(f"{r['workload']:<5} {r['variant']:<7} {r['size']:<30} {1e6 * r['median_seconds']:12.1f} us {r['note']}")


if __name__ == "__main__":
    main()
