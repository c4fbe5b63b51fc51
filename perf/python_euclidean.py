#!/usr/bin/env python3
"""Times kernwerk.nearest on Euclidean points from Python (NumPy arrays, the host) beside SciPy's
cKDTree, build and query together, as a SciPy user calls both, k = 1 and 16, on the layouts of
perf/layouts.hpp's euclidean_names() drawn alike here: uniform in the unit square or cube; a few
thousand Gaussian clusters of uneven size (spreads 1e-4 to 1e-2), both sets from them; both sets
on 3 segments with no thickness; every reference 8 times. Writes JSON in kernwerk_bench_nearest's
schema (one record per variant, layout, dimension and k).

  PYTHONPATH=build/host/python python3 perf/python_euclidean.py --machine NAME --json FILE
                                       [--sizes 1e5,1e6] [--k 1,16] [--repeat 3]
                                       [--layouts uniform,clusters,tracks,duplicates]

SciPy comes from Debian's python3-scipy (./kw does not install it: no test or ./kw bench step uses
this script). kernwerk runs with method="auto" (its report says which method ran; the record names it).
Every answer is checked against cKDTree's distances (equal to rounding: "wrong" counts the
observations whose k-th distance differs by more than 1e-12 relative).
"""
import argparse
import json

import numpy as np
from peers_common import timed
import scipy
from scipy.spatial import cKDTree

import kernwerk


def euclidean_sets(layout, n, m, dimension, random):
    """(observations, references) of a layout, as perf/layouts.hpp's make_euclidean draws them."""
    if layout == "uniform":
        return random.uniform(0, 1, (n, dimension)), random.uniform(0, 1, (m, dimension))
    if layout == "clusters":
        clusters = max(1, min(3000, m // 16))
        centres = random.uniform(0, 1, (clusters, dimension))
        spreads = 10.0 ** random.uniform(-4, -2, clusters)
        weights = 1.0 / np.arange(1, clusters + 1) ** 1.1  # the largest about a tenth
        weights /= weights.sum()

        def draw(count):
            c = random.choice(clusters, count, p=weights)
            return centres[c] + spreads[c, None] * random.standard_normal((count, dimension))
        return draw(n), draw(m)
    if layout == "tracks":
        ends = random.uniform(0, 1, (3, 2, dimension))

        def draw(count):
            segment, t = np.arange(count) % 3, random.uniform(0, 1, (count, 1))
            return ends[segment, 0] + t * (ends[segment, 1] - ends[segment, 0])
        return draw(n), draw(m)
    if layout == "duplicates":
        distinct = random.uniform(0, 1, ((m + 7) // 8, dimension))
        return random.uniform(0, 1, (n, dimension)), distinct[np.arange(m) % distinct.shape[0]]
    raise SystemExit(f"--layouts: unknown layout '{layout}'")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1e5,1e6")
    parser.add_argument("--k", default="1,16")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--layouts", default="uniform,clusters,tracks,duplicates")
    parser.add_argument("--machine", default="unnamed")
    parser.add_argument("--json", required=True)
    args = parser.parse_args()
    random = np.random.default_rng(2026)
    records = []
    for size in (int(float(s)) for s in args.sizes.split(",")):
        for layout in args.layouts.split(","):
            for dimension in (2, 3):
                observations, references = euclidean_sets(layout, size, size, dimension, random)
                for k in (int(v) for v in args.k.split(",")):
                    kw_median, kw_best, (_, kw_distances) = timed(
                        lambda: kernwerk.nearest(observations, references, k=k, metric="euclidean"),
                        args.repeat, False)
                    tree_median, tree_best, (tree_distances, _) = timed(
                        lambda: cKDTree(references).query(observations, k=k, workers=-1), args.repeat, False)
                    tree_distances = tree_distances.reshape(size, -1)
                    wrong = int(np.sum(np.abs(kw_distances[:, -1] - tree_distances[:, -1]) >
                                       1e-12 * np.maximum(tree_distances[:, -1], 1e-300)))
                    for name, median, best in ((f"kernwerk-auto-{dimension}d", kw_median, kw_best),
                                               (f"scipy-ckdtree-{dimension}d", tree_median, tree_best)):
                        records.append({"layout": layout, "variant": name, "k": k, "observations": size,
                                        "references": size, "median_seconds": median, "best_seconds": best,
                                        "pairs_per_second": size * size / median, "wrong_of_all": wrong})
                    print(f"{layout:<10} {dimension}-D {size} x {size} k {k:<2d}: kernwerk {1e3 * kw_median:9.1f} ms, "
                          f"cKDTree {1e3 * tree_median:9.1f} ms (build and query), {wrong} differ", flush=True)
    with open(args.json, "w") as f:
        json.dump({"benchmark": "euclidean-python", "machine": args.machine, "execution_space": "OpenMP",
                   "metric": "euclidean", "precision": "float64", "repeat": args.repeat,
                   "kernwerk": kernwerk.__version__, "scipy": scipy.__version__,
                   "note": "kernwerk.nearest(method auto) and cKDTree(ref).query(obs, workers=-1), each "
                           "build and query together, on the layouts of perf/layouts.hpp's euclidean_names() "
                           "(uniform, clusters, tracks, duplicates) in the unit square or cube",
                   "results": records}, f, indent=1)


if __name__ == "__main__":
    main()
