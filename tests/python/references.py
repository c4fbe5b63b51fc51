"""Independent NumPy float64 references for the Python tests."""
import numpy as np


def sphere_points(random, count, dtype="float64"):
    """Area-uniform (latitude, longitude) in radians."""
    lat = np.arcsin(random.uniform(-1, 1, count))
    lon = random.uniform(-np.pi, np.pi, count)
    return np.column_stack([lat, lon]).astype(dtype)


def haversine_matrix(obs, ref):
    """Central angles between every observation and reference, in float64."""
    obs = np.asarray(obs, np.float64)
    ref = np.asarray(ref, np.float64)
    lat1, lon1 = obs[:, :1], obs[:, 1:2]
    lat2, lon2 = ref[None, :, 0], ref[None, :, 1]
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * np.arcsin(np.sqrt(np.minimum(a, 1.0)))


def check_neighbours(obs, ref, indices, distances, k, tolerance=1e-12):
    """Each row holds k distinct references whose float64 distances are the k smallest (up to
    the formula's rounding), in order, and the distances returned are theirs."""
    indices = np.asarray(indices)
    distances = np.asarray(distances, np.float64)
    true = haversine_matrix(obs, ref)
    best = np.sort(true, axis=1)[:, :k]
    assert indices.shape == (len(true), k)
    assert ((indices >= 0) & (indices < true.shape[1])).all()
    assert all(len(set(row)) == k for row in indices.tolist())
    chosen = np.take_along_axis(true, indices, axis=1)
    assert (chosen <= best + tolerance).all(), "a neighbour farther than the k-th nearest"
    single = np.asarray(obs).dtype == np.float32  # distances rounded to float32
    assert np.allclose(distances, chosen, rtol=1e-6 if single else 1e-12,
                       atol=1e-7 if single else tolerance)
    assert (np.diff(distances, axis=1) >= 0).all()


def laplacian_of(field):
    padded = np.pad(field, 1)
    return 4 * field - (padded[:-2, 1:-1] + padded[2:, 1:-1] + padded[1:-1, :-2] + padded[1:-1, 2:])


def diffuse_reference(field, steps, coeff):
    """The 5-point stencil with neighbours outside the grid left out: the field after `steps`
    steps and the Laplacian of the field the last step started from."""
    laplacian = laplacian_of(field)
    for _ in range(steps):
        laplacian = laplacian_of(field)
        field = field - coeff * laplacian
    return field, laplacian
