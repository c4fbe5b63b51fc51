"""kernwerk from Python on NumPy arrays, against NumPy float64 references."""
import math

import numpy as np
import pytest

import kernwerk as kw

from references import haversine_matrix, check_neighbours, sphere_points, diffuse_reference

RNG = np.random.default_rng(20261125)


# ---- nearest --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("k", [1, 3, 32])
@pytest.mark.parametrize("method", ["auto", "brute", "indexed"])
def test_nearest_uniform(dtype, k, method):
    obs, ref = sphere_points(RNG, 700, dtype), sphere_points(RNG, 400, dtype)
    indices, distances = kw.nearest(obs, ref, k=k, method=method)
    assert isinstance(indices, np.ndarray) and indices.dtype == np.int64
    assert distances.dtype == np.dtype(dtype) and indices.shape == distances.shape == (700, k)
    check_neighbours(obs, ref, indices, distances, k)


def test_nearest_adversarial_layouts():
    """Poles, the date line, antipodes and duplicates (ties go to the smallest index)."""
    ref = np.array([[math.pi / 2, 0.0], [-math.pi / 2, 1.0], [0.0, math.pi], [0.0, -math.pi],
                    [0.3, 0.2], [0.3, 0.2], [0.0, 0.0], [0.3, 0.2]])
    obs = np.array([[math.pi / 2, 2.0], [-math.pi / 2, -3.0], [0.0, math.pi - 1e-9],
                    [0.0, -math.pi + 1e-9], [0.3, 0.2], [0.0, 0.0], [-0.3, 0.2 - math.pi]])
    indices, distances = kw.nearest(obs, ref, k=3)
    check_neighbours(obs, ref, indices, distances, 3)
    # the duplicated point 4 = 5 = 7: its copies in index order
    assert list(indices[4]) == [4, 5, 7]
    assert indices[0, 0] == 0 and indices[1, 0] == 1


def test_nearest_clustered_and_single_reference():
    centre = np.array([0.7, -2.0])
    ref = centre + RNG.normal(scale=1e-4, size=(500, 2))
    obs = np.vstack([centre + RNG.normal(scale=1e-3, size=(300, 2)), sphere_points(RNG, 50)])
    indices, distances = kw.nearest(obs, ref, k=8)
    check_neighbours(obs, ref, indices, distances, 8)
    one = kw.nearest(obs, ref[:1])
    assert (one[0] == 0).all()
    assert np.allclose(one[1][:, 0], haversine_matrix(obs, ref[:1])[:, 0], rtol=1e-12, atol=1e-15)


def test_nearest_degrees_radius_and_strided_inputs():
    obs, ref = sphere_points(RNG, 300), sphere_points(RNG, 200)
    radians = kw.nearest(obs, ref, k=2)
    wide = np.zeros((600, 5))
    wide[::2, 3:] = np.degrees(obs)  # strided rows, columns at an offset
    fortran = np.asfortranarray(np.degrees(ref))
    degrees = kw.nearest(wide[::2, 3:], fortran, k=2, degrees=True, radius=6371.0)
    assert (degrees[0] == radians[0]).all()
    assert np.allclose(degrees[1], 6371.0 * radians[1], rtol=1e-12)


def test_nearest_euclidean():
    for dimension in (2, 3):
        obs, ref = RNG.uniform(-5, 5, (400, dimension)), RNG.uniform(-5, 5, (300, dimension))
        indices, distances = kw.nearest(obs, ref, k=4, metric="euclidean")
        true = np.sqrt(((obs[:, None, :] - ref[None, :, :]) ** 2).sum(-1))
        best = np.sort(true, axis=1)[:, :4]
        assert np.allclose(distances, best, rtol=1e-12, atol=1e-14)
        assert np.allclose(np.take_along_axis(true, indices, 1), best, rtol=1e-12, atol=1e-14)


def test_nearest_out_arrays_are_written_in_place():
    obs, ref = sphere_points(RNG, 100), sphere_points(RNG, 50)
    indices, distances = np.full((100, 2), -1, np.int64), np.full((100, 2), -1.0)
    returned = kw.nearest(obs, ref, k=2, out=(indices, distances))
    assert returned[0] is indices and returned[1] is distances
    check_neighbours(obs, ref, indices, distances, 2)


def test_nearest_out_beside_a_strided_input_in_one_allocation():
    block = np.arange(24) * 0.01
    obs = block[:20].reshape(2, 10)[:, 3:5]  # elements 3, 4, 13, 14
    ref = np.array([[0.5, 0.5], [0.1, 0.5], [0.5, 0.1]])
    indices = np.zeros((2, 1), np.int64)
    kw.nearest(obs, ref, out=(indices, block[15:17].reshape(2, 1)))  # right after obs' last
    check_neighbours(obs, ref, indices, block[15:17].reshape(2, 1), 1)
    with pytest.raises(ValueError, match=r"out\[1\]: shares memory with obs"):
        kw.nearest(obs, ref, out=(indices, block[13:15].reshape(2, 1)))


def test_nearest_list_input_and_generic_implementation():
    obs, ref = [[0.1, 0.2], [0.5, -1.0]], [[0.1, 0.25], [0.4, -1.0], [-1.0, 3.0]]
    for implementation in ("generic", "auto"):
        indices, _ = kw.nearest(obs, ref, implementation=implementation)
        assert list(indices[:, 0]) == [0, 1]


