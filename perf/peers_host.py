#!/usr/bin/env python3
"""Times the host peers of kernwerk::nearest (Debian's python3-numpy and python3-sklearn) at the
sizes and on the distribution of kernwerk_bench_nearest, and writes JSON in its schema.

  python3 perf/peers_host.py --machine NAME --json FILE [--sizes 16x13] [--repeat 3]

Peers, all float64: NumPy broadcasting (the full haversine matrix, then argmin, in slices of
observations so that it fits), scikit-learn's NearestNeighbors with the haversine metric by
brute force and by ball tree (the tree's construction is timed with the queries). Each is
spot-checked against a float64 haversine brute force: the count of wrong answers in 256 goes
into the record.
"""
import json
import os

import numpy as np
from peers_common import arguments, point_sets, record, timed, wrong_of_256
from sklearn.neighbors import NearestNeighbors


def numpy_broadcast(observations, references, slice_rows=4096):
    out = np.empty(observations.shape[0], np.int64)
    lat2, lon2 = references[None, :, 0], references[None, :, 1]
    for start in range(0, observations.shape[0], slice_rows):
        o = observations[start:start + slice_rows]
        lat1, lon1 = o[:, None, 0], o[:, None, 1]
        h = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
        out[start:start + slice_rows] = np.argmin(h, axis=1)
    return out


def sklearn_nn(algorithm):
    def run(observations, references):
        model = NearestNeighbors(n_neighbors=1, metric="haversine", algorithm=algorithm, n_jobs=os.cpu_count())
        model.fit(references)
        return model.kneighbors(observations, return_distance=False)[:, 0]
    return run


def main():
    args = arguments("16x13")
    random = np.random.default_rng(2026)
    records = []
    for n, m, observations, references in point_sets(args.sizes, random):
        for name, run in (("numpy-broadcast", numpy_broadcast), ("sklearn-brute", sklearn_nn("brute")),
                          ("sklearn-balltree", sklearn_nn("ball_tree"))):
            # sklearn builds its tree inside run(): every timed call pays for it, no warm-up
            median, best, indices = timed(lambda: run(observations, references), args.repeat, warm_up=False)
            wrong = wrong_of_256(observations, references, indices, random)
            records.append(record(name, n, m, median, best, wrong))
            print(f"{name:17s} {n:9d} x {m:<6d} median {1e3 * median:10.1f} ms  wrong {wrong}/256", flush=True)
    with open(args.json, "w") as f:
        json.dump({"benchmark": "nearest", "machine": args.machine, "execution_space": "Python",
                   "metric": "haversine", "precision": "float64", "repeat": args.repeat,
                   "note": "host peers from Debian's python3-numpy and python3-sklearn", "results": records},
                  f, indent=1)


if __name__ == "__main__":
    main()
