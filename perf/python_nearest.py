#!/usr/bin/env python3
"""Times kernwerk.nearest from Python on CuPy arrays against the course's Numba CUDA kernel and
CuPy broadcasting (perf/peers_gpu.py's), in one run on the same points, and writes JSON in
kernwerk_bench_nearest's schema (one record per variant and size) for perf/results_table.py.

  PYTHONPATH=build/cuda/python python3 perf/python_nearest.py --machine NAME --json FILE
                                       [--sizes 16x13,16x16,24x14] [--repeat N]

The peers' times include the copy of the indices to the host (the course's kernel does it);
kernwerk's are given both ways: results left on the GPU as CuPy arrays (kernwerk returns when
they are complete) and "+get", with the indices copied to a NumPy array. Each variant is
spot-checked against a float64 haversine brute force (wrong of 256).
"""
import json

import numpy as np
from peers_common import arguments, point_sets, record, timed, wrong_of_256
from peers_gpu import cp, cuda, cupy_broadcast, numba_course

import kernwerk


def main():
    args = arguments("16x13,16x16,24x14")
    random = np.random.default_rng(2026)
    records = []
    for n, m, observations, references in point_sets(args.sizes, random):
        on_device = {dtype: (cp.asarray(observations, dtype), cp.asarray(references, dtype))
                     for dtype in (cp.float32, cp.float64)}
        o32, r32 = on_device[cp.float32]
        o64, r64 = on_device[cp.float64]
        variants = []
        for name, o, r in (("f32", o32, r32), ("f64", o64, r64)):
            variants += [(f"kernwerk-python-cupy-{name}", lambda o=o, r=r: kernwerk.nearest(o, r)[0]),
                         (f"kernwerk-python-cupy-{name}+get", lambda o=o, r=r: kernwerk.nearest(o, r)[0].get())]
        numba_o, numba_r = cuda.to_device(observations.astype(np.float32)), cuda.to_device(references.astype(np.float32))
        variants.append(("numba-course", lambda: numba_course(numba_o, numba_r)))
        if n * m * 4 * 6 < 40e9:  # the broadcast's temporaries must fit
            variants.append(("cupy-broadcast", lambda: cupy_broadcast(o32, r32)))
        for name, run in variants:
            median, best, indices = timed(run, args.repeat, warm_up=True)
            wrong = wrong_of_256(observations, references, cp.asnumpy(indices), random)
            records.append(record(name, n, m, median, best, wrong))
            print(f"{name:26s} {n:9d} x {m:<6d} median {1e3 * median:10.3f} ms  wrong {wrong}/256", flush=True)
    with open(args.json, "w") as f:
        json.dump({"benchmark": "nearest-python", "machine": args.machine, "execution_space": "Cuda",
                   "metric": "haversine", "precision": "float32 unless named", "repeat": args.repeat,
                   "kernwerk": kernwerk.__version__,
                   "note": "peers and +get: times include the copy of the indices to the host", "results": records}, f, indent=1)


if __name__ == "__main__":
    main()
