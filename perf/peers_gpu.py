#!/usr/bin/env python3
"""Times the course's GPU peers of kernwerk::nearest at the sizes and on the distribution of kernwerk_bench_nearest
and writes JSON in its schema (one record per peer and size), for perf/results_table.py.

  python3 perf/peers_gpu.py --machine NAME --json FILE [--sizes 16x13,16x16,24x14] [--k 1,8,32]
                            [--repeat 3]

Peers (float32 unless named): the course's Numba CUDA kernel as published (haversine per pair,
a block min-reduce launch then a global min-reduce launch), CuPy broadcasting (the full
distance matrix, so only where it fits), and PyTorch through unit vectors, a matrix product and
argmax (k = 1) or topk (k > 1, the only peers there), in float32 and float64 (observations in
slices). Each is spot-checked against a float64 haversine brute force; the count of wrong
answers in 256 (an observation with a neighbour farther than the float64 k-th nearest) goes into
the record: peers are not exact, and this shows where they are not.
"""
import json
import math

import numpy as np
from peers_common import arguments, point_sets, record, timed, wrong_of_256  # noqa: E402

if not hasattr(np, "row_stack"):  # numba-cuda on numpy 2 expects it
    np.row_stack = np.vstack
import cupy as cp  # noqa: E402
import torch  # noqa: E402
from numba import cuda, float32, int32  # noqa: E402


@cuda.jit(device=True, inline=True)
def haversine32(lat1, lon1, lat2, lon2):
    a = math.sin((lat2 - lat1) / float32(2.0))
    b = math.sin((lon2 - lon1) / float32(2.0))
    return float32(2.0) * math.asin(math.sqrt(a * a + math.cos(lat1) * math.cos(lat2) * b * b))


@cuda.jit(device=True, inline=True)
def warp_min(value, index):
    for offset in (16, 8, 4, 2, 1):
        other_value = cuda.shfl_down_sync(0xFFFFFFFF, value, offset)
        other_index = cuda.shfl_down_sync(0xFFFFFFFF, index, offset)
        if other_value < value:
            value, index = other_value, other_index
    return value, index


@cuda.jit(fastmath=True)
def block_min(references, observations, block_index, block_distance):
    x, y = cuda.grid(2)
    step_x, step_y = cuda.gridsize(2)
    for i in range(y, observations.shape[0], step_y):
        best, best_index = float32(1e11), int32(0)
        for j in range(x, references.shape[0], step_x):
            d = haversine32(observations[i, 0], observations[i, 1], references[j, 0], references[j, 1])
            if d < best:
                best, best_index = d, int32(j)
        best, best_index = warp_min(best, best_index)
        if cuda.laneid == 0:
            block_distance[i, cuda.blockIdx.x] = best
            block_index[i, cuda.blockIdx.x] = best_index


@cuda.jit(fastmath=True)
def global_min(block_distance, block_index, distance, index):
    _, y = cuda.grid(2)
    _, step_y = cuda.gridsize(2)
    for i in range(y, distance.shape[0], step_y):
        value, where = warp_min(block_distance[i, cuda.threadIdx.x], block_index[i, cuda.threadIdx.x])
        if cuda.laneid == 0:
            distance[i], index[i] = value, where


def numba_course(observations, references):
    n = observations.shape[0]
    block_index = cuda.device_array((n, 32), np.int32)
    block_distance = cuda.device_array((n, 32), np.float32)
    distance = cuda.device_array(n, np.float32)
    index = cuda.device_array(n, np.int32)
    block_min[(32, 108), (32, 16)](references, observations, block_index, block_distance)
    global_min[(1, 108 * 20), (32, 16)](block_distance, block_index, distance, index)
    cuda.synchronize()
    return index.copy_to_host()


def cupy_broadcast(observations, references):
    lat1, lon1 = observations[:, None, 0], observations[:, None, 1]
    lat2, lon2 = references[None, :, 0], references[None, :, 1]
    h = cp.sin((lat2 - lat1) / 2) ** 2 + cp.cos(lat1) * cp.cos(lat2) * cp.sin((lon2 - lon1) / 2) ** 2
    return cp.argmin(h, axis=1).get()


def torch_unit_vectors(points):
    lat, lon = points[:, 0], points[:, 1]
    return torch.stack([torch.cos(lat) * torch.cos(lon), torch.cos(lat) * torch.sin(lon), torch.sin(lat)], 1)


def torch_matmul(observations, references, k=1, slice_rows=1 << 15):
    r = torch_unit_vectors(references)
    out = []
    for start in range(0, observations.shape[0], slice_rows):
        o = torch_unit_vectors(observations[start:start + slice_rows])
        products = o @ r.T
        out.append(torch.argmax(products, dim=1) if k == 1 else torch.topk(products, k, dim=1).indices)
    result = torch.cat(out)
    torch.cuda.synchronize()
    return result.cpu().numpy()


def main():
    args = arguments("16x13,16x16,24x14", neighbours=True)
    random = np.random.default_rng(2026)
    records = []
    for n, m, observations, references in point_sets(args.sizes, random):
        on_device = {dtype: (torch.tensor(observations, dtype=dtype, device="cuda"),
                             torch.tensor(references, dtype=dtype, device="cuda"))
                     for dtype in (torch.float32, torch.float64)}
        for k in (int(v) for v in args.k.split(",")):
            peers = []
            if k == 1:
                o32, r32 = cuda.to_device(observations.astype(np.float32)), cuda.to_device(references.astype(np.float32))
                peers.append(("numba-course", lambda: numba_course(o32, r32)))
                if n * m * 4 * 6 < 40e9:  # the broadcast's temporaries must fit
                    co, cr = cp.asarray(observations, cp.float32), cp.asarray(references, cp.float32)
                    peers.append(("cupy-broadcast", lambda: cupy_broadcast(co, cr)))
            for name, dtype in (("torch-f32", torch.float32), ("torch-f64", torch.float64)):
                to, tr = on_device[dtype]
                peers.append((name if k == 1 else name.replace("torch", "torch-topk"),
                              lambda to=to, tr=tr, k=k: torch_matmul(to, tr, k)))
            for name, run in peers:
                median, best, indices = timed(run, args.repeat, warm_up=True)
                wrong = wrong_of_256(observations, references, indices, random)
                records.append(record(name, n, m, median, best, wrong, k))
                print(f"{name:18s} {n:9d} x {m:<6d} k {k:2d} median {1e3 * median:10.3f} ms  wrong {wrong}/256",
                      flush=True)
    with open(args.json, "w") as f:
        json.dump({"benchmark": "nearest", "machine": args.machine, "execution_space": "Cuda",
                   "metric": "haversine", "precision": "float32 unless named", "repeat": args.repeat,
                   "note": "peers: times include the copy of the result to the host", "results": records}, f, indent=1)


if __name__ == "__main__":
    main()
