"""Kernwerk from Python: exact nearest neighbours on the sphere and the course workloads.

Arrays are used where they lie, without copies:

* host arrays (NumPy, or anything with the buffer protocol) are computed on by the host
  (OpenMP or Serial);
* GPU arrays (CuPy, PyTorch, Numba, JAX: anything with ``__cuda_array_interface__`` or
  ``__dlpack__``) by the GPU, in a Kernwerk built for one.

Any strides are taken (Fortran order, slices); NumPy and CuPy arrays with a negative stride (a
reversed axis) are copied first. Point sets of integers are taken as float64, and float32 beside
float64 as float64 (NumPy's promotion). Results come back as arrays
of the kind of the first array argument on its device (a NumPy array for NumPy input, a CuPy
array for CuPy input, a torch.Tensor on the same GPU for PyTorch input), or are written into
``out=`` arrays the caller gives. Other inputs (lists) go through ``numpy.asarray``.

Bad arguments raise ValueError naming the argument; nothing is written then. Kokkos is
initialised on import unless the process already did, and finalised at exit.
"""
import atexit as _atexit

from . import _core

__version__ = getattr(_core, "__version__", "unknown")
__all__ = ["Index", "DistributedIndex", "nearest", "within", "count_within", "dbscan", "diffuse", "integrate2d", "integrands", "sum", "dot", "norm2", "gemm",
           "matmul_colsum", "cg", "qr", "qr_factor", "apply_q", "solve_least_squares", "fft", "ifft", "rfft",
           "irfft", "fft2", "ifft2", "rfft2", "irfft2", "NotConvergedError", "backend"]

_core.initialize()
_atexit.register(_core.finalize)


class NotConvergedError(RuntimeError):
    """kernwerk.cg ran out of iterations; ``info`` holds the iterations and residuals."""

    def __init__(self, message, info):
        super().__init__(message)
        self.info = info


def backend():
    """The GPU backend of this build: "cuda", "hip", or "" (host only)."""
    return _core.backend()


def integrands():
    """The names integrate2d takes for f."""
    return list(_core.integrand_names())


def _fail(function, argument, problem):
    raise ValueError(f"kernwerk.{function}: {argument}: {problem}")


def _integer(function, name, value, low, high=None):
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        _fail(function, name, f"must be an integer, got {value!r}")
    value = value.__index__()
    if value < low or (high is not None and value > high):
        _fail(function, name, f"must be {low} to {high}, got {value}" if high is not None
              else f"must be at least {low}, got {value}")
    return value


def _real(function, name, value):
    try:
        return float(value)
    except (TypeError, ValueError):
        _fail(function, name, f"must be a number, got {value!r}")


def _choice(function, name, value, choices):
    if value not in choices:
        _fail(function, name, f"{value!r} is not one of {', '.join(choices)}")
    return value


def _info(function, array, name):
    """(where, shape, dtype) of the array argument `name` of `function`."""
    return _core.array_info(array, function, name)


def _library_of(array):
    return type(array).__module__.split(".")[0]


def _new_result(where, shape, dtype, zero=False):
    """A result array Kernwerk can write: NumPy on the host, a DeviceArray on the GPU."""
    if where == "host":
        import numpy
        return (numpy.zeros if zero else numpy.empty)(shape, dtype=dtype)
    return _core.device_empty(list(shape), dtype, zero)


def _as_kind_of(template, result):
    """result (NumPy or DeviceArray) as an array of template's library, without a copy."""
    library = _library_of(template)
    if isinstance(result, _core.DeviceArray):
        if library == "cupy":
            import cupy
            return cupy.asarray(result)
        if library == "torch":
            import torch
            return torch.as_tensor(result, device=template.device)
        if library == "numba":
            from numba import cuda
            return cuda.as_cuda_array(result)
        if library in ("jax", "jaxlib"):
            import jax.numpy
            return jax.numpy.from_dlpack(result)
        return result
    if library in ("numpy", "builtins"):
        return result
    if library == "torch":
        import torch
        return torch.from_numpy(result)
    try:
        module = __import__(library)
        return module.from_dlpack(result) if hasattr(module, "from_dlpack") else result
    except ImportError:
        return result


def _output_pair(function, out):
    if out is None:
        return None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        _fail(function, "out", "must be a tuple of 2 arrays")
    return tuple(out)


def _points(function, array, name):
    where, shape, dtype = _info(function, array, name)
    if len(shape) != 2:
        _fail(function, name, f"must be 2-D (n, 2) or (n, 3), got {len(shape)}-D")
    return where, shape, dtype


def _astype(array, dtype):
    """array as dtype ("float32", "float64"), a copy from its own library (NumPy, CuPy,
    PyTorch); other libraries' arrays as they are (the call then names the dtype)."""
    library = _library_of(array)
    if library == "torch":
        import torch
        return array.to(getattr(torch, dtype))
    if library in ("numpy", "cupy"):
        return array.astype(dtype)
    return array


def _copy(array):
    """A copy of array from its own library (NumPy, CuPy, PyTorch); others' arrays as they are."""
    library = _library_of(array)
    if library == "torch":
        return array.clone()
    return array.copy() if library in ("numpy", "cupy") else array


def _arange_like(array, n):
    """0, 1, ..., n - 1 as int64 in array's library and place."""
    library = _library_of(array)
    if library == "torch":
        import torch
        return torch.arange(n, device=array.device)
    if library == "cupy":
        import cupy
        return cupy.arange(n)
    import numpy
    return numpy.arange(n)


