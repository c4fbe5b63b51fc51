#!/usr/bin/env python3
"""Predicts kernwerk::mpi::nearest from 1 to 4096 GPUs, both strategies, from measured rates.

    perf/mpi_scaling_model.py ONE_GPU.json [MEASURED.json ...] [--sizes 24x14,26x20]
                              [--gpus-per-node 8] [--markdown]

ONE_GPU.json is kernwerk_bench_mpi_nearest's record on one GPU (mpirun -np 1): its "single"
rows give the compute rates, its "links" the copy bandwidths between device memory and the
page-locked buffers. It must hold, for each method, two sizes with the same reference count
(e.g. 22x14 and 24x14, 24x20 and 26x20): their difference separates the per-observation cost
from the per-call cost (index build, launches). MEASURED.json files (any rank count) are
printed beside the predictions of their rows.

The model (seconds, n observations and m references over all P ranks, 16 bytes a point):
  replicate = checks + m/P*16/to_host + allgather(m*16) + m*16/to_device + call(m) + n/P*q(m)
  ring      = checks + P * max(call(m/P) + n/P*q(m/P) + merge, hop(m/P*16)) + staging
where call(m) and q(m) are the measured per-call and per-observation costs (q = m / rate for
the brute force), interpolated in log2 m between measured reference counts; checks and merge
are per observation, from the one-rank replicate and ring runs of the most observations;
allgather uses
the ring algorithm: (P-1)*latency + (P-1)/P*bytes/bandwidth; a hop is one shard's transfer.
Bandwidth and latency are the measured MPI figures inside a node (staged through host memory, as
on these machines, whose Open MPI is not CUDA-aware), InfiniBand NDR across nodes (400 Gb/s a
GPU, 2 us), and, as the alternative, a CUDA-aware MPI: NVLink 4 inside a node (450 GB/s one
way) and GPUDirect NDR across nodes, with no staging copies.
"""
import argparse
import json
import math

NDR_BYTES = 50e9        # InfiniBand NDR, 400 Gb/s, one port a GPU
NDR_LATENCY = 2e-6
NVLINK_BYTES = 450e9    # NVLink 4 (H100/H200), one direction
NVLINK_LATENCY = 2e-6
POINT = 16              # bytes: (lat, lon) in float64


def load(path):
    with open(path) as f:
        return json.load(f)


class rates:
    """Per-call and per-observation costs by method, from the one-GPU record's single runs."""

    def __init__(self, record):
        self.links = record["links"]
        by = {}
        singles, replicates, rings = {}, {}, {}
        for r in record["results"]:
            if r["layout"] != "uniform" or r["k"] != 1 or r["ranks"] != 1:
                continue
            key = (r["method"], r["observations"], r["references"])
            {"single": singles, "replicate": replicates, "ring": rings}[r["strategy"]][key] = r
            if r["strategy"] == "single":
                by.setdefault(r["method"], {}).setdefault(r["references"], []).append(
                    (r["observations"], r["median_seconds"]))
        self.costs = {}  # method -> sorted [(log2 m, call seconds, seconds per observation)]
        for method, per_m in by.items():
            points = []
            for m, runs in per_m.items():
                runs.sort()
                if len(runs) < 2:
                    continue
                (n0, t0), (n1, t1) = runs[0], runs[-1]
                q = max((t1 - t0) / (n1 - n0), 0.0)
                points.append((math.log2(m), max(t0 - n0 * q, 0.0), q))
            if not points:
                raise SystemExit(f"{method}: needs two sizes with one reference count in the one-GPU record")
            self.costs[method] = sorted(points)
        # Per observation, from the runs with the most observations (the steadiest): the agreed
        # checks (replicate's), and what a ring step adds to the search (merging into the running
        # k best, the final pass): the one-rank ring less the single process.
        largest = max(n for _, n, _ in singles)
        mean = lambda values: sum(values) / len(values)
        self.checks = mean([r["checks_seconds"] / r["observations"]
                            for (_, n, _), r in replicates.items() if n == largest])
        self.ring_extra = mean([max(0.0, r["median_seconds"] - singles[key]["median_seconds"]) / r["observations"]
                                for key, r in rings.items() if key in singles and key[1] == largest])

    def call_and_query(self, method, m):
        """(per-call seconds, seconds per observation) at m references."""
        points = self.costs[method]
        x = math.log2(max(m, 1))
        if method == "brute":  # the brute force: per-observation cost grows with m
            lm, call, q = min(points, key=lambda p: abs(p[0] - x))
            return call, q * m / 2 ** lm
        if x <= points[0][0] or len(points) == 1:
            lm, call, q = points[0]
            return call * min(1.0, m / 2 ** lm), q
        for (x0, c0, q0), (x1, c1, q1) in zip(points, points[1:]):
            if x <= x1:
                w = (x - x0) / (x1 - x0)
                return c0 + w * (c1 - c0), q0 + w * (q1 - q0)
        (x0, c0, q0), (x1, c1, q1) = points[-2], points[-1]
        slope_c, slope_q = (c1 - c0) / (x1 - x0), (q1 - q0) / (x1 - x0)
        return c1 + slope_c * (x - x1), q1 + slope_q * (x - x1)