def test_nearest_k_above_32_matches_numpy():
    obs, ref = sphere_points(RNG, 120), sphere_points(RNG, 300)
    ref[7] = ref[8] = ref[9]  # equal distances: the smaller index first
    for k in (33, 100, 300):
        for method in ("brute", "indexed"):
            indices, distances = kw.nearest(obs, ref, k=k, method=method)
            check_neighbours(obs, ref, indices, distances, k)
            for row in indices.tolist():  # of the three, the smaller indices first
                tied = [j for j in row if j in (7, 8, 9)]
                assert tied == [7, 8, 9][:len(tied)]
    index = kw.Index(ref)
    distances, indices = index.query(obs, k=64)
    check_neighbours(obs, ref, indices, distances, 64)
    distances, indices = index.query(k=299)  # itself left out: every other point
    assert all(set(row) == set(range(300)) - {r} for r, row in enumerate(indices.tolist()))
    assert (np.diff(distances, axis=1) >= 0).all()


@pytest.mark.parametrize("call, argument", [
    (lambda o, r: kw.nearest(o, r, k=0), "k"),
    (lambda o, r: kw.nearest(o, r, k=33), "k"),
    (lambda o, r: kw.nearest(o, r[:2], k=3), "k"),
    (lambda o, r: kw.nearest(o, r, k=1.5), "k"),
    (lambda o, r: kw.nearest(o, r, metric="manhattan"), "metric"),
    (lambda o, r: kw.nearest(o, r, method="tree"), "method"),
    (lambda o, r: kw.nearest(o, r, radius=-1.0), "radius"),
    (lambda o, r: kw.nearest(o, r, radius="far"), "radius"),
    (lambda o, r: kw.nearest(o[:, :1], r), "obs"),
    (lambda o, r: kw.nearest(o, r[:0]), "k"),
    (lambda o, r: kw.nearest(o.astype(bool), r), "obs"),
    (lambda o, r: kw.nearest(o[:0], r[:, :1]), "ref"),
    (lambda o, r: kw.nearest(o[:0, :1], r), "obs"),
    (lambda o, r: kw.nearest(o.ravel(), r), "obs"),
    (lambda o, r: kw.nearest(np.where(np.arange(len(o))[:, None] == 3, np.nan, o), r), "obs"),
    (lambda o, r: kw.nearest(o + np.array([2.0, 0.0]), r), "obs"),
    (lambda o, r: kw.nearest(o, r, degrees=True, metric="euclidean"), "degrees"),
    (lambda o, r: kw.nearest(o, r, out=np.zeros((10, 1))), "out"),
    (lambda o, r: kw.nearest(o, r, out=(np.zeros((10, 1)), np.zeros((10, 1)))), "out[0]"),
    (lambda o, r: kw.nearest(o, r, out=(np.zeros((5, 1), np.int64), np.zeros((10, 1)))), "out[0]"),
])
def test_nearest_bad_arguments_name_them(call, argument):
    obs, ref = sphere_points(RNG, 10), sphere_points(RNG, 20)
    with pytest.raises(ValueError, match=rf"kernwerk\.nearest: {argument.replace('[', '.').replace(']', '.')}: "):
        call(obs, ref)


def test_nearest_writes_nothing_on_error():
    obs, ref = sphere_points(RNG, 10), sphere_points(RNG, 20)
    obs[7, 0] = 3.0  # latitude out of range
    indices, distances = np.full((10, 1), -7, np.int64), np.full((10, 1), -7.0)
    with pytest.raises(ValueError, match="obs"):
        kw.nearest(obs, ref, out=(indices, distances))
    assert (indices == -7).all() and (distances == -7.0).all()


def test_nearest_read_only_and_aliased_outputs():
    obs, ref = sphere_points(RNG, 10), sphere_points(RNG, 20)
    indices, distances = np.zeros((10, 1), np.int64), np.zeros((10, 1))
    distances.flags.writeable = False
    with pytest.raises(ValueError, match=r"out.1.: is read-only"):
        kw.nearest(obs, ref, out=(indices, distances))
    with pytest.raises(ValueError, match=r"shares memory"):
        kw.nearest(obs, ref, out=(indices, obs[:, :1]))


# ---- radius search and DBSCAN -------------------------------------------------------------------

def _moons(random, count, noise):
    t = random.uniform(0, np.pi, count)
    first = np.arange(count) % 2 == 0
    x = np.where(first, np.cos(t), 1 - np.cos(t))
    y = np.where(first, np.sin(t), 0.5 - np.sin(t))
    return np.column_stack([x, y]) + random.normal(scale=noise, size=(count, 2))


