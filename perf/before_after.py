#!/usr/bin/env python3
"""A change timed against the code before it: a benchmark driver (nearest or DBSCAN) run with
the flags that restore the old behaviour ("before") and without them ("after"), or a build of the
old code (--before-bench) against the new, in turn, ROUNDS times each, so that a noisy machine's
drift falls on both alike (the order alternates: before first in odd rounds, after first in even
ones). Writes a "before-after" record (perf/results/'s schema): per row, the median of the runs'
medians and the best run each way, and the median of the rounds' own after / before ratios
(paired: a shift of the machine's speed between rounds, which a 2-core host shows, cancels in
it where it does not in the ratio of the medians).

  perf/before_after.py --bench build/host/bin/kernwerk_bench_nearest --machine NAME \\
      --args "--sizes 16x13 --variants build,indexed --k 1 --repeat 7" \\
      --before "--small-build 0" [--before-bench OLD] [--after ""] [--rounds 5] \\
      --note TEXT --json FILE
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys
import tempfile


def run(bench, args, extra):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([bench] + shlex.split(args) + shlex.split(extra) + ["--json", out.name],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.load(open(out.name))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True)
    parser.add_argument("--args", required=True, help="the driver's flags for both ways")
    parser.add_argument("--before", default="", help="the flags that restore the old code")
    parser.add_argument("--before-bench", help="a build of the old code (default: --bench)")
    parser.add_argument("--after", default="", help="the flags of the new code (default none)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--machine", required=True)
    parser.add_argument("--note", required=True)
    parser.add_argument("--json", required=True)
    options = parser.parse_args()

    runs = {"before": [], "after": []}
    header = None
    for round_number in range(options.rounds):
        for way in ("before", "after") if round_number % 2 == 0 else ("after", "before"):
            bench = options.before_bench if way == "before" and options.before_bench else options.bench
            record = run(bench, options.args + " --machine " + shlex.quote(options.machine),
                         getattr(options, way))
            header = header or record
            runs[way].append(record["results"])

    # A row is named by its fields other than the timings and the note (the nearest
    # benchmark's layout, k, variant and sizes; the DBSCAN benchmark's workload, set and size).
    timings = ("median_seconds", "best_seconds", "pairs_per_second", "note")
    rows = []
    for at, first in enumerate(runs["before"][0]):
        fields = tuple(f for f in first if f not in timings)
        row = {f: first[f] for f in fields}
        for way in ("before", "after"):
            medians = [results[at]["median_seconds"] for results in runs[way]]
            assert all(tuple(results[at][f] for f in fields) == tuple(row[f] for f in fields)
                       for results in runs[way]), "the runs' rows differ"
            row[way + "_median_seconds"] = statistics.median(medians)
            row[way + "_best_seconds"] = min(results[at]["best_seconds"] for results in runs[way])
            row[way + "_runs_median_seconds"] = medians
            if "note" in first:  # what the driver checked (neighbours, clusters, wrong samples)
                row[way + "_notes"] = [results[at]["note"] for results in runs[way]]
        row["after_over_before"] = round(row["after_median_seconds"] / row["before_median_seconds"], 3)
        row["paired_after_over_before"] = round(statistics.median(
            a / b for a, b in zip(row["after_runs_median_seconds"], row["before_runs_median_seconds"])), 3)
        rows.append(row)

    record = {"benchmark": "before-after", "machine": options.machine,
              "execution_space": header["execution_space"], "kokkos_version": header["kokkos_version"],
              "repeat": options.rounds,
              "note": options.note + " Command: perf/before_after.py --bench " + options.bench +
                      (" --before-bench " + options.before_bench if options.before_bench else "") +
                      " --args '" + options.args + "' --before '" + options.before + "' --after '" +
                      options.after + "' --rounds " + str(options.rounds) + ".",
              "results": rows}
    with open(options.json, "w") as out:
        json.dump(record, out, indent=1)
        out.write("\n")
    for row in rows:
        name = " ".join(str(v) for f, v in row.items() if not f.startswith(("before_", "after_", "paired_")))
        print("%-48s before %9.4f ms  after %9.4f ms  %.3f  paired %.3f" % (
            name, 1e3 * row["before_median_seconds"], 1e3 * row["after_median_seconds"],
            row["after_over_before"], row["paired_after_over_before"]))


if __name__ == "__main__":
    sys.exit(main())
