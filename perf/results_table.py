#!/usr/bin/env python3
"""Writes the benchmark tables of docs/performance.md, and the README's headline table, from the
JSON records in perf/results/.

Each nearest-*.json (from kernwerk_bench_nearest) is matched with the ceilings-*.json of the
same machine and execution space (from kernwerk_ceilings). The fraction of the ceiling counts
8 float32 flops per pair (a squared chord: 3 subtractions, 3 multiplications, 2 additions);
the indexed method skips most pairs, so its "pairs" are the brute-force equivalent and its
fraction can pass 100%.

Each workloads-*.json (kernwerk_bench_workloads, peers_workloads_gpu.py) gives per record the
fewest bytes the call must move and the flops it does: memory-bound workloads show the fraction
of the measured copy bandwidth, gemm the fraction of the FP32 FMA ceiling.
"""
import glob
import json
import os
import sys

FLOPS_PER_PAIR = 8
BLOCKS = {"nearest": ("<!-- perf:nearest:begin -->", "<!-- perf:nearest:end -->"),
          "layouts": ("<!-- perf:layouts:begin -->", "<!-- perf:layouts:end -->"),
          "sweep": ("<!-- perf:sweep:begin -->", "<!-- perf:sweep:end -->"),
          "workloads": ("<!-- perf:workloads:begin -->", "<!-- perf:workloads:end -->"),
          "mpi": ("<!-- perf:mpi:begin -->", "<!-- perf:mpi:end -->"),
          "calls": ("<!-- perf:calls:begin -->", "<!-- perf:calls:end -->"),
          "knn": ("<!-- perf:knn:begin -->", "<!-- perf:knn:end -->"),
          "euclidean": ("<!-- perf:euclidean:begin -->", "<!-- perf:euclidean:end -->"),
          "python": ("<!-- perf:python:begin -->", "<!-- perf:python:end -->"),
          "dbscan": ("<!-- perf:dbscan:begin -->", "<!-- perf:dbscan:end -->"),
          "dense": ("<!-- perf:dense:begin -->", "<!-- perf:dense:end -->"),
          "kokkos": ("<!-- perf:kokkos:begin -->", "<!-- perf:kokkos:end -->"),
          "headline": ("<!-- perf:headline:begin -->", "<!-- perf:headline:end -->")}

# The README's headline: the largest course case on the GPU and the small one on the host, ours
# beside the peers (file, variant, observations x references), at most ten rows.
HEADLINE = [("nearest-cuda-h200.json", "tuned", "2^24 x 2^14"),
            ("nearest-cuda-h200.json", "indexed", "2^24 x 2^14"),
            ("nearest-peers-arborx-cuda-h200.json", "arborx-1.2-bvh", "2^24 x 2^14"),
            ("nearest-peers-cuda-h200.json", "torch-f32", "2^24 x 2^14"),
            ("nearest-peers-cuda-h200.json", "numba-course", "2^24 x 2^14"),
            ("nearest-host-epyc-2core.json", "indexed", "2^16 x 2^13"),
            ("nearest-host-epyc-2core.json", "tuned", "2^16 x 2^13"),
            ("nearest-peers-arborx-host-epyc-2core.json", "arborx-1.2-bvh", "2^16 x 2^13"),
            ("nearest-peers-host-epyc-2core.json", "sklearn-balltree", "2^16 x 2^13")]


def load(pattern):
    records = []
    for path in sorted(glob.glob(pattern)):
        with open(path) as f:
            record = json.load(f)
        record["file"] = os.path.relpath(path, ROOT)
        records.append(record)
    return records


def ceilings_by_machine():
    measured = load(os.path.join(RESULTS, "ceilings-*.json"))
    ceilings = {(c["machine"], c["execution_space"]): c for c in measured}
    for machine in {c["machine"] for c in measured}:  # peers outside Kokkos: the machine's only one
        of_machine = [c for c in measured if c["machine"] == machine]
        if len(of_machine) == 1:
            ceilings[(machine, "Python")] = of_machine[0]
    return ceilings


