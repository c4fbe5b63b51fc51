#!/usr/bin/env python3
"""Times the peers of kernwerk::dbscan on the sets kernwerk_bench_dbscan saved (--save DIR) and
writes JSON in its schema (perf/results/dbscan-*.json).

  python3 perf/dbscan_peers.py --sets DIR --machine NAME --json FILE [--peers sklearn,cuml]
                               [--repeat 1] [--memory-gib 8]

Peers: scikit-learn's DBSCAN (Debian's python3-sklearn; haversine by ball tree on (lat, lon)
radians, Euclidean by its default tree, all cores), and cuML's DBSCAN on the GPU where cuML is
installed (no haversine metric: the sphere's points as unit vectors, eps as the chord
2 sin(eps / 2), the same neighbourhoods). Each set is DIR/<set>-<s>.f64 (row-major float64)
with DIR/<set>-<s>.json (metric, eps, min_samples). scikit-learn keeps every point's neighbour
list: a set whose lists would pass --memory-gib (estimated from 256 sampled points) is recorded
as not run, with the estimate. Each record notes the clusters and noise found, to set beside
kernwerk's on the same set (same eps and min_samples, same points).
"""
import argparse
import glob
import json
import os
import time

import numpy as np


def haversine_to_all(points, i):
    lat, lon = points[:, 0], points[:, 1]
    h = np.sin((lat - lat[i]) / 2) ** 2 + np.cos(lat[i]) * np.cos(lat) * np.sin((lon - lon[i]) / 2) ** 2
    return 2 * np.arcsin(np.sqrt(np.minimum(h, 1.0)))


def estimated_pairs(points, about):
    """The neighbour pairs within eps, from 256 sampled points."""
    random = np.random.default_rng(7)
    sample = random.choice(len(points), size=min(256, len(points)), replace=False)
    counts = []
    for i in sample:
        if about["metric"] == "haversine":
            d = haversine_to_all(points, i)
        else:
            d = np.sqrt(((points - points[i]) ** 2).sum(axis=1))
        counts.append(np.count_nonzero(d <= about["eps"]))
    return float(np.mean(counts)) * len(points)


def sklearn_dbscan(points, about):
    from sklearn.cluster import DBSCAN
    if about["metric"] == "haversine":
        model = DBSCAN(eps=about["eps"], min_samples=about["min_samples"], metric="haversine",
                       algorithm="ball_tree", n_jobs=-1)
    else:
        model = DBSCAN(eps=about["eps"], min_samples=about["min_samples"], n_jobs=-1)
    return model.fit(points).labels_


def cuml_dbscan(points, about):
    from cuml.cluster import DBSCAN
    eps = about["eps"]
    if about["metric"] == "haversine":
        lat, lon = points[:, 0], points[:, 1]
        points = np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
        eps = 2 * np.sin(eps / 2)
    model = DBSCAN(eps=eps, min_samples=about["min_samples"], output_type="numpy")
    return model.fit_predict(points)


PEERS = {"sklearn": ("scikit-learn", sklearn_dbscan), "cuml": ("cuML", cuml_dbscan)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", required=True, help="the folder kernwerk_bench_dbscan --save wrote")
    parser.add_argument("--machine", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--peers", default="sklearn")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--memory-gib", type=float, default=8.0)
    args = parser.parse_args()
    records = []
    peers = [p for p in args.peers.split(",") if p]
    for p in peers:
        if p not in PEERS:
            parser.error(f"--peers: {p} is not one of {', '.join(PEERS)}")
    for about_path in sorted(glob.glob(os.path.join(args.sets, "*.json"))):
        with open(about_path) as f:
            about = json.load(f)
        points = np.fromfile(about_path[:-len(".json")] + ".f64").reshape(-1, about["dimension"])
        for peer in peers:
            name, run = PEERS[peer]
            try:
                __import__({"sklearn": "sklearn.cluster", "cuml": "cuml.cluster"}[peer])
            except ImportError as missing:
                print(f"{name}: not installed ({missing})", flush=True)
                continue
            entry = {"workload": "dbscan", "set": about["set"], "size": about["size"], "peer": name}
            gib = estimated_pairs(points, about) * 8 / 2**30 if peer == "sklearn" else 0
            if gib > args.memory_gib:
                entry.update(median_seconds=None, best_seconds=None,
                             note=f"not run: its neighbour lists would take about {gib:.0f} GiB")
            else:
                times = []
                for _ in range(args.repeat):
                    start = time.perf_counter()
                    labels = run(points, about)
                    times.append(time.perf_counter() - start)
                times.sort()
                clusters = int(labels.max()) + 1 if len(labels) else 0
                noise = int(np.count_nonzero(labels == -1))
                entry.update(median_seconds=times[len(times) // 2], best_seconds=times[0],
                             note=f"eps {about['eps']:g}, min_samples {about['min_samples']}: "
                                  f"{clusters} clusters, {noise} noise")
            records.append(entry)
            shown = "-" if entry["median_seconds"] is None else f"{1e3 * entry['median_seconds']:10.1f} ms"
            print(f"{name:13s} {about['set']:13s} {about['size']:5s} {shown}  {entry['note']}", flush=True)
    if not records:
        print("no peer ran: nothing written", flush=True)
        return
    with open(args.json, "w") as f:
        json.dump({"benchmark": "dbscan", "machine": args.machine, "execution_space": "peers",
                   "repeat": args.repeat, "results": records}, f, indent=1)


if __name__ == "__main__":
    main()