def _as_values(array):
    """array as NumPy users expect it taken: lists and buffers through NumPy, integers as
    float64, negative strides (a reversed axis, obs[:, ::-1]) copied. Arrays that need none of
    this are used where they lie."""
    library = _library_of(array)
    if library not in ("cupy", "torch", "numba", "jax", "jaxlib"):
        import numpy
        if not isinstance(array, numpy.ndarray) and (hasattr(array, "__cuda_array_interface__") or
                                                     hasattr(array, "__dlpack__")):
            return array  # another library's GPU array: taken as it is
        array = numpy.asarray(array)
    elif library == "torch":
        import torch
        if array.is_floating_point() or array.is_complex() or array.dtype == torch.bool:
            return array
        return array.to(torch.float64)
    elif library != "cupy":
        return array
    if array.dtype.kind in "iu":
        array = array.astype("float64")
    if any(stride < 0 for stride in array.strides):
        module = __import__(_library_of(array))
        array = module.ascontiguousarray(array)
    return array


def _empty_queries(function, shape, queries_name, points, name):
    """Checks what can be checked of a search without queries: the shapes."""
    if shape[1] not in (2, 3):
        _fail(function, queries_name, f"must be (n, 2) or (n, 3), got {tuple(shape)}")
    _, points_shape, _ = _points(function, points, name)
    if points_shape[1] != shape[1]:
        _fail(function, name, f"has {points_shape[1]} coordinates a point, the queries {shape[1]}")


def _point_sets(function, first, first_name, second, second_name):
    """Two point sets taken as _as_values takes them, float32 beside float64 promoted to float64
    (NumPy's rule)."""
    first, second = _as_values(first), _as_values(second)
    _, _, first_dtype = _info(function, first, first_name)
    _, _, second_dtype = _info(function, second, second_name)
    if {first_dtype, second_dtype} == {"float32", "float64"}:
        if first_dtype == "float32":
            first = _astype(first, "float64")
        else:
            second = _astype(second, "float64")
    return first, second


def nearest(obs, ref, k=1, degrees=False, radius=None, metric="haversine", method="auto",
            implementation="auto", out=None, memory_budget=0):
    """The k nearest reference points of every observation, exactly.

    obs: (n, 2) array of (latitude, longitude), radians (degrees=True: degrees); with
        metric="euclidean", (n, 2) or (n, 3) Cartesian points. float32 or float64 (integers
        are taken as float64); n may be 0 (empty answers).
    ref: (m, 2) or (m, 3) array in the same place (host or GPU) as obs; float32 beside float64
        is taken as float64.
    k: at least 1 and at most m (above 32 a slower path, exact all the same).
    radius: haversine distances are central angles times this (None: 1, i.e. radians).
    method: "auto" (the library chooses), "brute" (every pair) or "indexed" (a spatial index
        over ref). All give the same answer.
    implementation: "auto", "generic" (portable Kokkos) or "tuned" (the backend's own).
    out: (indices, distances) to write into: int64 (n, k) and obs' dtype (n, k).
    memory_budget: bytes a call may use for scratch (0: the library's choice).

    Returns (indices, distances), each (n, k), nearest first; among reference points at the
    same float64 distance the smallest index comes first. The neighbours are true nearest ones
    when distances are evaluated in float64.
    """
    fn = "nearest"
    obs, ref = _point_sets(fn, obs, "obs", ref, "ref")
    where, shape, dtype = _points(fn, obs, "obs")
    k = _integer(fn, "k", k, 1)
    _, ref_shape, _ = _info(fn, ref, "ref")
    if len(ref_shape) == 2 and k > ref_shape[0]:
        _fail(fn, "k", f"{k} neighbours, but ref holds {ref_shape[0]} points")
    radius = 1.0 if radius is None else _real(fn, "radius", radius)
    _choice(fn, "metric", metric, ("haversine", "euclidean"))
    _choice(fn, "method", method, ("auto", "brute", "indexed"))
    _choice(fn, "implementation", implementation, ("auto", "generic", "tuned"))
    memory_budget = _integer(fn, "memory_budget", memory_budget, 0)
    given = _output_pair(fn, out)
    if given is None:
        indices = _new_result(where, (shape[0], k), "int64")
        distances = _new_result(where, (shape[0], k), dtype)
    else:
        indices, distances = given
    if shape[0] == 0:  # no observations: no answers (ref's shape and k checked as for any)
        _empty_queries(fn, shape, "obs", ref, "ref")
    else:
        _core.nearest(obs, ref, indices, distances, metric, method, implementation, bool(degrees),
                      radius, memory_budget)
    if given is not None:
        return given
    return _as_kind_of(obs, indices), _as_kind_of(obs, distances)