def test_point_sets_as_numpy_users_pass_them():
    """A reversed axis (the (lon, lat) columns swapped back), integers, float32 beside float64,
    and no queries at all, each against the float64 brute force on the values as given."""
    obs, ref = sphere_points(RNG, 200), sphere_points(RNG, 300)
    lon_lat = np.ascontiguousarray(obs[:, ::-1])
    indices, distances = kw.nearest(lon_lat[:, ::-1], ref[::-1], k=3)  # negative strides
    check_neighbours(obs, ref[::-1], indices, distances, 3)
    whole_obs = RNG.integers(-89, 90, size=(50, 2))  # integer degrees
    whole_ref = RNG.integers(-89, 90, size=(80, 2)).astype(np.int32)
    indices, distances = kw.nearest(whole_obs, whole_ref, k=4, degrees=True)
    assert distances.dtype == np.float64
    check_neighbours(np.radians(whole_obs), np.radians(whole_ref.astype(np.float64)), indices, distances, 4)
    single = ref.astype(np.float32)
    indices, distances = kw.nearest(obs, single, k=2)  # promoted: float64 answers
    assert distances.dtype == np.float64
    check_neighbours(obs, single.astype(np.float64), indices, distances, 2)
    indices, distances = kw.nearest(obs[:0], ref, k=5)
    assert indices.shape == distances.shape == (0, 5) and indices.dtype == np.int64
    offsets, found, near = kw.within(lon_lat[:, ::-1], single, 0.2)
    true = haversine_matrix(obs, single.astype(np.float64))
    assert (np.diff(offsets) == (true <= 0.2).sum(1)).all() and near.dtype == np.float64
    assert (kw.count_within(whole_obs, whole_ref, 0.3, degrees=True) ==
            (haversine_matrix(np.radians(whole_obs), np.radians(whole_ref.astype(float))) <= 0.3).sum(1)).all()
    index = kw.Index(ref)
    distances, indices = index.query(single[:40][::-1], k=2)  # float32, reversed: as float64
    check_neighbours(single[:40][::-1].astype(np.float64), ref, indices, distances, 2)
    distances, indices = index.query(obs[:0], k=2)
    assert distances.shape == (0, 2)
    plane = RNG.integers(0, 50, size=(300, 2))  # planar integer points
    labels = kw.dbscan(plane, 3.0, 4, metric="euclidean")
    assert (labels == kw.dbscan(plane.astype(np.float64), 3.0, 4, metric="euclidean")).all()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_within_and_count_within_against_the_brute_force(dtype):
    queries, points = sphere_points(RNG, 300, dtype), sphere_points(RNG, 900, dtype)
    points[10] = points[3]  # a copy: equal distances, the smaller index first
    queries[0] = points[3]
    offsets, indices, distances = kw.within(queries, points, 0.15)
    assert offsets.dtype == indices.dtype == np.int64 and distances.dtype == np.dtype(dtype)
    true = haversine_matrix(queries, points)
    margin = 1e-6 if dtype == "float32" else 1e-12
    for i in range(len(queries)):
        row = indices[offsets[i]:offsets[i + 1]]
        assert set(np.flatnonzero(true[i] <= 0.15 - margin)) <= set(row.tolist())
        assert set(row.tolist()) <= set(np.flatnonzero(true[i] <= 0.15 + margin))
        assert np.allclose(distances[offsets[i]:offsets[i + 1]], true[i, row], rtol=margin, atol=margin)
        assert (np.diff(distances[offsets[i]:offsets[i + 1]]) >= 0).all()
    assert list(indices[offsets[0]:offsets[0] + 2]) == [3, 10]
    counts = kw.count_within(queries, points, 0.15)
    assert (counts == np.diff(offsets)).all()
    only = kw.within(queries, points, 0.15, distances=False)
    assert len(only) == 2 and (only[1] == indices).all()
    for with_distances in (True, False):  # rows in any order: the same neighbours at their distances
        unsorted = kw.within(queries, points, 0.15, distances=with_distances, sort_results=False)
        assert len(unsorted) == 2 + with_distances and (unsorted[0] == offsets).all()
        for i in range(len(queries)):
            row = unsorted[1][offsets[i]:offsets[i + 1]]
            assert sorted(row.tolist()) == sorted(indices[offsets[i]:offsets[i + 1]].tolist())
            if with_distances:
                assert np.allclose(unsorted[2][offsets[i]:offsets[i + 1]], true[i, row], rtol=margin, atol=margin)
    km = kw.within(np.degrees(queries), np.degrees(points), 0.15 * 6371.0, degrees=True, radius=6371.0)
    assert (km[0] == offsets).all()


def test_within_euclidean_and_empty_sets():
    points = RNG.uniform(-1, 1, size=(500, 3))
    offsets, indices, distances = kw.within(points[:40], points, 0.3, metric="euclidean")
    true = np.linalg.norm(points[:40, None, :] - points[None, :, :], axis=2)
    for i in range(40):
        assert sorted(indices[offsets[i]:offsets[i + 1]]) == list(np.flatnonzero(true[i] <= 0.3))
    none = kw.within(points[:0], points, 0.3, metric="euclidean")
    assert list(none[0]) == [0] and len(none[1]) == 0
    empty = kw.within(points[:5], points[:0], 0.3, metric="euclidean")
    assert (empty[0] == 0).all() and len(empty[1]) == 0


def test_dbscan_matches_scikit_learn():
    cluster = pytest.importorskip("sklearn.cluster")
    points = _moons(RNG, 3000, 0.06)
    fitted = cluster.DBSCAN(eps=0.08, min_samples=5).fit(points)
    expected = fitted.labels_
    labels = kw.dbscan(points, 0.08, 5, metric="euclidean", border="first-cluster")
    assert labels.dtype == np.int64 and (labels == expected).all()
    nearest = kw.dbscan(points, 0.08, 5, metric="euclidean")
    core = fitted.core_sample_indices_
    assert (nearest[core] == expected[core]).all() and ((nearest == -1) == (expected == -1)).all()
    out = np.full(3000, 7, dtype=np.int64)
    assert kw.dbscan(points, 0.08, 5, metric="euclidean", out=out) is out and (out == nearest).all()


