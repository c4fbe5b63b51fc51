#!/usr/bin/env python3
"""Draws the pictures of docs/performance.md from the JSON records in perf/results/ (the same records as
results_table.py's tables):

  nearest.png    pairs per second of every variant and peer by size, per machine (log scale)
  workloads.png  each workload's fraction of its ceiling (copy bandwidth, or FP32 FMA for gemm)
  layouts.png    the brute force and the indexed method on every point layout, k = 1 and 32

  plots.py [--out DIR]   (default perf/plots)
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_table import RESULTS, ceilings_by_machine, load, power_size  # noqa: E402

SAVE = {"dpi": 110, "metadata": {"Software": None}}  # the same bytes for the same records


def by_machine(records):
    machines = {}
    for run in records:
        machines.setdefault(run["machine"], []).append(run)
    return dict(sorted(machines.items()))


OURS = ("generic", "tuned", "indexed", "brute")


def series_style(name, palette):
    """One colour per series name in every panel; peers' bars hatched."""
    if name not in palette:
        palette[name] = plt.get_cmap("tab20")(len(palette) % 20)
    ours = name.split(",")[0] in OURS
    return {"color": palette[name], "hatch": None if ours else "//", "edgecolor": "white", "linewidth": 0}


def grouped_bars(axis, groups, series, value, palette, log=True):
    """Bars of value(group, name) for every series name, side by side within each group; the
    legend below the panel."""
    width = 0.8 / max(1, len(series))
    for s, name in enumerate(series):
        xs, ys = [], []
        for g, group in enumerate(groups):
            v = value(group, name)
            if v:
                xs.append(g + (s - (len(series) - 1) / 2) * width)
                ys.append(v)
        axis.bar(xs, ys, width, label=name, **series_style(name, palette))
    axis.set_xticks(range(len(groups)))
    axis.set_xticklabels(groups, rotation=20, fontsize=8)
    if log:
        axis.set_yscale("log")
    axis.grid(axis="y", alpha=0.3)
    axis.legend(fontsize=7, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False)


def ordered(names):
    """Ours first (generic, tuned, indexed), then the peers by name."""
    return sorted(names, key=lambda n: (n.split(",")[0] not in OURS, OURS.index(n.split(",")[0])
                                        if n.split(",")[0] in OURS else 0, n))


def nearest_plot(path):
    """Device-resident calls on uniform points: ours (nearest-<space>-<machine>.json) and the
    peers' (nearest-peers-*.json); the host-memory variants have their own tables."""
    machines, palette = by_machine(load(os.path.join(RESULTS, "nearest-*.json"))), {}
    figure, axes = plt.subplots(1, len(machines), figsize=(6 * len(machines), 5.5), squeeze=False)
    for axis, (machine, of_machine) in zip(axes[0], machines.items()):
        rates = {}
        for run in of_machine:
            for r in run["results"]:
                if "host" in r["variant"]:
                    continue
                size = power_size(r["observations"], r["references"])
                rates[(size, r["variant"])] = r["pairs_per_second"]
        sizes = sorted({s for s, _ in rates}, key=lambda s: [int(p.split("^")[1]) for p in s.split(" x ")])
        grouped_bars(axis, sizes, ordered({v for _, v in rates}), lambda s, v: rates.get((s, v)), palette)
        axis.set_title(f"nearest, {machine}")
        axis.set_ylabel("pairs per second")
    figure.tight_layout()
    figure.savefig(path, **SAVE)
    plt.close(figure)


def workloads_plot(path):
    ceilings = ceilings_by_machine()
    machines = by_machine(load(os.path.join(RESULTS, "workloads-*.json")))
    figure, axes = plt.subplots(1, len(machines), figsize=(6 * len(machines), 5.5), squeeze=False)
    for axis, (machine, of_machine) in zip(axes[0], machines.items()):
        labels, fractions, peers = [], [], []
        for run in of_machine:
            ceiling = ceilings.get((machine, run["execution_space"]))
            if not ceiling:
                continue
            for r in run["results"]:
                if r["workload"] == "gemm":
                    fraction = r["flops"] / r["median_seconds"] / ceiling["fp32_flops_per_second"]
                elif r["bytes"] > 0:
                    fraction = r["bytes"] / r["median_seconds"] / ceiling["copy_bytes_per_second"]
                else:
                    continue
                labels.append(f"{r['workload']} {r['variant']} {r['size']}")
                fractions.append(100 * fraction)
                peers.append(os.path.basename(run["file"]).startswith("workloads-peers-"))
        bars = axis.barh(range(len(labels)), fractions, color="tab:blue")
        for bar, peer in zip(bars, peers):
            if peer:
                bar.set(color="tab:gray", hatch="//", edgecolor="white", linewidth=0)
        axis.set_yticks(range(len(labels)))
        axis.set_yticklabels(labels, fontsize=6)
        axis.invert_yaxis()
        axis.axvline(100, color="gray", linewidth=0.8)
        axis.set_xlabel("% of ceiling (copy bandwidth; gemm: FP32 FMA)")
        axis.set_title(f"workloads, {machine}")
        axis.grid(axis="x", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, **SAVE)
    plt.close(figure)


def layouts_plot(path):
    runs = [r for r in load(os.path.join(RESULTS, "layouts-*.json"))
            if not os.path.basename(r["file"]).startswith("layouts-peers-")]
    machines, palette = by_machine(runs), {}
    figure, axes = plt.subplots(1, len(machines), figsize=(6 * len(machines), 5), squeeze=False)
    for axis, (machine, of_machine) in zip(axes[0], machines.items()):
        times, layouts, size = {}, [], ""
        for run in of_machine:
            for r in run["results"]:
                method = r["variant"].split(" ")[0]
                method = "brute" if method in ("tuned", "generic") else method
                if method not in ("brute", "indexed") or r["k"] not in (1, 32):
                    continue
                if r["layout"] not in layouts:
                    layouts.append(r["layout"])
                size = power_size(r["observations"], r["references"])
                times[(r["layout"], f"{method}, k {r['k']}")] = 1e3 * r["median_seconds"]
        series = sorted({s for _, s in times}, key=lambda s: (int(s.split("k ")[1]), s))
        grouped_bars(axis, layouts, series, lambda layout, s: times.get((layout, s)), palette)
        axis.set_title(f"point layouts, {machine}, {size}")
        axis.set_ylabel("median (ms)")
    figure.tight_layout()
    figure.savefig(path, **SAVE)
    plt.close(figure)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(RESULTS), "plots"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name, draw in (("nearest", nearest_plot), ("workloads", workloads_plot), ("layouts", layouts_plot)):
        draw(os.path.join(args.out, f"{name}.png"))
        print(os.path.join(args.out, f"{name}.png"))


if __name__ == "__main__":
    main()