def within(queries, points, distance, degrees=False, radius=None, metric="haversine",
           distances=True, sort_results=True):
    """Every point within `distance` of each query, exactly (scikit-learn's radius_neighbors).

    queries: (n, 2) array of (latitude, longitude), radians (degrees=True: degrees); with
        metric="euclidean", (n, 2) or (n, 3) Cartesian points. float32 or float64 (integers
        are taken as float64); n may be 0.
    points: (m, 2) or (m, 3) array in the same place (host or GPU) as queries; float32 beside
        float64 is taken as float64.
    distance: in the units of the distances (haversine: radians times radius); a point at
        exactly `distance` (its float64 distance as reported) counts.
    radius: haversine distances are central angles times this (None: 1, i.e. radians).
    distances: False to leave the distances out (none are computed).
    sort_results: False to leave each row in any order (the same neighbours), which costs less.

    Returns (offsets, indices, distances) in compressed rows: the neighbours of query i are
    indices[offsets[i]:offsets[i + 1]] (int64) at distances[...] (queries' dtype), nearest
    first, equal distances by index; without distances, (offsets, indices).
    """
    fn = "within"
    queries, points = _point_sets(fn, queries, "queries", points, "points")
    where, shape, dtype = _points(fn, queries, "queries")
    radius = 1.0 if radius is None else _real(fn, "radius", radius)
    distance = _real(fn, "distance", distance)
    _choice(fn, "metric", metric, ("haversine", "euclidean"))
    answer = _core.within(queries, points, distance, metric, bool(degrees), radius, bool(sort_results),
                          bool(distances))
    offsets = _new_result(where, (shape[0] + 1,), "int64")
    indices = _new_result(where, (answer.total,), "int64")
    found = _new_result(where, (answer.total,), dtype) if distances else None
    answer.copy(offsets, indices, found)
    result = (_as_kind_of(queries, offsets), _as_kind_of(queries, indices))
    return result + (_as_kind_of(queries, found),) if distances else result


def count_within(queries, points, distance, degrees=False, radius=None, metric="haversine",
                 out=None):
    """The number of points within `distance` of each query: an int64 array (n,).

    Arguments as within's; out: an int64 (n,) array to write into.
    """
    fn = "count_within"
    queries, points = _point_sets(fn, queries, "queries", points, "points")
    where, shape, _ = _points(fn, queries, "queries")
    radius = 1.0 if radius is None else _real(fn, "radius", radius)
    distance = _real(fn, "distance", distance)
    _choice(fn, "metric", metric, ("haversine", "euclidean"))
    counts = _new_result(where, (shape[0],), "int64") if out is None else out
    _core.count_within(queries, points, distance, counts, metric, bool(degrees), radius)
    return counts if out is not None else _as_kind_of(queries, counts)


class Index:
    """A spatial index over points, built once and queried many times, in the manner of SciPy's
    cKDTree and scikit-learn's BallTree (fixed stations against every time step's observations).

    points: (m, 2) array of (latitude, longitude), radians (degrees=True: degrees); with
        metric="euclidean", (m, 2) or (m, 3) Cartesian points. float32 or float64, on the host
        (NumPy) or a GPU (CuPy, PyTorch, ...): the index is built and queried there, and its
        queries must lie there too, with the points' dtype (integer queries, and float32 ones
        of a float64 index, are taken as float64). m may be 0.
    radius: haversine distances are central angles times this (None: 1, i.e. radians).

    The index keeps its own copy of the points. Answers are those of kernwerk.nearest,
    kernwerk.within and kernwerk.count_within, bit for bit.
    """

    def __init__(self, points, metric="haversine", degrees=False, radius=None):
        fn = "Index"
        points = _as_values(points)
        self._where, shape, self._dtype = _points(fn, points, "points")
        _choice(fn, "metric", metric, ("haversine", "euclidean"))
        radius = 1.0 if radius is None else _real(fn, "radius", radius)
        self.metric, self.degrees, self.radius = metric, bool(degrees), radius
        self._index = _core.make_index(points, metric, self.degrees, radius)
        self._points = _copy(points)  # the queries of query(x=None)
        self.n, self.m = shape[0], shape[1]  # (as cKDTree: points and coordinates per point)

    def __len__(self):
        return self._index.size

    def _queries(self, function, x):
        """x as _as_values takes it, float32 or integer queries of a float64 index as float64."""
        x = _as_values(x)
        _, _, dtype = _info(function, x, "x")
        if dtype == "float32" and self._dtype == "float64":
            x = _astype(x, "float64")
        return x

    def query(self, x=None, k=1, return_distance=True, distance_upper_bound=None, out=None):
        """The k nearest indexed points of every query: (distances, indices), each (n, k),
        nearest first, ties to the smallest index (BallTree's order of the pair).

        x: (n, dimension) queries; None: the indexed points themselves, each leaving itself out
            of its own neighbours (scikit-learn's kneighbors() without X; of equal points, the
            others stay).
        k: at least 1 and at most the points indexed (less one with x=None).
        return_distance: False to return the indices alone.
        distance_upper_bound: neighbours farther than this are marked as SciPy's cKDTree marks
            missing ones: distance inf, index len(index) (None: no bound).
        out: (distances, indices) to write into: the points' dtype and int64, (n, k).
        """
        fn = "Index.query"
        itself = x is None
        if itself:
            x = self._points
        x = self._queries(fn, x)
        where, shape, _ = _points(fn, x, "x")
        k = _integer(fn, "k", k, 1)
        if k + itself > len(self):
            _fail(fn, "k", f"{k} neighbours, but the index holds {len(self)} points" +
                  (" (each leaves itself out)" if itself else ""))
        bound = None if distance_upper_bound is None else _real(fn, "distance_upper_bound",
                                                                distance_upper_bound)
        given = _output_pair(fn, out)
        if given is not None:
            _, out_shape, _ = _info(fn, given[0], "out[0]")
            if tuple(out_shape) != (shape[0], k):
                _fail(fn, "out[0]", f"has shape {tuple(out_shape)}, not {(shape[0], k)}")
        columns = k + itself
        direct = given is not None and not itself
        distances, indices = given if direct else (_new_result(where, (shape[0], columns), self._dtype),
                                                   _new_result(where, (shape[0], columns), "int64"))
        if shape[0] == 0:  # no queries: no answers
            if shape[1] != self.m:
                _fail(fn, "x", f"has {shape[1]} coordinates a point, the index {self.m}")
        else:
            self._index.nearest(x, indices, distances)
        if not direct:
            distances, indices = _as_kind_of(x, distances), _as_kind_of(x, indices)
        if itself and shape[0] > 0:  # each row without its own index (else without its last)
            own = indices == _arange_like(indices, shape[0])[:, None]
            own[~own.any(1), -1] = True
            distances, indices = distances[~own].reshape(shape[0], k), indices[~own].reshape(shape[0], k)
        elif itself:
            distances, indices = distances[:, :k], indices[:, :k]
        if bound is not None:
            far = distances > bound
            distances[far] = float("inf")
            indices[far] = len(self)
        if given is not None and not direct:
            given[0][...], given[1][...] = distances, indices
        if given is not None:
            distances, indices = given
        return (distances, indices) if return_distance else indices

    def query_radius(self, x, r, return_distance=True, count_only=False, out=None, sort_results=True):
        """Every indexed point within distance r of each query, as kernwerk.within returns them.

        x: (n, dimension) queries. r: in the units of the distances (haversine: radians times
            radius); a point at exactly r (its float64 distance as reported) counts.
        Returns compressed rows (offsets, indices, distances): the neighbours of query i are
        indices[offsets[i]:offsets[i + 1]] (int64) at distances[...] (the points' dtype),
        nearest first, equal distances by index; (offsets, indices) with return_distance=False
        (no distances computed); with count_only=True, the int64 counts (n,) instead (written
        into out where given). sort_results=False leaves each row in any order, which costs less.
        """
        fn = "Index.query_radius"
        x = self._queries(fn, x)
        where, shape, _ = _points(fn, x, "x")
        r = _real(fn, "r", r)
        if count_only:
            counts = _new_result(where, (shape[0],), "int64") if out is None else out
            self._index.count_within(x, r, counts)
            return counts if out is not None else _as_kind_of(x, counts)
        answer = self._index.within(x, r, bool(sort_results), bool(return_distance))
        offsets = _new_result(where, (shape[0] + 1,), "int64")
        indices = _new_result(where, (answer.total,), "int64")
        found = _new_result(where, (answer.total,), self._dtype) if return_distance else None
        answer.copy(offsets, indices, found)
        result = (_as_kind_of(x, offsets), _as_kind_of(x, indices))
        return result + (_as_kind_of(x, found),) if return_distance else result


