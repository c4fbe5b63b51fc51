"""Kernwerk from Python with NumPy arrays: nearest neighbours on the sphere, an index queried at
every time step, the points within a distance, and DBSCAN on planar points; each checked
against NumPy's float64 brute force. (CuPy and PyTorch arrays on the GPU are taken alike.)"""
import sys

import numpy as np

import kernwerk


def haversine(obs, ref):
    """Central angles between every observation and reference (radians), float64."""
    a = np.sin((ref[None, :, 0] - obs[:, :1]) / 2) ** 2 + np.cos(obs[:, :1]) * np.cos(ref[None, :, 0]) * \
        np.sin((ref[None, :, 1] - obs[:, 1:]) / 2) ** 2
    return 2 * np.arcsin(np.sqrt(np.clip(a, 0, 1)))


rng = np.random.default_rng(5)
def sphere(n):  # area-uniform (latitude, longitude) in radians
    return np.column_stack([np.arcsin(rng.uniform(-1, 1, n)), rng.uniform(-np.pi, np.pi, n)])


wrong = 0
ref = sphere(5000)
obs = sphere(400)
true = haversine(obs, ref)

# The 4 nearest references of every observation, nearest first.
indices, distances = kernwerk.nearest(obs, ref, k=4)
wrong += not np.allclose(distances, np.sort(true, axis=1)[:, :4], rtol=1e-12, atol=1e-15)

# An index built once, queried at every step (SciPy's cKDTree and scikit-learn's BallTree order).
index = kernwerk.Index(ref)
for step in range(5):
    queries = sphere(100)
    d, i = index.query(queries, k=8)
    wrong += not np.allclose(d, np.sort(haversine(queries, ref), axis=1)[:, :8], rtol=1e-12, atol=1e-15)

# Every reference within 0.05 radians of each observation, in compressed rows.
offsets, found, found_distances = kernwerk.within(obs, ref, 0.05)
wrong += not (np.diff(offsets) == (true <= 0.05).sum(axis=1)).all()

# DBSCAN on planar points: two dense discs and a far point (noise).
angle, r = rng.uniform(0, 2 * np.pi, 600), np.sqrt(rng.uniform(0, 1, 600))
xy = np.column_stack([r * np.cos(angle) + np.repeat([0.0, 10.0], 300), r * np.sin(angle)])
xy = np.vstack([xy, [[50.0, 50.0]]])
labels = kernwerk.dbscan(xy, eps=0.5, min_samples=5, metric="euclidean")
wrong += not ((labels[:300] == labels[0]).all() and (labels[300:600] == labels[300]).all()
              and labels[0] != labels[300] and labels[600] == -1)

print(f"Python on {kernwerk.backend()}: {len(found)} neighbours within 0.05, {wrong} checks wrong")
sys.exit(1 if wrong else 0)
