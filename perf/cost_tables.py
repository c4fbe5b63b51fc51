#!/usr/bin/env python3
"""Writes core/include/kernwerk/impl/nearest/cost_tables.hpp, the automatic method's cost tables,
from the size sweeps of kernwerk_bench_nearest in perf/results/ (uniform layout, variants brute
and indexed; `./kw bench` runs the sweep; a new machine's record is picked with the options):

    perf/cost_tables.py [--gpu perf/results/sweep-cuda-h200.json]
                        [--host perf/results/sweep-host-epyc-2core.json]

A table holds each method's median seconds per call for every swept log2 observations x log2
references at k = 1, 8 and 32. Cells the sweep left out past its largest measured observations
(the brute force past --max-brute-pairs, a run cut short) are extrapolated along the
observations from the two largest measured, as log-log lines; the header says how many.
"""
import argparse
import json
import math
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "core/include/kernwerk/impl/nearest/cost_tables.hpp")
KS = (1, 8, 32)
METHODS = ("brute", "indexed")


def load(path):
    record = json.load(open(path))
    cells = {}
    for r in record["results"]:
        if r["layout"] != "uniform" or r["variant"] not in METHODS or r["k"] not in KS:
            continue
        key = (r["variant"], r["k"], int(math.log2(r["observations"])), int(math.log2(r["references"])))
        cells[key] = r["median_seconds"]
    obs = sorted({key[2] for key in cells})
    refs = sorted({key[3] for key in cells})
    filled = 0
    for method in METHODS:
        for k in KS:
            for m in refs:
                known = [n for n in obs if (method, k, n, m) in cells]
                if len(known) < 2:
                    raise SystemExit(f"{path}: {method} k {k} 2^{m} references: fewer than two sizes")
                a, b = known[-2], known[-1]
                la, lb = math.log2(cells[(method, k, a, m)]), math.log2(cells[(method, k, b, m)])
                for n in obs:
                    if (method, k, n, m) not in cells:
                        if n < b:
                            raise SystemExit(f"{path}: {method} k {k} 2^{n} x 2^{m} missing inside the sweep")
                        cells[(method, k, n, m)] = 2 ** (lb + (lb - la) * (n - b) / (b - a))
                        filled += 1
    return record, cells, obs, refs, filled


def table(name, path, probe):
    record, cells, obs, refs, filled = load(path)
    if len(obs) > 8 or len(refs) > 5:
        raise SystemExit(f"{path}: at most 8 observation and 5 reference sizes")
    if probe[0] not in obs or probe[1] not in refs:
        raise SystemExit(f"{path}: the probe's cell 2^{probe[0]} x 2^{probe[1]} was not swept")

    def block(method):
        rows = []
        for k in KS:
            rows.append("     {" + ",\n      ".join(
                "{" + ", ".join(f"{cells[(method, k, n, m)]:.4g}" for m in refs) + "}" for n in obs) + "}")
        return "{\n" + ",\n".join(rows) + "}"

    listed = lambda values: ", ".join(str(v) for v in values)
    rel = os.path.relpath(path, ROOT)
    return (f"// {rel}: {record.get('machine', '?')}, {record['execution_space']}, "
            f"{len(obs)} x {len(refs)} sizes, {filled} cells extrapolated\n"
            f"inline constexpr cost_table {name}{{\n"
            f"    \"{rel}\",\n"
            f"    {len(obs)}, {{{listed(obs)}}},\n"
            f"    {len(refs)}, {{{listed(refs)}}},\n"
            f"    {{{probe[0]}, {probe[1]}}},\n"
            f"    {block('brute')},\n"
            f"    {block('indexed')}}};\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gpu", default=os.path.join(ROOT, "perf/results/sweep-cuda-h200.json"))
    parser.add_argument("--host", default=os.path.join(ROOT, "perf/results/sweep-host-epyc-2core.json"))
    args = parser.parse_args()
    text = ("#pragma once\n"
            "// Written by perf/cost_tables.py from the size sweeps in perf/results/; do not edit.\n"
            "// Seconds per call of kernwerk::nearest (uniform points, inputs in the execution space's\n"
            "// memory): [k = 1, 8, 32][log2 observations][log2 references].\n"
            "#include \"kernwerk/impl/nearest/cost_model.hpp\"\n\n"
            "namespace kernwerk::impl {\n\n"
            + table("gpu_costs", args.gpu, (16, 13)) + "\n"
            + table("host_costs", args.host, (12, 10)) + "\n"
            "}  // namespace kernwerk::impl\n")
    with open(OUT, "w") as out:
        out.write(text)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