def _agreed(comm, prepare):
    """prepare() on every rank of comm (mpi4py); where it raises on any rank, every rank raises
    the error of the first such rank, naming it, as the C++ calls agree on their errors."""
    try:
        value, failure = prepare(), None
    except (TypeError, ValueError) as error:
        value, failure = None, (type(error) is TypeError, str(error))
    for rank, found in enumerate(comm.allgather(failure)):
        if found is not None:
            type_error, text = found
            parts = text.split(": ", 2)  # "kernwerk.function: argument: problem"
            if len(parts) == 3:
                text = f"{parts[0]}: {parts[1]}: rank {rank}: {parts[2]}"
            raise (TypeError if type_error else ValueError)(text)
    return value


def _host_points(function, array, name):
    """array (n, dimension) as a float32 or float64 NumPy array, as _as_values takes it."""
    import numpy
    array = _as_values(array)
    if not isinstance(array, numpy.ndarray):
        _fail(function, name, "must be a host (NumPy) array: the distributed index lies in host memory")
    if array.ndim != 2:
        _fail(function, name, f"must be 2-D (n, 2) or (n, 3), got {array.ndim}-D")
    if array.dtype.name not in ("float32", "float64"):
        _fail(function, name, f"must be float32 or float64, got {array.dtype.name}")
    return array


class DistributedIndex:
    """An index over the points of every rank of an MPI communicator, built once and queried
    many times (kernwerk::mpi::distributed_index; a build with MPI). Every rank of comm builds it
    and queries it together, each with its own points and its own queries.

    points: this rank's (m, 2) or (m, 3) host (NumPy) array, as Index takes them; any m, 0
        included. A point's global index counts the points of lower ranks first.
    comm: an mpi4py communicator (mpi4py.MPI.COMM_WORLD or one split from it).
    layout: "auto" (replicated where all points and their index fit in half the memory
        budget), "replicated" (every rank indexes all points; a query stays on its rank) or
        "partitioned" (each rank indexes one region; queries visit the ranks they need).

    Answers are kernwerk.nearest's over every rank's points concatenated in rank order, bit for
    bit. A bad argument on any rank raises the same error on every rank, naming the rank.
    """

    def __init__(self, points, comm, metric="haversine", degrees=False, radius=None, layout="auto"):
        fn = "DistributedIndex"
        if not hasattr(comm, "py2f"):
            raise TypeError(f"kernwerk.{fn}: comm: must be an mpi4py communicator, got {type(comm).__name__}")
        if not _core.has_mpi():
            raise ValueError(f"kernwerk.{fn}: comm: this Kernwerk was built without MPI (KERNWERK_ENABLE_MPI=OFF)")

        def prepare():
            values = _host_points(fn, points, "points")
            _choice(fn, "metric", metric, ("haversine", "euclidean"))
            _choice(fn, "layout", layout, ("auto", "replicated", "partitioned"))
            return values, 1.0 if radius is None else _real(fn, "radius", radius)

        values, self.radius = _agreed(comm, prepare)
        self.metric, self.degrees, self.comm = metric, bool(degrees), comm
        self._dtype = values.dtype.name
        self._index = _core.make_distributed_index(values, metric, self.degrees, self.radius, layout, comm.py2f())

    def __len__(self):
        """The points indexed on all ranks."""
        return self._index.size

    @property
    def layout(self):
        """How the points are held: "replicated" or "partitioned"."""
        return self._index.layout

    def query(self, x, k=1, return_distance=True):
        """The k nearest points of all ranks for each of this rank's queries: (distances,
        indices), each (n, k), nearest first, ties to the smallest global index. Collective:
        every rank calls it with the same k; n may be 0.

        x: (n, dimension) host array of the points' dtype (float32 queries of a float64 index
            and integer ones are taken as float64).
        return_distance: False to return the indices alone.
        """
        fn = "DistributedIndex.query"

        def prepare():
            queries = _host_points(fn, x, "x")
            if queries.dtype.name == "float32" and self._dtype == "float64":
                queries = queries.astype("float64")
            return queries, _integer(fn, "k", k, 1)

        queries, k = _agreed(self.comm, prepare)
        import numpy
        distances = numpy.empty((queries.shape[0], k), dtype=queries.dtype)
        indices = numpy.empty((queries.shape[0], k), dtype="int64")
        self._index.nearest(queries, indices, distances)
        return (distances, indices) if return_distance else indices


