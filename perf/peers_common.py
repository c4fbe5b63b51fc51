"""What the peer scripts share: their options, the points, the float64 spot check, the timing,
the records."""
import argparse
import json
import time

import numpy as np


def uniform_sphere(count, random):
    """Area-uniform (lat, lon) in radians, as kernwerk_bench_nearest draws them."""
    return np.stack([np.arcsin(random.uniform(-1, 1, count)), np.pi * random.uniform(-1, 1, count)], 1)


def point_sets(sizes, random):
    """(n, m, observations, references) for each LOGNxLOGM of sizes ("16x13,24x14"), drawn from
    random when the loop reaches them."""
    for size in sizes.split(","):
        log_n, log_m = (int(v) for v in size.split("x"))
        n, m = 1 << log_n, 1 << log_m
        yield n, m, uniform_sphere(n, random), uniform_sphere(m, random)


def wrong_of_256(observations, references, indices, random):
    """How many of 256 random observations got a neighbour farther than the float64 k-th nearest
    (indices: one per observation, or k per row)."""
    sample = random.choice(observations.shape[0], 256, replace=False)
    o = observations[sample]
    h = (np.sin((references[None, :, 0] - o[:, None, 0]) / 2) ** 2
         + np.cos(o[:, None, 0]) * np.cos(references[None, :, 0]) * np.sin((references[None, :, 1] - o[:, None, 1]) / 2) ** 2)
    found = indices[sample].reshape(256, -1)
    kth = np.partition(h, found.shape[1] - 1, axis=1)[:, found.shape[1] - 1]
    return int(np.sum(np.any(np.take_along_axis(h, found, 1) > kth[:, None], axis=1)))


def timed(run, repeat, warm_up):
    """Median and best of `repeat` runs (after one untimed run if warm_up), and the last result."""
    if warm_up:
        run()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], times[0], result


def record(name, n, m, median, best, wrong, k=1):
    return {"variant": name, "k": k, "observations": n, "references": m, "median_seconds": median,
            "best_seconds": best, "pairs_per_second": n * m / median, "wrong_of_256": wrong}


def workload_record(workload, variant, size, median, best, nbytes, flops, note=""):
    """A record in kernwerk_bench_workloads' schema."""
    return {"workload": workload, "variant": variant, "size": size, "median_seconds": median,
            "best_seconds": best, "bytes": nbytes, "flops": flops, "note": note}


def arguments(default_sizes=None, neighbours=False, groups=None):
    """--machine, --json, --repeat, --sizes LOGNxLOGM,... where the script takes sizes,
    --k K,... (neighbours per observation) where it takes those, and --only GROUP (the first of
    groups by default) where it times groups of cases."""
    parser = argparse.ArgumentParser()
    if groups:
        parser.add_argument("--only", choices=groups, default=groups[0])
    if default_sizes:
        parser.add_argument("--sizes", default=default_sizes)
    if neighbours:
        parser.add_argument("--k", default="1")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--machine", default="unnamed")
    parser.add_argument("--json", required=True)
    return parser.parse_args()


def write_workloads(args, execution_space, note, records):
    """Writes workload records in kernwerk_bench_workloads' schema and prints them."""
    with open(args.json, "w") as f:
        json.dump({"benchmark": "workloads", "machine": args.machine, "execution_space": execution_space,
                   "repeat": args.repeat, "note": note, "results": records}, f, indent=1)
    for r in records:
        print(f"{r['workload']:<16} {r['variant']:<22} {r['size']:<26} {1e6 * r['median_seconds']:12.1f} us {r['note']}")