@pytest.mark.parametrize("call, argument", [
    (lambda p: kw.within(p, p, -1.0, metric="euclidean"), "distance"),
    (lambda p: kw.within(p, p, 0.1, metric="taxicab"), "metric"),
    (lambda p: kw.within(p, p[:, :1], 0.1, metric="euclidean"), "points"),
    (lambda p: kw.count_within(p, p, 0.1, metric="euclidean", out=np.zeros(3, np.int64)), "out"),
    (lambda p: kw.dbscan(p, 0.1, 0, metric="euclidean"), "min_samples"),
    (lambda p: kw.dbscan(p, float("nan"), 5, metric="euclidean"), "eps"),
    (lambda p: kw.dbscan(p, 0.1, 5, metric="euclidean", border="sklearn"), "border"),
    (lambda p: kw.dbscan(p, 0.1, 5, metric="euclidean", out=np.zeros(100, np.int32)), "out"),
    (lambda p: kw.dbscan(p, 0.1, 5), "points"),
])
def test_neighbourhood_bad_arguments_name_them(call, argument):
    points = RNG.uniform(-1, 1, size=(100, 2)) * 3
    with pytest.raises(ValueError, match=f"^kernwerk\\.[a-z_]+: {argument}: "):
        call(points)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_index_queries_answer_as_the_free_functions(dtype):
    points, queries = sphere_points(RNG, 2000, dtype), sphere_points(RNG, 300, dtype)
    points[7] = points[2]  # a copy: the smaller index first
    queries[0] = points[2]
    index = kw.Index(points)
    assert len(index) == 2000 and index.m == 2
    for k in (1, 5, 32):
        distances, indices = index.query(queries, k)
        check_neighbours(queries, points, indices, distances, k)
        expected = kw.nearest(queries, points, k, method="indexed")
        assert (indices == expected[0]).all() and (distances == expected[1]).all()
    assert list(index.query(queries, 2)[1][0]) == [2, 7]
    offsets, found, found_distances = index.query_radius(queries, 0.1)
    expected = kw.within(queries, points, 0.1)
    assert (offsets == expected[0]).all() and (found == expected[1]).all()
    assert (found_distances == expected[2]).all() and found_distances.dtype == np.dtype(dtype)
    assert (index.query_radius(queries, 0.1, count_only=True) == np.diff(offsets)).all()
    assert len(index.query_radius(queries, 0.1, return_distance=False)) == 2
    unsorted = index.query_radius(queries, 0.1, sort_results=False)
    assert (unsorted[0] == offsets).all()
    for i in range(len(queries)):
        order = np.argsort(unsorted[1][offsets[i]:offsets[i + 1]])
        assert (unsorted[1][offsets[i]:offsets[i + 1]][order] == np.sort(found[offsets[i]:offsets[i + 1]])).all()
        by_index = np.argsort(found[offsets[i]:offsets[i + 1]])
        assert (unsorted[2][offsets[i]:offsets[i + 1]][order] == found_distances[offsets[i]:offsets[i + 1]][by_index]).all()
    out = np.full(300, -1, np.int64)
    assert index.query_radius(queries, 0.1, count_only=True, out=out) is out and (out == np.diff(offsets)).all()
    degrees = kw.Index(np.degrees(points), degrees=True, radius=6371.0)
    assert (degrees.query(np.degrees(queries), 3)[1] == index.query(queries, 3)[1]).all()


def test_index_euclidean_against_numpy_and_empty():
    points = np.round(RNG.uniform(-5, 5, size=(800, 3)), 1)  # a coarse grid: many exact ties
    queries = np.round(RNG.uniform(-5, 5, size=(200, 3)), 1)
    index = kw.Index(points, metric="euclidean")
    distances, indices = index.query(queries, 4)
    true = np.linalg.norm(queries[:, None, :] - points[None, :, :], axis=2)
    order = np.argsort(true, axis=1, kind="stable")[:, :4]  # ties by index
    assert (np.take_along_axis(true, indices, 1) <= np.take_along_axis(true, order, 1) + 1e-12).all()
    assert np.allclose(distances, np.take_along_axis(true, indices, 1), rtol=1e-12, atol=0)
    counts = index.query_radius(queries, 1.0, count_only=True)
    assert (counts == (true <= 1.0).sum(axis=1)).all()
    planar = kw.Index(points[:, :2].copy(), metric="euclidean")
    assert planar.m == 2 and len(planar.query(queries[:, :2].copy(), 1)[1]) == 200
    empty = kw.Index(points[:0], metric="euclidean")
    assert len(empty) == 0
    assert (empty.query_radius(queries, 1.0, count_only=True) == 0).all()


def test_index_self_query_bound_and_indices_alone():
    """x=None (each point leaves itself out, its copies stay), distance_upper_bound (SciPy's
    marks past it), return_distance=False, against NumPy's float64 brute force."""
    points = sphere_points(RNG, 400)
    points[5] = points[2]  # a copy: each finds the other first, at distance 0
    index = kw.Index(points)
    true = haversine_matrix(points, points)
    np.fill_diagonal(true, np.inf)
    distances, indices = index.query(k=4)
    rows = np.arange(400)[:, None]
    assert indices.shape == (400, 4) and (indices != rows).all()
    assert np.allclose(distances, np.sort(true, axis=1)[:, :4], rtol=1e-12, atol=1e-15)
    assert np.allclose(true[rows, indices], distances, rtol=1e-12, atol=1e-15)
    assert indices[5, 0] == 2 and indices[2, 0] == 5 and distances[2, 0] == 0
    alone = index.query(k=4, return_distance=False)
    assert (alone == indices).all()
    queries = sphere_points(RNG, 50)
    plain_d, plain_i = index.query(queries, k=6)
    bound = float(np.median(plain_d))
    bounded_d, bounded_i = index.query(queries, k=6, distance_upper_bound=bound)
    far = plain_d > bound
    assert far.any() and (~far).any()
    assert (bounded_i[far] == 400).all() and np.isinf(bounded_d[far]).all()
    assert (bounded_i[~far] == plain_i[~far]).all() and (bounded_d[~far] == plain_d[~far]).all()
    out = (np.zeros((400, 2)), np.zeros((400, 2), np.int64))
    written = index.query(k=2, out=out)
    assert written[0] is out[0] and written[1] is out[1] and (out[1] == indices[:, :2]).all()
    with pytest.raises(ValueError, match="kernwerk.Index.query: k: "):
        kw.Index(points[:3]).query(k=3)