def dbscan(points, eps, min_samples=5, degrees=False, radius=None, metric="haversine",
           border="nearest-core", out=None):
    """DBSCAN clustering: an int64 array (n,) of cluster labels, -1 for noise.

    points: as within's queries: (latitude, longitude) rows by default (metric="haversine",
        radians); planar or 3-D data needs metric="euclidean", as in
        ``kernwerk.dbscan(xy, eps=0.3, min_samples=5, metric="euclidean")``.
    eps: the neighbourhood's distance (a point at exactly eps is within it). min_samples: the points within eps, itself included, that make a core point
        (scikit-learn's definition).
    border: "nearest-core" (a border point joins the cluster of its nearest core point, ties to
        the smallest index) or "first-cluster" (the smallest-numbered cluster among its core
        neighbours: scikit-learn's labels).
    out: an int64 (n,) array to write into.

    Clusters are numbered 0, 1, ... in the order of their smallest core point's index, as
    scikit-learn numbers them; core points, noise and the clusters' core points are exactly the
    textbook's. Returns the labels (out when given).
    """
    fn = "dbscan"
    points = _as_values(points)
    where, shape, _ = _points(fn, points, "points")
    radius = 1.0 if radius is None else _real(fn, "radius", radius)
    eps = _real(fn, "eps", eps)
    min_samples = _integer(fn, "min_samples", min_samples, 1)
    _choice(fn, "metric", metric, ("haversine", "euclidean"))
    _choice(fn, "border", border, ("nearest-core", "first-cluster"))
    labels = _new_result(where, (shape[0],), "int64") if out is None else out
    _core.dbscan(points, eps, min_samples, labels, metric, bool(degrees), radius, border)
    return labels if out is not None else _as_kind_of(points, labels)


def diffuse(field, steps=1, coeff=0.25, laplacian=None, implementation="auto"):
    """steps steps of field -= coeff * (4 f - its neighbours inside the grid), in place.

    field: 2-D float32 or float64 array, updated where it lies (every step reads the whole
        previous field). Stable for 0 <= coeff <= 0.25.
    laplacian: None; True for a new array; or an array of field's shape to write into. It
        receives the Laplacian of the field the last step started from.

    Returns field, or (field, laplacian) when laplacian is not None.
    """
    fn = "diffuse"
    steps = _integer(fn, "steps", steps, 0)
    coeff = _real(fn, "coeff", coeff)
    _choice(fn, "implementation", implementation, ("auto", "generic", "tuned"))
    where, shape, dtype = _info(fn, field, "field")
    made = laplacian is True
    if made:
        laplacian = _new_result(where, shape, dtype)
    elif laplacian is False:
        laplacian = None
    _core.diffuse(field, steps, coeff, laplacian, implementation)
    if laplacian is None:
        return field
    return field, (_as_kind_of(field, laplacian) if made else laplacian)


def integrate2d(f, x0, x1, y0, y1, n, m=None, device=None, implementation="auto"):
    """The midpoint-rule integral of f over [x0, x1] x [y0, y1] on n x m points.

    f: the name of an integrand, as kernwerk.integrands() lists them: "sin(x+y)" (the course's),
        "cos(x)*cos(y)", "exp(-(x^2+y^2))", "x*y" (spaces are ignored). Python callables are
        not taken: they cannot run inside a GPU kernel.
    m: points along y (None: n).
    device: run on the GPU (None: where the build has one).
    Sums are compensated float64 throughout. Returns a float.
    """
    fn = "integrate2d"
    if not isinstance(f, str):
        _fail(fn, "f", "must be an integrand's name, one of " + ", ".join(integrands()))
    n = _integer(fn, "n", n, 1)
    m = n if m is None else _integer(fn, "m", m, 1)
    on_device = bool(_core.backend()) if device is None else bool(device)
    _choice(fn, "implementation", implementation, ("auto", "generic", "tuned"))
    return _core.integrate2d(f, _real(fn, "x0", x0), _real(fn, "x1", x1), _real(fn, "y0", y0),
                             _real(fn, "y1", y1), n, m, on_device, implementation)


