"""kernwerk dbscan and kernwerk within (the command-line tool) against scikit-learn's DBSCAN and
radius_neighbors on the same points, and the tool's answers to bad command lines.

    python3 dbscan_sklearn_test.py PATH_TO_KERNWERK

With --border first-cluster every label must equal scikit-learn's. With the default rule
(nearest-core) the core points, the noise and the clusters of the core points must be
scikit-learn's, and each border point must carry the label of its nearest core point (float64
distances computed here, equal distances to the smaller index). Sets: the course's two moons
(make_moons, noise 0.05) with 10^2 samples at the course's eps 0.3 and 10^5 samples at eps 0.03
(at eps 0.3, scikit-learn's neighbour lists of 10^5 points take about 12 GB), duplicated points,
and places on the sphere around a pole and across the date line (haversine, radians).
Exits 77 (ctest: skipped) where NumPy or scikit-learn is missing (Debian: python3-sklearn).
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from sklearn.cluster import DBSCAN
    from sklearn.datasets import make_moons
    from sklearn.neighbors import NearestNeighbors
except ImportError as missing:
    print(f"{sys.executable}: {missing} (Debian: python3-numpy python3-sklearn): skipped")
    sys.exit(77)

KERNWERK = sys.argv[1]
# The tool's default execution space, or the one KERNWERK_TEST_BACKEND names (serial, openmp, cuda).
BACKEND = ["--backend", os.environ["KERNWERK_TEST_BACKEND"]] if "KERNWERK_TEST_BACKEND" in os.environ else []


def run_tool(command):
    """Runs the tool; a failure raises with its message."""
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: exit {run.returncode}: {run.stderr.strip()}")
failures = []


def kernwerk_labels(points, eps, min_samples, folder, extra):
    source = os.path.join(folder, "points.csv")
    labels = os.path.join(folder, "labels.csv")
    np.savetxt(source, points, delimiter=",", fmt="%.17g")
    command = [KERNWERK, "dbscan", "--in", source, "--eps", repr(eps), "--min-samples",
               str(min_samples), "--out", labels] + BACKEND + extra
    run_tool(command)
    return np.loadtxt(labels, dtype=np.int64, skiprows=1, ndmin=1)


def distances_to(points, i, metric):
    if metric == "euclidean":
        return np.sqrt(((points - points[i]) ** 2).sum(axis=1))
    lat, lon = points[:, 0], points[:, 1]
    h = np.sin((lat - lat[i]) / 2) ** 2 + np.cos(lat[i]) * np.cos(lat) * np.sin((lon - lon[i]) / 2) ** 2
    return 2 * np.arcsin(np.sqrt(np.minimum(h, 1.0)))


def check(name, points, eps, min_samples, metric="euclidean"):
    expected = DBSCAN(eps=eps, min_samples=min_samples, metric=metric, algorithm="ball_tree").fit(points)
    core = np.zeros(len(points), dtype=bool)
    core[expected.core_sample_indices_] = True
    extra = ["--metric", metric] + (["--dim", str(points.shape[1])] if metric == "euclidean" else [])
    with tempfile.TemporaryDirectory() as folder:
        first = kernwerk_labels(points, eps, min_samples, folder, extra + ["--border", "first-cluster"])
        nearest = kernwerk_labels(points, eps, min_samples, folder, extra)
    clusters = expected.labels_.max() + 1
    wrong = np.flatnonzero(first != expected.labels_)
    if len(wrong):
        failures.append(f"{name}: first-cluster labels differ from scikit-learn's at {wrong[:5]} "
                        f"({len(wrong)} points)")
    if not np.array_equal(nearest[core], expected.labels_[core]) or \
            not np.array_equal(nearest == -1, expected.labels_ == -1):
        failures.append(f"{name}: nearest-core: core points or noise differ from scikit-learn's")
    border = np.flatnonzero(~core & (expected.labels_ != -1))
    for i in border:
        d = distances_to(points, i, metric)
        d[~core] = np.inf
        j = int(np.argmin(d))  # the first of equal minima: the smaller index
        if nearest[i] != nearest[j]:
            failures.append(f"{name}: border point {i} has label {nearest[i]}, its nearest core point "
                            f"{j} {nearest[j]}")
            break
    print(f"{name}: {len(points)} points, {clusters} clusters, {core.sum()} core, {len(border)} border, "
          f"{(expected.labels_ == -1).sum()} noise")


check("moons 10^2, eps 0.3", make_moons(100, noise=0.05, random_state=1)[0], 0.3, 5)
check("moons 10^5, eps 0.03", make_moons(100000, noise=0.05, random_state=2)[0], 0.03, 5)
check("moons 10^4, eps 0.02, min_samples 12", make_moons(10000, noise=0.1, random_state=3)[0], 0.02, 12)
copies = np.repeat(make_moons(300, noise=0.05, random_state=4)[0], 3, axis=0)
check("moons, every point three times", copies, 0.05, 4)
check("3-D blobs", np.random.default_rng(5).normal(size=(3000, 3)), 0.25, 6)
rng = np.random.default_rng(6)
pole = np.column_stack([np.pi / 2 - np.abs(rng.normal(0, 0.01, 1500)), rng.uniform(-np.pi, np.pi, 1500)])
dateline = np.column_stack([rng.normal(0.2, 0.01, 1500), np.remainder(rng.normal(np.pi, 0.01, 1500) + np.pi,
                                                                      2 * np.pi) - np.pi])
noise = np.column_stack([np.arcsin(rng.uniform(-1, 1, 500)), rng.uniform(-np.pi, np.pi, 500)])
check("sphere: a pole, the date line, noise", np.vstack([pole, dateline, noise]), 0.002, 5, "haversine")



def check_within(name, queries, points, distance, metric, rows=()):
    """rows: --order any and --no-distances, each query's lines then checked as a set."""
    tree = NearestNeighbors(radius=distance, metric=metric, algorithm="ball_tree").fit(points)
    want_distances, want_indices = tree.radius_neighbors(queries, sort_results=True)
    extra = ["--metric", metric] + (["--dim", str(points.shape[1])] if metric == "euclidean" else []) + list(rows)
    sorted_rows = "any" not in rows
    with tempfile.TemporaryDirectory() as folder:
        paths = [os.path.join(folder, f) for f in ("queries.csv", "points.csv", "pairs.csv")]
        np.savetxt(paths[0], queries, delimiter=",", fmt="%.17g")
        np.savetxt(paths[1], points, delimiter=",", fmt="%.17g")
        run_tool([KERNWERK, "within", "--queries", paths[0], "--points", paths[1], "--distance",
                  repr(distance), "--out", paths[2]] + BACKEND + extra)
        pairs = np.loadtxt(paths[2], delimiter=",", skiprows=1, ndmin=2)
    for i in range(len(queries)):
        mine = pairs[pairs[:, 0] == i]
        # Equal distances in scikit-learn's order may differ: compare sets, and distances sorted.
        distances = None if "--no-distances" in rows else mine[:, 2] if sorted_rows else np.sort(mine[:, 2])
        if pairs.shape[1] != (2 if distances is None else 3) or \
                set(mine[:, 1].astype(np.int64)) != set(want_indices[i]) or len(mine) != len(want_indices[i]) or \
                (distances is not None and
                 not np.allclose(distances, np.sort(want_distances[i]), rtol=1e-12, atol=1e-15)):
            failures.append(f"{name}: query {i}: the points within {distance} differ from scikit-learn's")
            return
    print(f"{name} {' '.join(rows)}: {len(pairs)} pairs")