@pytest.mark.parametrize("call, argument", [
    (lambda p, i: kw.Index(p, metric="taxicab"), "metric"),
    (lambda p, i: kw.Index(p[:, :1]), "points"),
    (lambda p, i: kw.Index(p, radius=-1.0), "radius"),
    (lambda p, i: kw.Index(p.astype(np.float32)).query(p), "x"),
    (lambda p, i: i.query(p[:0, :1]), "x"),
    (lambda p, i: i.query(p, 0), "k"),
    (lambda p, i: i.query(p, 101), "k"),
    (lambda p, i: i.query(np.full((2, 2), np.nan)), "x"),
    (lambda p, i: i.query_radius(p, -1.0), "r"),
    (lambda p, i: i.query_radius(p, 0.1, count_only=True, out=np.zeros(3, np.int64)), "out"),
])
def test_index_bad_arguments_name_them(call, argument):
    points = sphere_points(RNG, 100)
    index = kw.Index(points)
    with pytest.raises(ValueError, match=f"^kernwerk\\.Index[a-z_.]*: {argument}: "):
        call(points, index)


# ---- the other workloads ----------------------------------------------------------------------

@pytest.mark.parametrize("order", ["C", "F"])
def test_diffuse_in_place_with_laplacian(order):
    field = np.asarray(RNG.uniform(0, 1, (33, 47)), order=order)
    expected, expected_laplacian = diffuse_reference(field.copy(), 5, 0.2)
    result, laplacian = kw.diffuse(field, steps=5, coeff=0.2, laplacian=True)
    assert result is field
    assert np.allclose(field, expected, rtol=1e-13, atol=1e-14)
    assert np.allclose(laplacian, expected_laplacian, rtol=1e-13, atol=1e-14)
    single = field.astype(np.float32)
    kw.diffuse(single, steps=3)
    assert np.allclose(single, diffuse_reference(field.copy(), 3, 0.25)[0], rtol=1e-5, atol=1e-6)


def test_diffuse_bad_arguments():
    with pytest.raises(ValueError, match=r"kernwerk\.diffuse: steps: "):
        kw.diffuse(np.zeros((4, 4)), steps=-1)
    read_only = np.zeros((4, 4))
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match=r"kernwerk\.diffuse: field: is read-only"):
        kw.diffuse(read_only)
    with pytest.raises(ValueError, match=r"kernwerk\.diffuse: laplacian: "):
        kw.diffuse(np.zeros((4, 4)), laplacian=np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"kernwerk\.diffuse: coeff: "):
        kw.diffuse(np.zeros((4, 4)), coeff=float("nan"))


def test_integrate2d_against_closed_forms():
    assert abs(kw.integrate2d("sin(x + y)", 0, math.pi, 0, math.pi, 2000)) < 1e-12
    h = 1.0 / 400
    midpoints = (np.arange(400) + 0.5) * h
    gaussian = np.exp(-(midpoints[:, None] ** 2 + midpoints[None, :] ** 2)).sum() * h * h
    assert kw.integrate2d("exp(-(x^2+y^2))", 0, 1, 0, 1, 400) == pytest.approx(gaussian, rel=1e-13)
    assert kw.integrate2d("cos(x)*cos(y)", 0, 1, 0, 1, 1000, 1200) == pytest.approx(
        math.sin(1) ** 2, rel=1e-6)
    assert kw.integrate2d("x*y", 0, 1, 0, 2, 10, 20) == pytest.approx(1.0, rel=1e-14)
    assert set(kw.integrands()) >= {"sin(x+y)", "x*y"}
    with pytest.raises(ValueError, match=r"kernwerk\.integrate2d: f: "):
        kw.integrate2d(math.sin, 0, 1, 0, 1, 10)
    with pytest.raises(ValueError, match=r"kernwerk\.integrate2d: f: 'tan\(x\)' is not one of"):
        kw.integrate2d("tan(x)", 0, 1, 0, 1, 10)
    with pytest.raises(ValueError, match=r"kernwerk\.integrate2d: x1: "):
        kw.integrate2d("x*y", 0, float("inf"), 0, 1, 10)
    with pytest.raises(ValueError, match=r"kernwerk\.integrate2d: n: "):
        kw.integrate2d("x*y", 0, 1, 0, 1, 0)


def test_reductions():
    x = RNG.normal(size=10001)
    y = RNG.normal(size=10001)
    assert kw.sum(x) == pytest.approx(math.fsum(x), rel=1e-15, abs=1e-12)
    assert kw.sum(x[::3]) == pytest.approx(math.fsum(x[::3]), rel=1e-15, abs=1e-12)
    assert kw.dot(x, y) == pytest.approx(math.fsum(x * y), rel=1e-13)
    assert kw.norm2(x.astype(np.float32)) == pytest.approx(
        math.sqrt(math.fsum(x.astype(np.float32).astype(np.float64) ** 2)), rel=1e-12)
    assert kw.sum(np.zeros(0)) == 0.0
    with pytest.raises(ValueError, match=r"kernwerk\.dot: y: "):
        kw.dot(x, y[:10])
    with pytest.raises(ValueError, match=r"x: must be 1-D"):
        kw.sum(np.zeros((2, 2)))