def sum(x):  # noqa: A001 (kernwerk.sum, as numpy.sum)
    """The sum of a 1-D float32 or float64 array, accumulated in compensated float64."""
    return _core.sum(x)


def dot(x, y):
    """The dot product of two 1-D arrays of one dtype, in compensated float64."""
    return _core.dot(x, y)


def norm2(x):
    """The Euclidean norm of a 1-D array, in float64 (scaled: no overflow or underflow)."""
    return _core.norm2(x)


def gemm(a, b, c=None, alpha=1.0, beta=0.0, implementation="auto"):
    """c = alpha a b + beta c for 2-D arrays of one dtype; a new c (zeros) when c is None.

    implementation: "auto", "generic", "tuned" or "vendor" (cuBLAS on CUDA, Eigen on the host).
    Returns c.
    """
    fn = "gemm"
    _choice(fn, "implementation", implementation, ("auto", "generic", "tuned", "vendor"))
    alpha, beta = _real(fn, "alpha", alpha), _real(fn, "beta", beta)
    made = c is None
    if made:
        where, a_shape, dtype = _info(fn, a, "a")
        _, b_shape, _ = _info(fn, b, "b")
        if len(a_shape) != 2 or len(b_shape) != 2:
            _fail(fn, "a" if len(a_shape) != 2 else "b", "must be 2-D")
        c = _new_result(where, (a_shape[0], b_shape[1]), dtype, zero=True)
    _core.gemm(alpha, a, b, beta, c, implementation)
    return _as_kind_of(a, c) if made else c


def matmul_colsum(a, b, out=None):
    """out[q] = sum_i (a b)[i, q] (the einsum "ij,jk->k") without forming a b. Returns out."""
    fn = "matmul_colsum"
    made = out is None
    if made:
        where, _, dtype = _info(fn, a, "a")
        _, b_shape, _ = _info(fn, b, "b")
        if len(b_shape) != 2:
            _fail(fn, "b", f"must be 2-D, got {len(b_shape)}-D")
        out = _new_result(where, (b_shape[1],), dtype)
    _core.matmul_colsum(a, b, out)
    return _as_kind_of(a, out) if made else out


def cg(a, b, x0=None, tol=1e-8, max_iterations=0, out=None):
    """Solves a x = b for symmetric positive-definite a by conjugate gradients.

    a: a dense 2-D array, or a CSR matrix (anything with indptr, indices and data arrays, such
        as scipy.sparse.csr_matrix or cupyx.scipy.sparse.csr_matrix; int32 or int64 indices).
    b: 1-D array of a's dtype and place.
    x0: the initial guess (None: zeros); it is not modified.
    tol: stop when ||b - a x|| <= tol ||b||; max_iterations: 0 for the system's size.
    out: a 1-D array to receive the solution (it is also where the iteration starts when x0
        is None).

    Returns (x, info); info is a dict of iterations, residual_norm (||r|| / ||b||) and
    residual_history. Raises NotConvergedError (with .info) when the iterations run out, and
    ValueError naming a when a is found not positive definite; the solution is not written
    then (out keeps the starting guess).
    """
    fn = "cg"
    tol = _real(fn, "tol", tol)
    max_iterations = _integer(fn, "max_iterations", max_iterations, 0)
    where, b_shape, dtype = _info(fn, b, "b")
    made = out is None
    x = _new_result(where, b_shape, dtype, zero=True) if made else out
    if x0 is not None:
        if made:
            x = _as_kind_of(b, x)
            made = False
        x[...] = x0
    converged, iterations, residual, history = _core.cg(a, b, x, tol, max_iterations)
    info = {"iterations": iterations, "residual_norm": residual, "residual_history": history}
    if not converged:
        raise NotConvergedError(
            f"kernwerk.cg: no convergence in {iterations} steps: ||r|| / ||b|| = {residual:g} "
            f"> tol {tol:g}", info)
    return (_as_kind_of(b, x) if made else x), info


_QR_IMPLEMENTATIONS = ("auto", "generic", "vendor")


def _matrix(function, array, name):
    where, shape, dtype = _info(function, array, name)
    if len(shape) != 2:
        _fail(function, name, f"must be 2-D, got {len(shape)}-D")
    return where, shape, dtype


def qr(a, mode="reduced", implementation="auto", out=None):
    """a = q r for a 2-D float32 or float64 array a (m, n) with m >= n, as numpy.linalg.qr.

    mode: "reduced" (q (m, n), r (n, n)) or "complete" (q (m, m), r (m, n)).
    implementation: "auto", "vendor" (LAPACK on the host, cuSOLVER on CUDA) or "generic"
        (Kernwerk's blocked Householder QR on Kokkos).
    out: (q, r) to write into.

    Returns (q, r); r is upper triangular with a non-negative diagonal (NumPy's signs may
    differ by column of q and row of r). A non-finite value in a is a ValueError naming a.
    """
    fn = "qr"
    _choice(fn, "mode", mode, ("reduced", "complete"))
    _choice(fn, "implementation", implementation, _QR_IMPLEMENTATIONS)
    pair = _output_pair(fn, out)
    if pair is None:
        where, (m, n), dtype = _matrix(fn, a, "a")
        k = m if mode == "complete" else n
        pair = (_new_result(where, (m, k), dtype), _new_result(where, (k, n), dtype))
    _core.qr(a, pair[0], pair[1], mode, implementation)
    return pair if out is not None else tuple(_as_kind_of(a, p) for p in pair)


