#!/usr/bin/env python3
"""Times kernwerk.Index from Python as a time-stepping code calls it: built once over fixed
references, then queried every step with that step's few observations; beside scikit-learn's
BallTree (haversine) built and queried the same way, and kernwerk.nearest called afresh each
step. On the host (NumPy arrays). Writes JSON in kernwerk_bench_nearest's schema: per-call
medians over the steps, observations per call as n, and the builds as their own variants.

  PYTHONPATH=build/host/python python3 perf/python_index.py --machine NAME --json FILE
                                       [--references 200000] [--per-call 100] [--calls 200]
                                       [--k 1,8]

Every variant's answers over all the steps are spot-checked against a float64 haversine brute
force (wrong of 256).
"""
import argparse
import json
import time

import numpy as np
from peers_common import record, timed, uniform_sphere, wrong_of_256

import kernwerk


def per_call(run, calls):
    """Median and best seconds of run(t) over the calls, and the answers stacked."""
    times, answers = [], []
    run(0)  # warm-up
    for t in range(calls):
        start = time.perf_counter()
        answers.append(run(t))
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[0], np.concatenate(answers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--references", type=int, default=200000)
    parser.add_argument("--per-call", type=int, default=100)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--k", default="1,8")
    parser.add_argument("--machine", default="unnamed")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    from sklearn.neighbors import BallTree

    random = np.random.default_rng(2026)
    m, n, calls = args.references, args.per_call, args.calls
    references = uniform_sphere(m, random)
    steps = [uniform_sphere(n, random) for _ in range(calls)]
    observations = np.concatenate(steps)
    records = []
    median, best, _ = timed(lambda: kernwerk.Index(references), 3, False)
    records.append(record("kernwerk-index-build", 0, m, median, best, None))
    median, best, _ = timed(lambda: BallTree(references, metric="haversine"), 3, False)
    records.append(record("sklearn-balltree-build", 0, m, median, best, None))
    index, tree = kernwerk.Index(references), BallTree(references, metric="haversine")
    for k in (int(v) for v in args.k.split(",")):
        variants = [("kernwerk-index-query", lambda t: index.query(steps[t], k=k)[1]),
                    ("kernwerk-nearest", lambda t: kernwerk.nearest(steps[t], references, k=k)[0]),
                    ("sklearn-balltree-query", lambda t: tree.query(steps[t], k=k)[1])]
        for name, run in variants:
            median, best, indices = per_call(run, calls)
            wrong = wrong_of_256(observations, references, indices, random)
            records.append(record(name, n, m, median, best, wrong, k))
            print(f"{name:24s} k {k:<2d} {n} x {m} per call: median {1e3 * median:9.3f} ms  best "
                  f"{1e3 * best:9.3f} ms  wrong {wrong}/256", flush=True)
    for r in records[:2]:
        print(f"{r['variant']:24s} {m} references: median {1e3 * r['median_seconds']:9.3f} ms")
    with open(args.json, "w") as f:
        json.dump({"benchmark": "index-python", "machine": args.machine, "execution_space": "OpenMP",
                   "metric": "haversine", "precision": "float64", "kernwerk": kernwerk.__version__,
                   "note": f"{calls} calls of {n} observations against {m} fixed references, per "
                           "call; the index and the tree built once (their -build rows)",
                   "results": records}, f, indent=1)


if __name__ == "__main__":
    main()