@pytest.mark.parametrize("dtype, tolerance", [("float64", 1e-12), ("float32", 1e-4)])
def test_gemm_and_matmul_colsum(dtype, tolerance):
    a = RNG.normal(size=(37, 21)).astype(dtype)
    b = np.asfortranarray(RNG.normal(size=(21, 15)).astype(dtype))
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(kw.gemm(a, b), exact, rtol=tolerance, atol=tolerance)
    c = np.ones((37, 15), dtype)
    returned = kw.gemm(a, b, c, alpha=2.0, beta=-1.0, implementation="generic")
    assert returned is c
    assert np.allclose(c, 2 * exact - 1, rtol=tolerance, atol=tolerance)
    assert np.allclose(kw.matmul_colsum(a, b), exact.sum(0), rtol=tolerance, atol=10 * tolerance)
    with pytest.raises(ValueError, match=r"kernwerk\.gemm: "):
        kw.gemm(a, b[:5])
    with pytest.raises(ValueError, match=r"kernwerk\.gemm: implementation: "):
        kw.gemm(a, b, implementation="fast")


class CSR:
    """What scipy.sparse.csr_matrix offers kernwerk.cg, built here from a dense matrix."""

    def __init__(self, dense, index_dtype):
        rows, columns = np.nonzero(dense)
        self.indptr = np.searchsorted(rows, np.arange(dense.shape[0] + 1)).astype(index_dtype)
        self.indices = columns.astype(index_dtype)
        self.data = dense[rows, columns]
        self.shape = dense.shape


def poisson_1d(n):
    return 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_cg_dense_and_csr(index_dtype):
    n = 60
    a = poisson_1d(n) + 0.1 * np.eye(n)
    b = RNG.normal(size=n)
    exact = np.linalg.solve(a, b)
    x, info = kw.cg(a, b, tol=1e-12)
    assert np.allclose(x, exact, rtol=1e-9, atol=1e-10)
    assert info["residual_norm"] <= 1e-12 and info["iterations"] >= 1
    assert len(info["residual_history"]) == info["iterations"] + 1
    x0 = exact + 1e-3
    x_csr, _ = kw.cg(CSR(a, index_dtype), b, x0=x0, tol=1e-12)
    assert np.allclose(x_csr, exact, rtol=1e-9, atol=1e-10)
    assert (x0 == exact + 1e-3).all()  # the guess is not modified
    out = np.zeros(n)
    returned, _ = kw.cg(a, b, out=out, tol=1e-12)
    assert returned is out and np.allclose(out, exact, rtol=1e-9, atol=1e-10)


def test_cg_failures():
    n = 40
    b = RNG.normal(size=n)
    with pytest.raises(kw.NotConvergedError) as caught:
        kw.cg(poisson_1d(n), b, tol=1e-14, max_iterations=3)
    assert caught.value.info["iterations"] == 3
    with pytest.raises(ValueError, match=r"kernwerk\.cg: a: is not positive definite"):
        kw.cg(-np.eye(n), b)
    with pytest.raises(ValueError, match=r"kernwerk\.cg: a: shape \(40, 40\) is not \(n, n\)"):
        kw.cg(np.eye(n), b[:5])
    bad = CSR(np.eye(n), np.int64)
    bad.indices = bad.indices.astype(np.int32)
    with pytest.raises(ValueError, match=r"kernwerk\.cg: a\.indices: "):
        kw.cg(bad, b)
    with pytest.raises(ValueError, match=r"kernwerk\.cg: tol: "):
        kw.cg(np.eye(n), b, tol=-1)


def test_device_arrays_are_refused_by_a_host_build():
    if kw.backend():
        pytest.skip("a GPU build")

    class FakeDeviceArray:
        __cuda_array_interface__ = {"shape": (3, 2), "typestr": "<f8", "data": (4096, False),
                                    "version": 3}

    with pytest.raises(ValueError, match=r"obs: is a GPU array, but this Kernwerk build has no GPU"):
        kw.nearest(FakeDeviceArray(), np.zeros((3, 2)))


# ---- QR and FFT ----------------------------------------------------------------------------

def _qr_checks(a, q, r, tolerance):
    """a = q r, q^T q = I, r upper triangular with a non-negative diagonal, |r| as NumPy's."""
    scale = max(np.linalg.norm(a), 1.0)
    assert np.linalg.norm(q @ r - a) <= tolerance * scale
    assert np.linalg.norm(q.T @ q - np.eye(q.shape[1])) <= tolerance * q.shape[1]
    assert np.all(np.tril(r, -1) == 0) and np.all(np.diag(r) >= 0)


@pytest.mark.parametrize("implementation", ["auto", "vendor", "generic"])
@pytest.mark.parametrize("shape", [(300, 70), (64, 64), (1, 1), (5000, 3)])
def test_qr_against_numpy(implementation, shape):
    a = RNG.normal(size=shape)
    q, r = kw.qr(a, implementation=implementation)
    assert q.shape == (shape[0], shape[1]) and r.shape == (shape[1], shape[1])
    _qr_checks(a, q, r, 1e-13)
    reference = np.linalg.qr(a)[1]
    assert np.allclose(np.abs(r), np.abs(reference), rtol=1e-10, atol=1e-12)
    qc, rc = kw.qr(a, mode="complete", implementation=implementation)
    assert qc.shape == (shape[0], shape[0]) and rc.shape == shape
    _qr_checks(a, qc, rc, 1e-13)