def qr_factor(a, implementation="auto", out=None):
    """LAPACK's factored form of a (m, n), m >= n (as numpy.linalg.qr(a, mode="raw") without
    its transposes): factors (m, n) holds r on and above the diagonal and the Householder
    vectors below it, tau (n,) their scalars. out: (factors, tau); factors may be a itself.

    Returns (factors, tau), for apply_q and solve_least_squares' ways of using q.
    """
    fn = "qr_factor"
    _choice(fn, "implementation", implementation, _QR_IMPLEMENTATIONS)
    pair = _output_pair(fn, out)
    if pair is None:
        where, (m, n), dtype = _matrix(fn, a, "a")
        pair = (_new_result(where, (m, n), dtype), _new_result(where, (n,), dtype))
    _core.qr_factor(a, pair[0], pair[1], implementation)
    return pair if out is not None else tuple(_as_kind_of(a, p) for p in pair)


def apply_q(factors, tau, c, transpose=True, implementation="auto"):
    """c = q^T c (transpose=True) or q c in place, for the q of qr_factor's (factors, tau);
    c is (m,) or (m, k) and writable. Returns c."""
    fn = "apply_q"
    _choice(fn, "implementation", implementation, _QR_IMPLEMENTATIONS)
    _core.apply_q(factors, tau, c, bool(transpose), implementation)
    return c


def solve_least_squares(a, b, implementation="auto", out=None):
    """The x minimising ||a x - b|| for a (m, n) of full column rank (m >= n), through QR, as
    numpy.linalg.lstsq(a, b)[0]; b is (m,) or (m, k), x (n,) or (n, k). A zero on r's
    diagonal is a ValueError naming a. Returns x (or out)."""
    fn = "solve_least_squares"
    _choice(fn, "implementation", implementation, _QR_IMPLEMENTATIONS)
    x = out
    if x is None:
        where, (m, n), dtype = _matrix(fn, a, "a")
        _, b_shape, _ = _info(fn, b, "b")
        x = _new_result(where, (n,) + tuple(b_shape[1:]), dtype)
    _core.solve_least_squares(a, b, x, implementation)
    return x if out is not None else _as_kind_of(a, x)


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_REAL_OF = {"complex64": "float32", "complex128": "float64"}


def _contiguous(x):
    """x, or a C-contiguous copy of it from its own library (NumPy, CuPy, PyTorch)."""
    library = _library_of(x)
    if library == "numpy":
        import numpy
        return numpy.ascontiguousarray(x)
    if library == "cupy":
        import cupy
        return cupy.ascontiguousarray(x)
    if library == "torch":
        return x.contiguous()
    return x


