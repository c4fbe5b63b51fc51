"""kernwerk.DistributedIndex under mpiexec (ctest runs it on 1 and 3 ranks): every layout against
kernwerk.nearest over the concatenated points, bit for bit, with empty shares, degrees, float32,
Euclidean clusters, and bad arguments on the last rank failing every rank alike. Not a pytest
file: every rank runs it, and a failure on any rank fails the run. Fails, saying why, where the
interpreter has no mpi4py (Debian: python3-mpi4py)."""
import importlib.util
import sys

if importlib.util.find_spec("mpi4py") is None or importlib.util.find_spec("numpy") is None:
    print(f"the MPI Python tests cannot run: {sys.executable} has no mpi4py or NumPy "
          "(Debian: apt-get install python3-mpi4py python3-numpy)")
    sys.exit(1)

import numpy as np  # noqa: E402
from mpi4py import MPI  # noqa: E402

import kernwerk  # noqa: E402

comm = MPI.COMM_WORLD
rank, ranks = comm.Get_rank(), comm.Get_size()
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)


def sphere(n, seed, clustered=False):
    rng = np.random.default_rng(seed)
    if clustered:  # half in a small cap near the date line, the rest uniform
        half = n // 2
        cap = np.stack([0.3 + rng.normal(0, 1e-3, half), np.pi - rng.uniform(0, 2e-3, half)], 1)
        rest = np.stack([np.arcsin(rng.uniform(-1, 1, n - half)), rng.uniform(-np.pi, np.pi, n - half)], 1)
        points = np.concatenate([cap, rest])
    else:
        points = np.stack([np.arcsin(rng.uniform(-1, 1, n)), rng.uniform(-np.pi, np.pi, n)], 1)
    points[n // 3] = points[n // 5]  # a duplicate: the smaller global index first
    return points


def shares(n, weights):
    """[first, last) of n rows for this rank, by weights."""
    total = sum(weights)
    edges = [round(n * sum(weights[:r]) / total) for r in range(ranks + 1)]
    return edges[rank], edges[rank + 1]


def compare(points, queries, ks, layout, point_weights, query_weights, **metric):
    p0, p1 = shares(len(points), point_weights)
    q0, q1 = shares(len(queries), query_weights)
    index = kernwerk.DistributedIndex(points[p0:p1], comm, layout=layout, **metric)
    check(len(index) == len(points), f"{layout}: len {len(index)}")
    if layout != "auto":
        check(index.layout == layout, f"{layout}: layout {index.layout}")
    for k in ks:
        for _ in range(2):  # kept between queries
            distances, indices = index.query(queries[q0:q1], k=k)
            want_indices, want_distances = kernwerk.nearest(queries[q0:q1], points, k=k, **metric)
            what = f"{layout}, k = {k}, {metric}"
            check(np.array_equal(indices, want_indices), f"{what}: indices")
            check(np.array_equal(distances, want_distances), f"{what}: distances")
            check(distances.dtype == want_distances.dtype, f"{what}: dtype")
        check(np.array_equal(index.query(queries[q0:q1], k=k, return_distance=False), want_indices),
              f"{layout}: return_distance=False")


def expect_everywhere(call, kind, fragment):
    """call() on every rank, with a bad argument on the last rank: every rank raises `kind` with
    the same message, naming the last rank."""
    try:
        call()
        message = None
    except kind as error:
        message = str(error)
    messages = comm.allgather(message)
    check(all(m == messages[0] for m in messages), f"the same error everywhere: {messages}")
    check(messages[0] is not None and fragment in messages[0] and f"rank {ranks - 1}" in messages[0],
          f"{fragment!r} naming rank {ranks - 1}: {messages[0]}")


even = [1] * ranks
gaps = [0] + [1] * (ranks - 1) if ranks > 1 else [1]  # rank 0 holds nothing
uneven = [r + 1 for r in range(ranks)]
points, queries = sphere(900, 1, clustered=True), sphere(700, 2)
for layout in ("auto", "replicated", "partitioned"):
    compare(points, queries, (1, 5), layout, even, uneven)
    compare(points, queries, (3, len(points)), layout, gaps, gaps)
# Degrees in float32, and float32 queries of a float64 index taken as float64.
degrees = np.degrees(points).astype("float32")
compare(degrees, np.degrees(queries).astype("float32"), (4,), "partitioned", uneven, even, degrees=True)
index = kernwerk.DistributedIndex(points[slice(*shares(len(points), even))], comm, layout="partitioned")
mine = queries[slice(*shares(len(queries), even))]
check(np.array_equal(index.query(mine.astype("float32"), k=2)[1],
                     kernwerk.nearest(mine.astype("float32").astype("float64"), points, k=2)[0]),
      "float32 queries of a float64 index")
# Euclidean clusters in 3-D.
rng = np.random.default_rng(3)
centres = rng.uniform(-10, 10, (6, 3))
cloud = centres[rng.integers(0, 6, 1200)] + rng.normal(0, 0.05, (1200, 3))
compare(cloud, rng.uniform(-10, 10, (500, 3)), (1, 7), "partitioned", even, uneven, metric="euclidean")

# Bad arguments on the last rank fail every rank alike.
last = rank == ranks - 1
expect_everywhere(lambda: index.query(mine[:, :1] if last else mine, k=2), ValueError, "x: ")
expect_everywhere(lambda: index.query(mine, k=0 if last else 2), ValueError, "k: ")
expect_everywhere(lambda: index.query(mine, k=len(points) + 1 if last else 2), ValueError, "k: ")
expect_everywhere(lambda: index.query(np.array([["a", "b"]]) if last else mine, k=2), ValueError, "x: ")
expect_everywhere(lambda: kernwerk.DistributedIndex(points[:5], comm, layout="everywhere" if last else "auto"),
                  ValueError, "layout: ")
bad = points[:5].copy()
if last:
    bad[2, 0] = 2.0  # a latitude past the pole
expect_everywhere(lambda: kernwerk.DistributedIndex(bad, comm), ValueError, "points: ")
try:
    kernwerk.DistributedIndex(points, "MPI.COMM_WORLD")
    failures.append("a communicator that is not one")
except TypeError as error:
    check("comm: must be an mpi4py communicator" in str(error), str(error))

all_failures = comm.allgather(failures)
if rank == 0:
    for r, found in enumerate(all_failures):
        for what in found:
            print(f"FAILED on rank {r}: {what}")
    print(f"mpi_index_check ({ranks} ranks): {sum(map(len, all_failures))} failures")
sys.exit(1 if any(all_failures) else 0)