@pytest.mark.parametrize("implementation", ["vendor", "generic"])
def test_qr_of_hard_matrices(implementation):
    """Rank-deficient, Hilbert and Kahan matrices: q stays orthonormal and a = q r holds."""
    n = 40
    hilbert = 1.0 / (np.arange(n)[:, None] + np.arange(n)[None, :] + 1)
    theta = 1.2
    s, c = np.sin(theta), np.cos(theta)
    kahan = np.diag(s ** np.arange(n)) @ (np.eye(n) - c * np.triu(np.ones((n, n)), 1))
    low_rank = RNG.normal(size=(60, 5)) @ RNG.normal(size=(5, 30))
    duplicated = np.repeat(RNG.normal(size=(50, 1)), 8, axis=1)
    for a in (hilbert, kahan, low_rank, duplicated, np.zeros((6, 4))):
        q, r = kw.qr(a, implementation=implementation)
        _qr_checks(a, q, r, 1e-13)


def test_qr_float32_and_strided_input():
    a = RNG.normal(size=(200, 40))
    q, r = kw.qr(a.astype(np.float32))
    assert q.dtype == np.float32
    _qr_checks(a.astype(np.float32).astype(np.float64), q.astype(np.float64), r.astype(np.float64), 2e-5)
    q, r = kw.qr(np.asfortranarray(a)[::2])  # strided rows, column-major
    _qr_checks(a[::2], q, r, 1e-13)


def test_qr_factor_apply_q_and_least_squares():
    a, b = RNG.normal(size=(120, 17)), RNG.normal(size=(120, 3))
    factors, tau = kw.qr_factor(a)
    raw, raw_tau = np.linalg.qr(a, mode="raw")  # LAPACK's geqrf, transposed
    assert np.allclose(np.abs(np.triu(factors[:17])), np.abs(np.triu(raw.T[:17])), rtol=1e-10, atol=1e-12)
    assert tau.shape == raw_tau.shape == (17,)
    c = b.copy()
    kw.apply_q(factors, tau, c)
    kw.apply_q(factors, tau, c, transpose=False)
    assert np.allclose(c, b, rtol=0, atol=1e-13)
    expected = np.linalg.lstsq(a, b, rcond=None)[0]
    assert np.allclose(kw.solve_least_squares(a, b), expected, rtol=1e-11, atol=1e-12)
    assert np.allclose(kw.solve_least_squares(a, b[:, 0]), expected[:, 0], rtol=1e-11, atol=1e-12)
    same = a.copy()
    kw.qr_factor(same, out=(same, np.empty(17)))  # in place
    assert np.array_equal(same, factors)


def test_qr_tall_and_skinny():
    a = RNG.normal(size=(1 << 20, 16))
    q, r = kw.qr(a)
    _qr_checks(a, q, r, 1e-12)


def test_qr_failures_name_the_argument_and_write_nothing():
    a = RNG.normal(size=(30, 8))
    q, r = np.full((30, 8), 7.0), np.full((8, 8), 7.0)
    bad = a.copy()
    bad[3, 4] = np.inf
    for call, fragment in [(lambda: kw.qr(bad, out=(q, r)), "kernwerk.qr: a:"),
                           (lambda: kw.qr(a.T, out=(q.T, r)), "a: has fewer rows"),
                           (lambda: kw.qr(a, out=(q[:, :7], r)), "kernwerk.qr: q:"),
                           (lambda: kw.qr(a, out=(q, r[:7])), "kernwerk.qr: r:"),
                           (lambda: kw.qr(a, mode="raw"), "mode"),
                           (lambda: kw.qr(np.zeros((0, 0))), "a: is empty"),
                           (lambda: kw.qr(a, out=(q.astype(np.float32), r)), "q: is float32"),
                           (lambda: kw.solve_least_squares(np.zeros((5, 2)), np.ones(5)), "a:")]:
        with pytest.raises(ValueError, match=fragment):
            call()
    assert np.all(q == 7) and np.all(r == 7)


def _complex(shape, dtype=np.complex128):
    return (RNG.normal(size=shape) + 1j * RNG.normal(size=shape)).astype(dtype)


@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
@pytest.mark.parametrize("shape", [(1,), (97,), (1024,), (6, 40), (3, 1)])
def test_fft_against_numpy(norm, shape):
    x = _complex(shape)
    n = shape[-1]
    tolerance = 1e-15 * np.linalg.norm(x) * max(1, np.log2(n)) * 8
    assert np.linalg.norm(kw.fft(x, norm=norm) - np.fft.fft(x, norm=norm)) <= tolerance * np.sqrt(n)
    assert np.linalg.norm(kw.ifft(x, norm=norm) - np.fft.ifft(x, norm=norm)) <= tolerance * np.sqrt(n)
    real = RNG.normal(size=shape)
    assert np.allclose(kw.rfft(real, norm=norm), np.fft.rfft(real, norm=norm), rtol=1e-13, atol=1e-13)
    half = np.fft.rfft(real)
    for length in {n, max(1, 2 * (half.shape[-1] - 1))}:
        expected = np.fft.irfft(half, n=length, norm=norm)
        assert np.abs(kw.irfft(half, n=length, norm=norm) - expected).max() <= 1e-13 * np.abs(expected).max()


@pytest.mark.parametrize("shape", [(8, 8), (33, 20), (1, 7)])
def test_fft2_against_numpy(shape):
    x, real = _complex(shape), RNG.normal(size=shape)
    assert np.allclose(kw.fft2(x), np.fft.fft2(x), rtol=1e-13, atol=1e-12)
    assert np.allclose(kw.ifft2(x, norm="ortho"), np.fft.ifft2(x, norm="ortho"), rtol=1e-13, atol=1e-13)
    assert np.allclose(kw.rfft2(real), np.fft.rfft2(real), rtol=1e-13, atol=1e-12)
    half = np.fft.rfft2(real)
    assert np.allclose(kw.irfft2(half, n=shape[1]), np.fft.irfft2(half, s=shape), rtol=1e-13, atol=1e-13)