def _transform(fn, x, out, plane, inverse, real, norm, n=None):
    """The transforms' shared part: checks, the result's shape and dtype, the call."""
    if norm is None:
        norm = "backward"
    _choice(fn, "norm", norm, ("backward", "ortho", "forward"))
    x = _contiguous(x)
    where, shape, dtype = _info(fn, x, "x")
    if plane and len(shape) != 2:
        _fail(fn, "x", f"must be 2-D, got {len(shape)}-D")
    if not shape or len(shape) > 2:
        _fail(fn, "x", f"must be 1-D or 2-D, got {len(shape)}-D")
    takes_complex = not real or inverse
    if takes_complex and dtype not in _REAL_OF:
        _fail(fn, "x", f"must be complex64 or complex128, got {dtype}" +
              ("" if real else " (rfft transforms real values)"))
    if not takes_complex and dtype not in _COMPLEX_OF:
        _fail(fn, "x", f"must be float32 or float64, got {dtype}")
    length = shape[-1]
    out_shape, out_dtype = tuple(shape), dtype
    if real and not inverse:
        out_shape, out_dtype = shape[:-1] + (length // 2 + 1,), _COMPLEX_OF[dtype]
    elif real:
        length = 2 * (shape[-1] - 1) if n is None else _integer(fn, "n", n, 1)
        if length // 2 + 1 != shape[-1]:
            _fail(fn, "n", f"{length} has a half spectrum of {length // 2 + 1} values, but x's last "
                  f"axis has {shape[-1]}")
        out_shape, out_dtype = shape[:-1] + (length,), _REAL_OF[dtype]
    made = out is None
    if made:
        out = _new_result(where, out_shape, out_dtype)
    form = "plane" if plane else ("line" if len(shape) == 1 else "lines")
    _core.fft(fn, x, out, form, bool(inverse), bool(real), norm, length)
    return _as_kind_of(x, out) if made else out


_FFT_NOTES = """
    The transform runs along x's last axis (fft, ifft, rfft and irfft: along `axis`, of an
    array of any rank), contiguous in memory: a NumPy, CuPy or PyTorch x that is not
    C-contiguous is copied into one that is first (out must be). norm is
    NumPy's: "backward" (the default: the inverse scaled by 1/n), "ortho" or "forward". out
    (optional) receives the result; for complex transforms it may be x itself. Plans (FFTW on
    the host, cuFFT on CUDA) are kept for repeated calls of a shape. A NaN or an infinity in x
    propagates, as in numpy.fft: the outputs of the transform that holds it (its line; the
    whole array of a 2-D transform) are NaN or infinite (irfft, as numpy's, ignores the
    imaginary parts of the first and, for an even n, last values of its half spectrum).
"""


def _along_axis(fn, x, axis, length, complex_input, transform, out):
    """NumPy's n= and axis= over the transforms of lines: x cropped or padded with zeros to
    `length` values along `axis` (None: as it is), real values turned complex where the
    transform takes complex ones (complex_input), integers float64, then the axis moved last and
    the lines transformed (transform(lines, out)), and the result's axis moved back. Arrays that
    need none of this go to the transform as they are."""
    x = _as_values(x)  # lists through NumPy, integers as float64
    library = _library_of(x)
    if library not in ("numpy", "cupy", "torch"):
        if length is not None or axis != -1:
            _fail(fn, "x", "n= and axis= take NumPy, CuPy or PyTorch arrays")
        return transform(x, out)
    if library == "torch":
        import torch
        module = torch
        kind = "c" if x.is_complex() else "f" if x.is_floating_point() else "i"
        single = x.dtype in (torch.float32, torch.complex64)
    else:
        module = __import__(library)
        kind = {"c": "c", "f": "f"}.get(x.dtype.kind, "i")
        single = x.dtype in (module.float32, module.complex64)
    if kind == "i":  # booleans
        x = _astype(x, "float64")
        kind, single = "f", False
    if complex_input and kind == "f":
        x = x.to(module.complex64 if single else module.complex128) if library == "torch" else \
            x.astype("complex64" if single else "complex128")
    rank = len(x.shape)
    if rank == 0:
        _fail(fn, "x", "must have at least one axis, got a scalar")
    axis = _integer(fn, "axis", axis, -rank, rank - 1) % rank
    moved = axis != rank - 1
    if moved:
        x = module.movedim(x, axis, -1) if library == "torch" else module.moveaxis(x, axis, -1)
    if length is not None and length != x.shape[-1]:
        kept = min(length, x.shape[-1])
        padded = (module.zeros(tuple(x.shape[:-1]) + (length,), dtype=x.dtype, device=x.device)
                  if library == "torch" else module.zeros(tuple(x.shape[:-1]) + (length,), dtype=x.dtype))
        padded[..., :kept] = x[..., :kept]
        x = padded
    lead = tuple(x.shape[:-1])
    if len(lead) > 1:  # more than 2-D: the lines of every leading index
        x = x.reshape((-1, x.shape[-1]))
    if not moved and len(lead) <= 1:
        return transform(x, out)
    result = transform(x, None)
    result = result.reshape(lead + (result.shape[-1],))
    if moved:
        result = module.movedim(result, -1, axis) if library == "torch" else module.moveaxis(result, -1, axis)
    if out is None:
        return result
    if not hasattr(out, "shape") or tuple(out.shape) != tuple(result.shape) or out.dtype != result.dtype:
        _fail(fn, "out", f"must be an array of the result's shape {tuple(result.shape)} and dtype "
              f"{result.dtype}, got {getattr(out, 'shape', type(out))} {getattr(out, 'dtype', '')}")
    out[...] = result
    return out


def _lines(fn, x, n, axis, norm, out, inverse, real):
    """fft, ifft, rfft and irfft: NumPy's arguments over the transforms of lines."""
    if n is not None:
        n = _integer(fn, "n", n, 1)
    if real and inverse:  # n: the output's length; the input cropped or padded to n // 2 + 1
        return _along_axis(fn, x, axis, None if n is None else n // 2 + 1, True,
                           lambda lines, into: _transform(fn, lines, into, False, True, True, norm, n), out)
    return _along_axis(fn, x, axis, n, not real,
                       lambda lines, into: _transform(fn, lines, into, False, inverse, real, norm), out)


def fft(x, n=None, axis=-1, norm=None, out=None):
    """The discrete Fourier transform along one axis (numpy.fft.fft): of complex x, or of real
    or integer x taken as complex; n values along the axis (x cropped or padded with zeros;
    None: as many as x has)."""
    return _lines("fft", x, n, axis, norm, out, False, False)


def ifft(x, n=None, axis=-1, norm=None, out=None):
    """The inverse of fft (numpy.fft.ifft)."""
    return _lines("ifft", x, n, axis, norm, out, True, False)


def rfft(x, n=None, axis=-1, norm=None, out=None):
    """The half spectrum (n // 2 + 1 values along the axis) of real x (numpy.fft.rfft); n values
    taken along the axis (cropped or padded with zeros; None: as many as x has)."""
    return _lines("rfft", x, n, axis, norm, out, False, True)


def irfft(x, n=None, axis=-1, norm=None, out=None):
    """The real signal of n values (default 2 (m - 1)) whose half spectrum is x along the axis,
    cropped or padded with zeros to n // 2 + 1 values (numpy.fft.irfft)."""
    return _lines("irfft", x, n, axis, norm, out, True, True)


def fft2(x, norm=None, out=None):
    """The 2-D transform of a complex 2-D array (numpy.fft.fft2)."""
    return _transform("fft2", x, out, True, False, False, norm)


def ifft2(x, norm=None, out=None):
    """The inverse of fft2 (numpy.fft.ifft2)."""
    return _transform("ifft2", x, out, True, True, False, norm)


def rfft2(x, norm=None, out=None):
    """The 2-D transform of real x, halved along the last axis (numpy.fft.rfft2)."""
    return _transform("rfft2", x, out, True, False, True, norm)


def irfft2(x, n=None, norm=None, out=None):
    """The inverse of rfft2, with n values along the last axis (default 2 (m - 1))
    (numpy.fft.irfft2 with s=(rows, n))."""
    return _transform("irfft2", x, out, True, True, True, norm, n)


for _function in (fft, ifft, rfft, irfft, fft2, ifft2, rfft2, irfft2):
    _function.__doc__ += "\n" + _FFT_NOTES
del _function