def network(gpus, per_node, links, cuda_aware):
    """(bandwidth, latency) of the slowest hop among `gpus` ranks."""
    if gpus <= per_node:
        if cuda_aware:
            return NVLINK_BYTES, NVLINK_LATENCY
        return links["mpi_bytes_per_second"] or NDR_BYTES, links["mpi_latency_seconds"] or NDR_LATENCY
    return NDR_BYTES, NDR_LATENCY


def predict(r, method, strategy, n, m, p, per_node, cuda_aware):
    links = r.links
    bandwidth, latency = network(p, per_node, links, cuda_aware)
    to_host = math.inf if cuda_aware else links["to_host_bytes_per_second"]
    to_device = math.inf if cuda_aware else links["to_device_bytes_per_second"]
    checks = r.checks * n / p + (4 * math.ceil(math.log2(p)) * latency if p > 1 else 0.0)
    if strategy == "replicate":
        call, q = r.call_and_query(method, m)
        allgather = (p - 1) * latency + (p - 1) / p * m * POINT / bandwidth
        return checks + m / p * POINT / to_host + allgather + m * POINT / to_device + call + n / p * q
    shard = m / p
    call, q = r.call_and_query(method, shard)
    merge = r.ring_extra * n / p
    hop = latency + shard * POINT / bandwidth + shard * POINT / to_device if p > 1 else 0.0
    step = max(call + n / p * q + merge, hop)
    return checks + shard * POINT / to_host + shard * POINT / to_device + p * step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("one_gpu")
    parser.add_argument("measured", nargs="*")
    parser.add_argument("--sizes", default="24x14,26x20")
    parser.add_argument("--gpus-per-node", type=int, default=8)
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--mpi-bandwidth", type=float, default=0,
                        help="bytes/s between ranks of a node (default: the record's, else NDR)")
    parser.add_argument("--mpi-latency", type=float, default=0, help="seconds, with --mpi-bandwidth")
    args = parser.parse_args()
    r = rates(load(args.one_gpu))
    if args.mpi_bandwidth:
        r.links = dict(r.links, mpi_bytes_per_second=args.mpi_bandwidth,
                       mpi_latency_seconds=args.mpi_latency or NDR_LATENCY)
    measured = {}
    for path in [args.one_gpu] + args.measured:
        record = load(path)
        for row in record["results"]:
            if row["layout"] != "uniform" or row["k"] != 1 or row["strategy"] == "single":
                continue
            key = (row["method"], row["strategy"], row["observations"], row["references"], row["ranks"])
            measured[key] = row["median_seconds"]
    gpu_counts = [2 ** e for e in range(13)]
    header = ["size", "method", "strategy", "path"] + [str(p) for p in gpu_counts]
    rows = []
    for size in args.sizes.split(","):
        ln, lm = (int(v) for v in size.split("x"))
        n, m = 2 ** ln, 2 ** lm
        for method in sorted(r.costs):
            for strategy in ("replicate", "ring"):
                for cuda_aware in (False, True):
                    times = [predict(r, method, strategy, n, m, p, args.gpus_per_node, cuda_aware)
                             for p in gpu_counts]
                    rows.append([size, method, strategy, "CUDA-aware" if cuda_aware else "staged"] +
                                [f"{1e3 * t:.3g}" for t in times])
                checks = [(p, measured[(method, strategy, n, m, p)]) for p in gpu_counts
                          if (method, strategy, n, m, p) in measured]
                if checks:
                    cells = {p: f"{1e3 * t:.3g}" for p, t in checks}
                    rows.append([size, method, strategy, "measured"] + [cells.get(p, "") for p in gpu_counts])
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        print("predicted milliseconds by GPU count (uniform points, k = 1)")
        widths = [max(len(str(row[c])) for row in rows + [header]) for c in range(len(header))]
        for row in [header] + rows:
            print("  ".join(str(v).rjust(w) for v, w in zip(row, widths)))


if __name__ == "__main__":
    main()