check_within("within: 2-D moons", make_moons(500, noise=0.05, random_state=7)[0],
             make_moons(3000, noise=0.05, random_state=8)[0], 0.05, "euclidean")
for rows in ((), ("--order", "any"), ("--order", "any", "--no-distances"), ("--no-distances",)):
    check_within("within: the sphere", np.vstack([pole[:200], dateline[:200], noise[:100]]),
                 np.vstack([pole, dateline, noise]), 0.003, "haversine", rows)


def check_refused(arguments, status, words):
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "bad.csv")
        with open(source, "w") as f:
            f.write("0.1,0.2\nnan,0.3\n")
        command = [KERNWERK] + [a.replace("BAD", source).replace("OUT", os.path.join(folder, "o.csv"))
                                for a in arguments]
        run = subprocess.run(command, capture_output=True, text=True)
        left = os.listdir(folder)
    if run.returncode != status or not all(w in run.stderr for w in words) or "o.csv" in left:
        failures.append(f"{' '.join(arguments)}: exit {run.returncode}, {run.stderr.strip()!r}, files {left}")


check_refused(["dbscan", "--in", "BAD", "--min-samples", "3", "--out", "OUT"], 2, ["--eps"])
check_refused(["dbscan", "--in", "BAD", "--eps", "1", "--min-samples", "3", "--out", "OUT"], 1, ["bad.csv", "2"])
check_refused(["dbscan", "--in", "BAD", "--eps", "1", "--min-samples", "0", "--out", "OUT"], 2, ["--min-samples"])
check_refused(["dbscan", "--in", "BAD", "--eps", "-1", "--min-samples", "2", "--out", "OUT"], 2, ["--eps"])
check_refused(["dbscan", "--in", "BAD", "--eps", "1", "--min-samples", "2", "--border", "x", "--out", "OUT"], 2,
              ["--border"])
check_refused(["within", "--queries", "BAD", "--points", "BAD", "--distance", "-1", "--out", "OUT"], 2,
              ["--distance"])
check_refused(["within", "--queries", "BAD", "--points", "BAD", "--distance", "1", "--out", "OUT"], 1,
              ["bad.csv"])
check_refused(["within", "--queries", "BAD", "--points", "BAD", "--distance", "1", "--order", "sideways",
               "--out", "OUT"], 2, ["--order", "nearest-first, any"])

if failures:
    print("\n".join(failures))
    sys.exit(1)
