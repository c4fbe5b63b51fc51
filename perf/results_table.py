#!/usr/bin/env python3
"""Writes the README's benchmark table from the JSON records in perf/results/.

Each nearest-*.json (from kernwerk_bench_nearest) is matched with the ceilings-*.json of the
same machine and execution space (from kernwerk_ceilings). The fraction of the ceiling counts
8 float32 flops per pair (a squared chord: 3 subtractions, 3 multiplications, 2 additions);
the indexed method skips most pairs, so its "pairs" are the brute-force equivalent and its
fraction can pass 100%.
"""
import glob
import json
import os
import sys

FLOPS_PER_PAIR = 8
BEGIN, END = "<!-- perf:nearest:begin -->", "<!-- perf:nearest:end -->"


def load(pattern):
    records = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            record = json.load(f)
        record["file"] = os.path.relpath(path, ROOT)
        records.append(record)
    return records


def table():
    measured = load(os.path.join(RESULTS, "ceilings-*.json"))
    ceilings = {(c["machine"], c["execution_space"]): c for c in measured}
    for machine in {c["machine"] for c in measured}:  # peers outside Kokkos: the machine's only one
        of_machine = [c for c in measured if c["machine"] == machine]
        if len(of_machine) == 1:
            ceilings[(machine, "Python")] = of_machine[0]
    lines = [
        "| machine | space | variant | observations x references | median | pairs/s | of FP32 FMA ceiling | answers | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in load(os.path.join(RESULTS, "nearest-*.json")):
        ceiling = ceilings.get((run["machine"], run["execution_space"]))
        for r in run["results"]:
            pairs = r["pairs_per_second"]
            fraction = (
                f"{100 * pairs * FLOPS_PER_PAIR / ceiling['fp32_flops_per_second']:.0f}%"
                if ceiling else "not measured"
            )
            size = f"2^{r['observations'].bit_length() - 1} x 2^{r['references'].bit_length() - 1}"
            answers = f"{r['wrong_of_256']}/256 wrong" if "wrong_of_256" in r else "exact"
            lines.append(
                f"| {run['machine']} | {run['execution_space']} | {r['variant']} | {size} | "
                f"{1e3 * r['median_seconds']:.3f} ms | {pairs:.3g} | {fraction} | {answers} | `{run['file']}` |"
            )
    return "\n".join(lines)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "perf", "results")

if __name__ == "__main__":
    readme = os.path.join(ROOT, "README.md")
    text = open(readme).read()
    if BEGIN not in text or END not in text:
        sys.exit(f"results_table.py: README.md has no {BEGIN} ... {END} block")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    open(readme, "w").write(head + BEGIN + "\n" + table() + "\n" + END + tail)