def power_size(n, m):
    """observations x references as powers of two."""
    return f"2^{n.bit_length() - 1} x 2^{m.bit_length() - 1}"


def time_shown(seconds):
    """A time in us below a millisecond, else in ms."""
    return f"{1e6 * seconds:.2f} us" if seconds < 1e-3 else f"{1e3 * seconds:.3f} ms"


def median_shown(r):
    """A record's median in ms, or - where there is none."""
    return f"{1e3 * r['median_seconds']:.3f} ms" if r else "-"


def answers_shown(r):
    """A peer's wrong neighbours of 256 checked, or exact (ours are checked before they are timed)."""
    return f"{r['wrong_of_256']}/256 wrong" if "wrong_of_256" in r else "exact"


def nearest_table():
    ceilings = ceilings_by_machine()
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
            size = power_size(r["observations"], r["references"])
            lines.append(
                f"| {run['machine']} | {run['execution_space']} | {r['variant']} | {size} | "
                f"{1e3 * r['median_seconds']:.3f} ms | {pairs:.3g} | {fraction} | {answers_shown(r)} | `{run['file']}` |"
            )
    return "\n".join(lines)


def headline_table():
    lines = [
        "| machine | space | variant | observations x references | median | answers | record |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    runs = {os.path.basename(run["file"]): run for run in load(os.path.join(RESULTS, "nearest-*.json"))}
    for file, variant, size in HEADLINE:
        run = runs.get(file, {"results": []})
        r = next((r for r in run["results"] if r["variant"] == variant
                  and power_size(r["observations"], r["references"]) == size), None)
        if r is None:
            sys.exit(f"results_table.py: the headline's {variant} {size} is not in perf/results/{file}")
        lines.append(f"| {run['machine']} | {run['execution_space']} | {variant} | {size} | "
                     f"{time_shown(r['median_seconds'])} | {answers_shown(r)} | `{run['file']}` |")
    return "\n".join(lines)


def layouts_table():
    """Per layout, size and k: the brute force, the indexed method and auto side by side, whether
    auto kept within 1.25 times the faster of the two (the automatic method's rule), and the
    peer's BVH on the same machine (layouts-peers-*.json) with its wrong answers of 256."""
    lines = [
        "| machine | space | layout | observations x references | k | brute | indexed | auto (ran) | auto / faster | ArborX (wrong of 256) | indexed / ArborX | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    peers = {}
    for run in load(os.path.join(RESULTS, "layouts-peers-*.json")):
        for r in run["results"]:
            peers[(run["machine"], r["layout"], r["observations"], r["references"], r["k"])] = r
    for run in load(os.path.join(RESULTS, "layouts-*.json")):
        if os.path.basename(run["file"]).startswith("layouts-peers-"):
            continue
        cases = {}
        for r in run["results"]:
            key = (r["layout"], r["observations"], r["references"], r["k"])
            cases.setdefault(key, {})[r["variant"]] = r
        for (layout, n, m, k), by_variant in cases.items():
            def pick(prefix):
                return next((r for name, r in by_variant.items() if name.split(" ")[0] == prefix), None)
            brute = pick("tuned") or pick("brute") or pick("generic")
            indexed, automatic = pick("indexed"), pick("auto")
            peer = peers.get((run["machine"], layout, n, m, k))
            ratio = "-"
            if brute and indexed and automatic:
                faster = min(brute["median_seconds"], indexed["median_seconds"])
                value = automatic["median_seconds"] / faster
                ratio = f"{value:.2f}" + ("" if value <= 1.25 else " **over 1.25**")
            versus = "-"
            if peer and indexed:
                value = indexed["median_seconds"] / peer["median_seconds"]
                versus = f"{value:.2f}" + ("" if value <= 1.0 else " **slower**")
            peer_shown = f"{median_shown(peer)} ({peer['wrong_of_256']})" if peer else "-"
            ran = automatic["variant"].split("(ran ")[-1].rstrip(")") if automatic else ""
            size = power_size(n, m)
            lines.append(
                f"| {run['machine']} | {run['execution_space']} | {layout} | {size} | {k} | {median_shown(brute)} | "
                f"{median_shown(indexed)} | {median_shown(automatic)}{f' ({ran})' if ran else ''} | {ratio} | "
                f"{peer_shown} | {versus} | `{run['file']}` |"
            )
    return "\n".join(lines)


def sweep_table():
    """The size sweeps (sweep-MACHINE.json: brute force, indexed, and auto by the rule of the
    build that ran them) beside the cost model's auto (sweep-auto-MACHINE.json, a later build):
    per machine and k, a row per observations and a column per references, each cell the faster
    method (b or i) and its time, then auto over the faster, before and with the cost model
    (where the methods were not timed: auto's time and the method it ran)."""
    lines = []
    for run in load(os.path.join(RESULTS, "sweep-*.json")):
        name = os.path.basename(run["file"])
        if name.startswith("sweep-auto-"):
            continue
        later = os.path.join(RESULTS, "sweep-auto-" + name[len("sweep-"):])
        now = load(later)[0] if os.path.exists(later) else {"results": [], "file": "-"}
        cells = {}
        for r in run["results"]:
            if r["layout"] != "uniform":
                continue
            variant = r["variant"].split(" ")[0]
            cells.setdefault((r["k"], r["observations"], r["references"]), {})[variant] = r["median_seconds"]
        for r in now["results"]:
            if r["layout"] == "uniform" and r["variant"].startswith("auto"):
                cell = cells.setdefault((r["k"], r["observations"], r["references"]), {})
                cell["model"] = r["median_seconds"]
                cell["model ran"] = r["variant"].split("(ran ")[-1][0]
        observations = sorted({key[1] for key in cells})
        references = sorted({key[2] for key in cells})
        for k in sorted({key[0] for key in cells}):
            lines.append(f"\n{run['machine']} ({run['execution_space']}), k = {k}: the faster method (b brute "
                         f"force, i indexed) and its time; auto over it, before / with the cost model "
                         f"(`{run['file']}`, `{now['file']}`)\n")
            lines.append("| observations | " + " | ".join(f"2^{m.bit_length() - 1} references" for m in references) + " |")
            lines.append("| --- |" + " --- |" * len(references))
            for n in observations:
                row = [f"2^{n.bit_length() - 1}"]
                for m in references:
                    c = cells.get((k, n, m), {})
                    timed = [(c[v], v[0]) for v in ("brute", "indexed") if v in c]
                    if not timed:  # (auto alone: its time, and the method it ran)
                        row.append(f"auto {c['model ran']} {time_shown(c['model'])}" if "model" in c else "-")
                        continue
                    faster, which = min(timed)
                    ratio = lambda v: f"{c[v] / faster:.2f}" if v in c and len(timed) == 2 else "-"
                    row.append(f"{which} {time_shown(faster)}; {ratio('auto')} / {ratio('model')}")
                lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines).strip()


def workloads_table():
    ceilings = ceilings_by_machine()
    lines = [
        "| machine | space | workload | variant | size | median | of ceiling | note | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in load(os.path.join(RESULTS, "workloads-*.json")):
        ceiling = ceilings.get((run["machine"], run["execution_space"]))
        for r in run["results"]:
            fraction = "not measured"
            if ceiling and r["workload"] == "gemm":
                fraction = f"{100 * r['flops'] / r['median_seconds'] / ceiling['fp32_flops_per_second']:.0f}% FP32 FMA"
            elif ceiling and r["bytes"] > 0:
                fraction = f"{100 * r['bytes'] / r['median_seconds'] / ceiling['copy_bytes_per_second']:.0f}% copy"
            elif r["workload"] == "integrate2d":
                fraction = f"{r['flops'] / r['median_seconds']:.3g} points/s"
            lines.append(
                f"| {run['machine']} | {run['execution_space']} | {r['workload']} | {r['variant']} | {r['size']} | "
                f"{time_shown(r['median_seconds'])} | {fraction} | {r['note'].replace('|', '&#124;')} | `{run['file']}` |"
            )
    return "\n".join(lines)


def mpi_table():
    """kernwerk::mpi::nearest records (mpi-nearest-*.json, perf/mpi_record.sh): the slowest
    rank's median and its split; "single" is kernwerk::nearest in one process."""
    lines = [
        "| machine | GPUs (ranks) | observations x references | method | strategy | median | checks | staging | exchange | compute | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    ms = lambda seconds: f"{1e3 * seconds:.3f} ms" if seconds < 10 else f"{seconds:.2f} s"
    for run in load(os.path.join(RESULTS, "mpi-nearest-*.json")):
        for r in run["results"]:
            size = power_size(r["observations"], r["references"])
            lines.append(
                f"| {run['machine']} | {r['ranks']} | {size} | {r['method']} | {r['strategy']} | {ms(r['median_seconds'])} | "
                f"{ms(r['checks_seconds'])} | {ms(r['staging_seconds'])} | {ms(r['exchange_seconds'])} | "
                f"{ms(r['compute_seconds'])} | `{run['file']}` |")
    return "\n".join(lines)


def calls_table():
    """Repeated calls (calls-*.json, kernwerk_bench_calls): every call of a row timed on its own;
    from host memory, the target is 1.5 x (the median device-resident call + the call's bytes at
    the measured page-locked copy rates)."""
    lines = [
        "| machine | observations x references | method | inputs | median | best | worst | median / best | target | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in load(os.path.join(RESULTS, "calls-*.json")):
        for r in run["results"]:
            calls = r["call_seconds"]
            target = f"{1e3 * r['target_seconds']:.3f} ms" if "target_seconds" in r else ""
            lines.append(
                f"| {run['machine']} | {r['observations']} x {r['references']} | {r['method']} | {r['inputs']} | "
                f"{1e3 * r['median_seconds']:.3f} ms | {1e3 * r['best_seconds']:.3f} ms | {1e3 * max(calls):.3f} ms | "
                f"{r['median_seconds'] / r['best_seconds']:.2f} | {target} | `{run['file']}` |")
    return "\n".join(lines)


def knn_table():
    """The k nearest on uniform points (knn-*.json from kernwerk_bench_nearest --k, and the
    PyTorch topk peers from peers_gpu.py --k in knn-peers-*.json): per machine, size and k, our
    variants and the peers side by side; tuned / k 1: the tuned time against its own k = 1 time
    on the same sets, where the record has it (the cost per pair of the longer list)."""
    lines = [
        "| machine | observations x references | k | generic | tuned | indexed | tuned / generic | tuned / k 1 | torch topk f32 (wrong of 256) | torch topk f64 (wrong of 256) | records |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    peers, files = {}, {}
    for run in load(os.path.join(RESULTS, "knn-peers-*.json")):
        for r in run["results"]:
            peers[(run["machine"], r["observations"], r["references"], r["k"], r["variant"])] = r
        files[run["machine"]] = run["file"]
    for run in load(os.path.join(RESULTS, "knn-*.json")):
        if run["file"] in files.values():
            continue
        cases = {}
        for r in run["results"]:
            cases.setdefault((r["observations"], r["references"], r["k"]), {})[r["variant"]] = r
        for (n, m, k), by_variant in cases.items():
            def peer(name):
                r = peers.get((run["machine"], n, m, k, name))
                return f"{median_shown(r)} ({r['wrong_of_256']})" if r else "-"
            generic, tuned = by_variant.get("generic"), by_variant.get("tuned")
            ratio = f"{tuned['median_seconds'] / generic['median_seconds']:.3f}" if generic and tuned else "-"
            first = cases.get((n, m, 1), {}).get("tuned")
            per_k1 = f"{tuned['median_seconds'] / first['median_seconds']:.2f}" if tuned and first else "-"
            size = power_size(n, m)
            sources = f"`{run['file']}`" + (f", `{files[run['machine']]}`" if run["machine"] in files else "")
            lines.append(
                f"| {run['machine']} | {size} | {k} | {median_shown(generic)} | {median_shown(tuned)} | "
                f"{median_shown(by_variant.get('indexed'))} | {ratio} | {per_k1} | {peer('torch-topk-f32')} | {peer('torch-topk-f64')} | {sources} |")
    return "\n".join(lines)


def euclidean_table():
    """The Euclidean metric per layout, dimension, size and k (euclidean-*.json from
    kernwerk_bench_nearest --metric euclidean): the index built and queried in each call, a kept
    index's queries, its build and auto, beside ArborX's BVH of float32 and float64 points on the
    same machine (euclidean-peers-arborx-*.json) with its answers of 256 checked: in brackets the
    farther neighbours returned, then those that differ from the float64 brute force by index only
    (another of equal distance, where ties go to the smallest index)."""
    lines = [
        "| machine | layout | dim | observations x references | k | indexed | kept index | build | auto | ArborX f32 (wrong) | ArborX f64 (wrong) | indexed / ArborX f32 | indexed / ArborX f64 | records |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    peers, peer_files = {}, {}
    for run in load(os.path.join(RESULTS, "euclidean-peers-*.json")):
        peer_files[run["machine"]] = run["file"]
        for r in run["results"]:
            precision = r["variant"].rsplit("-", 1)[-1]
            peers[(run["machine"], r["layout"], r["dimension"], r["observations"], r["references"], r["k"],
                   precision)] = r
    for run in load(os.path.join(RESULTS, "euclidean-*.json")):
        if os.path.basename(run["file"]).startswith("euclidean-peers-"):
            continue
        cases = {}
        for r in run["results"]:
            key = (r["layout"], r["dimension"], r["observations"], r["references"], r["k"])
            cases.setdefault(key, {})[r["variant"].split(" ")[0]] = r
        for (layout, dimension, n, m, k), by_variant in cases.items():
            indexed = by_variant.get("indexed")
            cells, ratios = [], []
            for precision in ("f32", "f64"):
                peer = peers.get((run["machine"], layout, dimension, n, m, k, precision))
                if peer:
                    cells.append(f"{median_shown(peer)} ({peer['wrong_distance_of_256']}; "
                                 f"{peer['wrong_of_256'] - peer['wrong_distance_of_256']})")
                else:
                    cells.append("-")
                if peer and indexed:
                    value = indexed["median_seconds"] / peer["median_seconds"]
                    ratios.append(f"{value:.2f}" + ("" if value <= 1.0 else " **slower**"))
                else:
                    ratios.append("-")
            peer_shown = any(cell != "-" for cell in cells)
            sources = f"`{run['file']}`" + (f", `{peer_files[run['machine']]}`" if peer_shown else "")
            lines.append(
                f"| {run['machine']} | {layout} | {dimension} | {power_size(n, m)} | {k} | {median_shown(indexed)} | "
                f"{median_shown(by_variant.get('index'))} | {median_shown(by_variant.get('build'))} | "
                f"{median_shown(by_variant.get('auto'))} | {' | '.join(cells)} | {' | '.join(ratios)} | {sources} |")
    return "\n".join(lines)


def python_table():
    """kernwerk.nearest from Python on CuPy arrays beside the course's Numba kernel and CuPy in
    one run (python-nearest-*.json, perf/python_nearest.py): kernwerk with its results left on
    the GPU and with the indices copied to the host ("+get"), as the peers' times include."""
    columns = ["kernwerk-python-cupy-f32", "kernwerk-python-cupy-f32+get", "kernwerk-python-cupy-f64",
               "kernwerk-python-cupy-f64+get", "numba-course", "cupy-broadcast"]
    lines = [
        "| machine | observations x references | kernwerk f32 | f32 +get | kernwerk f64 | f64 +get | Numba (course) | CuPy broadcast | record |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for run in load(os.path.join(RESULTS, "python-nearest-*.json")):
        cases = {}
        for r in run["results"]:
            cases.setdefault((r["observations"], r["references"]), {})[r["variant"]] = r
        for (n, m), by_variant in cases.items():
            cells = [f"{median_shown(by_variant[c])} ({by_variant[c]['wrong_of_256']})" if c in by_variant else "-"
                     for c in columns]
            lines.append(f"| {run['machine']} | {power_size(n, m)} | {' | '.join(cells)} | `{run['file']}` |")
    return "\n".join(lines)


def dbscan_table():
    """Radius search and DBSCAN (dbscan-*.json from kernwerk_bench_dbscan) beside the peers run on
    the same sets (dbscan-peers-*.json: perf/dbscan_peers.py, and kernwerk_peer_arborx_dbscan for
    ArborX, which also times the radius searches), matched by machine, workload, set and size. A
    peer that was not run shows why."""
    columns = ["scikit-learn", "cuML", "ArborX"]
    lines = [
        "| machine | space | workload | set | size | kernwerk | scikit-learn | cuML | ArborX | kernwerk's answer | records |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    peers, files = {}, {}
    for run in load(os.path.join(RESULTS, "dbscan-peers-*.json")):
        for r in run["results"]:
            column = "ArborX" if r["peer"].startswith("ArborX") else r["peer"]
            peers[(run["machine"], r["workload"], r["set"], r["size"], column)] = r
            files.setdefault(run["machine"], []).append(run["file"])
    for run in load(os.path.join(RESULTS, "dbscan-*.json")):
        if "dbscan-peers-" in run["file"]:
            continue
        for r in run["results"]:
            def peer(name):
                # ArborX's radius search returns the unsorted set: its row is within's
                workload = "within" if r["workload"] == "within_unsorted" else r["workload"]
                found = peers.get((run["machine"], workload, r["set"], r["size"], name))
                if not found:
                    return "-"
                return median_shown(found) if found["median_seconds"] is not None else found["note"]
            sources = ", ".join(f"`{f}`" for f in [run["file"]] + sorted(set(files.get(run["machine"], []))))
            lines.append(f"| {run['machine']} | {run['execution_space']} | {r['workload']} | {r['set']} | {r['size']} | "
                         f"{median_shown(r)} | {' | '.join(peer(c) for c in columns)} | {r['note']} | {sources} |")
    return "\n".join(lines)


def dense_table():
    """QR and FFT (dense-*.json, kernwerk_bench_dense) beside their peers of the same machine and
    size (dense-peers-*.json, perf/peers_dense.py); transforms with their share of the machine's
    copy bandwidth (ceilings-*.json)."""
    names = {"cupy": "CuPy", "torch": "PyTorch", "numpy": "NumPy"}
    peers, files = {}, {}
    for run in load(os.path.join(RESULTS, "dense-peers-*.json")):
        for r in run["results"]:
            peers.setdefault((run["machine"], r["workload"], r["size"]), {})[r["variant"]] = r
            files.setdefault(run["machine"], set()).add(run["file"])
    columns = [c for c in names if any(c in found for found in peers.values())]
    lines = [
        "| machine | workload | size | kernwerk variant | kernwerk | " + " | ".join(names[c] for c in columns) +
        " | note | records |",
        "| --- | --- | --- | --- | --- | " + " | ".join("---" for _ in columns) + " | --- | --- |",
    ]
    ceilings = ceilings_by_machine()
    for run in load(os.path.join(RESULTS, "dense-*.json")):
        if "dense-peers-" in run["file"]:
            continue
        ceiling = ceilings.get((run["machine"], run["execution_space"]))

        def timed(r):
            """The median, and for a transform the share of the machine's copy bandwidth that
            reading its input and writing its output once at that speed would take."""
            if not (ceiling and r["bytes"] > 0):
                return median_shown(r)
            return f"{median_shown(r)} ({100 * r['bytes'] / r['median_seconds'] / ceiling['copy_bytes_per_second']:.0f}%)"
        for r in run["results"]:
            found = peers.get((run["machine"], r["workload"], r["size"]), {})
            shown = [timed(found[c]) if c in found else "-" for c in columns]
            sources = ", ".join(f"`{f}`" for f in [run["file"]] + sorted(files.get(run["machine"], [])))
            lines.append(f"| {run['machine']} | {r['workload']} | {r['size']} | {r['variant']} | {timed(r)} | "
                         f"{' | '.join(shown)} | {r['note'].replace('|', '&#124;')} | {sources} |")
    return "\n".join(lines)


def kokkos_version(record):
    v = record["kokkos_version"]
    return f"{v // 10000}.{v // 100 % 100}.{v % 100:02d}"


def kokkos_table():
    """Each record of a machine named <machine>-kokkos<version> beside the record of <machine>
    (the default Kokkos), row by row: the same benchmark built against two Kokkos versions."""
    keys = {"nearest": lambda r: (r["variant"], power_size(r["observations"], r["references"]), f"k {r['k']}"),
            "workloads": lambda r: (r["workload"], r["variant"], r["size"])}
    lines = [
        "| machine | space | benchmark | case | Kokkos A | median A | Kokkos B | median B | B / A | records |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for benchmark, key in keys.items():
        runs = load(os.path.join(RESULTS, f"{benchmark}-*.json"))
        by_file = {run["file"]: run for run in runs}
        for run in runs:
            base, marker, _ = run["machine"].rpartition("-kokkos")
            # the record of the same name without the version: nearest-cuda-h100.json
            baseline = by_file.get(run["file"].replace(run["machine"], base)) if marker else None
            if not baseline:
                continue
            rows = {key(r): r for r in baseline["results"]}
            for r in run["results"]:
                a = rows.get(key(r))
                if not a:
                    continue
                lines.append(
                    f"| {base} | {run['execution_space']} | {benchmark} | {' '.join(key(r))} | "
                    f"{kokkos_version(baseline)} | {time_shown(a['median_seconds'])} | {kokkos_version(run)} | "
                    f"{time_shown(r['median_seconds'])} | {r['median_seconds'] / a['median_seconds']:.2f} | "
                    f"`{baseline['file']}`, `{run['file']}` |")
    return "\n".join(lines)


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "perf", "results")

def fill(path, tables):
    """The tables' blocks of one Markdown file, rewritten; the file's text, and whether it changed."""
    text = old = open(path).read()
    for name, make in tables:
        begin, end = BLOCKS[name]
        if begin not in text or end not in text:
            sys.exit(f"results_table.py: {os.path.relpath(path, ROOT)} has no {begin} ... {end} block")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        text = head + begin + "\n" + make() + "\n" + end + tail
    return text, text != old


if __name__ == "__main__":
    # --check: write nothing, fail where a table differs from what the records give.
    check = sys.argv[1:] == ["--check"]
    documents = {
        os.path.join(ROOT, "docs", "performance.md"): (
            ("nearest", nearest_table), ("layouts", layouts_table), ("sweep", sweep_table),
            ("workloads", workloads_table),
            ("mpi", mpi_table), ("calls", calls_table), ("knn", knn_table), ("euclidean", euclidean_table),
            ("python", python_table), ("dbscan", dbscan_table), ("dense", dense_table),
            ("kokkos", kokkos_table)),
        os.path.join(ROOT, "README.md"): (("headline", headline_table),),
    }
    stale = []
    for path, tables in documents.items():
        text, changed = fill(path, tables)
        if changed and check:
            stale.append(os.path.relpath(path, ROOT))
        elif changed:
            open(path, "w").write(text)
    if stale:
        sys.exit("results_table.py: tables not as the records give them in " + ", ".join(stale) +
                 " (run perf/results_table.py)")
