#!/usr/bin/env python3
"""Kernwerk's benchmark and a peer's program on the same sets, in turn, ROUNDS times each (the
order alternating round by round, so that a noisy machine's drift falls on both alike). Writes
each program's record in its own schema (perf/results/), each row's median_seconds the median of
the runs' medians and best_seconds the best of all, and prints each Kernwerk row against the
peer's row of the same workload, set and size (within_unsorted against the peer's within) with
the median of the rounds' paired ratios.

  perf/beside_peer.py --bench build/bin/kernwerk_bench_dbscan --peer build/bin/kernwerk_peer_arborx_dbscan \\
      --args "--sizes 18 --repeat 3" --rounds 6 --machine NAME \\
      --json dbscan-host-NAME.json --peer-json dbscan-peers-arborx-host-NAME.json --note TEXT --peer-note TEXT
"""
import argparse
import json
import shlex
import statistics

from before_after import run


def key(row):
    return (row["workload"], row["set"], row["size"])


def combined(runs, note):
    """The last run's record with each row's timings over every run."""
    record = dict(runs[-1])
    rows = []
    for at, last in enumerate(runs[-1]["results"]):
        assert all(key(r["results"][at]) == key(last) for r in runs), "the runs' rows differ"
        row = dict(last)
        row["median_seconds"] = statistics.median(r["results"][at]["median_seconds"] for r in runs)
        row["best_seconds"] = min(r["results"][at]["best_seconds"] for r in runs)
        rows.append(row)
    record["results"] = rows
    record["note"] = note
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag in ("--bench", "--peer", "--args", "--machine", "--json", "--peer-json", "--note", "--peer-note"):
        parser.add_argument(flag, required=True)
    parser.add_argument("--rounds", type=int, default=6)
    options = parser.parse_args()
    args = options.args + " --machine " + shlex.quote(options.machine)
    runs = {"bench": [], "peer": []}
    for round_number in range(options.rounds):
        for who in ("bench", "peer") if round_number % 2 == 0 else ("peer", "bench"):
            runs[who].append(run(getattr(options, who), args, ""))
    command = (" Command: perf/beside_peer.py --bench %s --peer %s --args %s --rounds %d."
               % (options.bench, options.peer, shlex.quote(options.args), options.rounds))
    for who, path, note in (("bench", options.json, options.note), ("peer", options.peer_json, options.peer_note)):
        with open(path, "w") as out:
            json.dump(combined(runs[who], note + command), out, indent=1)
            out.write("\n")
    for at, row in enumerate(runs["bench"][0]["results"]):
        workload = "within" if row["workload"] == "within_unsorted" else row["workload"]
        peer_at = [i for i, p in enumerate(runs["peer"][0]["results"])
                   if (p["workload"], p["set"], p["size"]) == (workload, row["set"], row["size"])]
        if not peer_at:
            continue
        ratios = [b["results"][at]["median_seconds"] / p["results"][peer_at[0]]["median_seconds"]
                  for b, p in zip(runs["bench"], runs["peer"])]
        print("%-16s %-13s %-12s kernwerk / peer: median of rounds %.3f (%.3f to %.3f)"
              % (row["workload"], row["set"], row["size"], statistics.median(ratios), min(ratios), max(ratios)))


if __name__ == "__main__":
    main()