def test_fft_round_trips_parseval_float32_and_in_place():
    x = _complex((4, 4096))
    spectrum = kw.fft(x)
    assert np.allclose(kw.ifft(spectrum), x, rtol=0, atol=1e-14)
    # Parseval: sum |x|^2 = sum |X|^2 / n, per line
    assert np.allclose((np.abs(x) ** 2).sum(1), (np.abs(spectrum) ** 2).sum(1) / 4096, rtol=1e-13)
    single = x.astype(np.complex64)
    assert kw.fft(single).dtype == np.complex64
    assert np.allclose(kw.fft(single), np.fft.fft(x), rtol=0, atol=1e-3)
    assert kw.irfft(kw.rfft(x.real.astype(np.float32))).dtype == np.float32
    inplace = x.copy()
    assert kw.fft(inplace, out=inplace) is inplace
    assert np.allclose(inplace, np.fft.fft(x), rtol=1e-13, atol=1e-12)
    # a transposed (Fortran-ordered) input is copied to a contiguous one first
    assert np.allclose(kw.fft(x[:, :64].T), np.fft.fft(x[:, :64].T), rtol=1e-13, atol=1e-12)


def test_fft_propagates_nan_and_infinity_as_numpy():
    """A NaN or an infinity in a line makes that line's outputs non-finite, as numpy.fft's; the
    other lines are those of numpy.fft."""
    x = _complex((4, 16))
    x[1, 5] = np.nan
    x[2, 9] = complex(1, np.inf)
    real = x.real.copy()
    real[2, 9] = -np.inf
    for ours, theirs in [(kw.fft(x), np.fft.fft(x)), (kw.ifft(x), np.fft.ifft(x)),
                         (kw.rfft(real), np.fft.rfft(real))]:
        assert np.array_equal(np.isfinite(ours), np.isfinite(theirs))
        assert not np.isfinite(ours[1:3]).any()
        assert np.allclose(ours[[0, 3]], theirs[[0, 3]], rtol=1e-13, atol=1e-12)
    assert not np.isfinite(kw.fft2(x)).any()


def test_fft_failures_name_the_argument_and_write_nothing():
    x, out = _complex(16), np.full(16, 3 + 3j)
    for call, fragment in [(lambda: kw.rfft(x), "x: must be float32 or float64"),
                           (lambda: kw.fft(x, out=np.zeros(16, np.complex64)), "out: is complex64"),
                           (lambda: kw.fft(x, out=np.zeros(15, complex)), "kernwerk.fft: out:"),
                           (lambda: kw.fft(x, norm="none"), "norm"),
                           (lambda: kw.irfft(x, n=-5), "irfft: n:"),
                           (lambda: kw.fft2(x), "must be 2-D"),
                           (lambda: kw.fft(np.zeros(0, complex)), "x:"),
                           (lambda: kw.fft(x, axis=1), "fft: axis:"),
                           (lambda: kw.fft(x, n=0), "fft: n:"),
                           (lambda: kw.fft2(np.zeros((2, 2, 2), complex)), "fft2: x: must be")]:
        with pytest.raises(ValueError, match=fragment):
            call()
    assert np.all(out == 3 + 3j)


def test_fft_as_numpy_takes_n_axis_and_real_input():
    """NumPy's n= (cropped or padded with zeros) and axis= over arrays of any rank, real and
    integer input taken as complex, each against numpy.fft."""
    x = _complex((3, 10, 6))
    real = RNG.normal(size=(3, 10, 6))
    for axis in (0, 1, -1, 2):
        for n in (None, 4, 16):
            assert np.allclose(kw.fft(x, n=n, axis=axis), np.fft.fft(x, n=n, axis=axis), rtol=1e-13, atol=1e-12)
            assert np.allclose(kw.ifft(x, n=n, axis=axis, norm="ortho"),
                               np.fft.ifft(x, n=n, axis=axis, norm="ortho"), rtol=1e-13, atol=1e-12)
            assert np.allclose(kw.rfft(real, n=n, axis=axis), np.fft.rfft(real, n=n, axis=axis),
                               rtol=1e-13, atol=1e-12)
            assert np.allclose(kw.fft(real, n=n, axis=axis), np.fft.fft(real, n=n, axis=axis),
                               rtol=1e-13, atol=1e-12)
    half = np.fft.rfft(real, axis=1)
    for n in (None, 7, 18, 30):
        assert np.allclose(kw.irfft(half, n=n, axis=1), np.fft.irfft(half, n=n, axis=1), rtol=1e-13, atol=1e-12)
    assert kw.fft(real.astype(np.float32)).dtype == np.complex64
    whole = RNG.integers(-5, 5, size=33)
    assert np.allclose(kw.fft(whole), np.fft.fft(whole), rtol=1e-13, atol=1e-12)
    assert np.allclose(kw.fft([1.0, 2.0, 3.0]), np.fft.fft([1.0, 2.0, 3.0]), rtol=1e-13, atol=1e-13)
    out = np.full((3, 10, 6), 9 + 9j)
    assert kw.fft(x, axis=0, out=out) is out
    assert np.allclose(out, np.fft.fft(x, axis=0), rtol=1e-13, atol=1e-12)
    with pytest.raises(ValueError, match="kernwerk.fft: out:"):
        kw.fft(x, axis=0, out=np.zeros((3, 10, 5), complex))
