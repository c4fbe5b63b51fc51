"""kernwerk on GPU arrays (CuPy, PyTorch) in a CUDA build: results of the caller's kind on its
device, out= arrays written where they lie (same device pointer), inputs read in place
(strided views, in-place updates), against NumPy float64 references."""
import math

import numpy as np
import pytest

import kernwerk as kw
from references import check_neighbours, diffuse_reference, sphere_points

pytestmark = pytest.mark.skipif(kw.backend() != "cuda", reason="needs a CUDA build of Kernwerk")
RNG = np.random.default_rng(7)


class CuPy:
    def __init__(self):
        self.cp = pytest.importorskip("cupy")

    def device(self, a):
        return self.cp.asarray(a)

    def host(self, a):
        return self.cp.asnumpy(a)

    def pointer(self, a):
        return a.data.ptr

    def is_ours(self, a):
        return isinstance(a, self.cp.ndarray) and a.device.id == self.cp.cuda.Device().id

    def empty(self, shape, dtype):
        return self.cp.empty(shape, dtype=dtype)


class Torch:
    def __init__(self):
        self.torch = pytest.importorskip("torch")
        if not self.torch.cuda.is_available():
            pytest.skip("torch sees no GPU")

    def device(self, a):
        return self.torch.as_tensor(np.ascontiguousarray(a), device="cuda")

    def host(self, a):
        return a.cpu().numpy()

    def pointer(self, a):
        return a.data_ptr()

    def is_ours(self, a):
        return isinstance(a, self.torch.Tensor) and a.is_cuda

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype), device="cuda")


@pytest.fixture(params=["cupy", "torch"])
def xp(request):
    return CuPy() if request.param == "cupy" else Torch()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 8, 32])
@pytest.mark.parametrize("method", ["brute", "indexed"])
def test_nearest_on_device_arrays(xp, dtype, k, method):
    obs, ref = sphere_points(RNG, 3000, dtype), sphere_points(RNG, 1000, dtype)
    indices, distances = kw.nearest(xp.device(obs), xp.device(ref), k=k, method=method)
    assert xp.is_ours(indices) and xp.is_ours(distances)
    check_neighbours(obs, ref, xp.host(indices), xp.host(distances), k)


def test_nearest_out_arrays_keep_their_pointers(xp):
    obs, ref = sphere_points(RNG, 500), sphere_points(RNG, 300)
    indices, distances = xp.empty((500, 4), "int64"), xp.empty((500, 4), "float64")
    before = xp.pointer(indices), xp.pointer(distances)
    returned = kw.nearest(xp.device(obs), xp.device(ref), k=4, out=(indices, distances))
    assert returned[0] is indices and returned[1] is distances
    assert (xp.pointer(indices), xp.pointer(distances)) == before
    check_neighbours(obs, ref, xp.host(indices), xp.host(distances), 4)


def test_strided_device_views_are_read_in_place():
    cp = CuPy().cp
    obs, ref = sphere_points(RNG, 400), sphere_points(RNG, 200)
    wide = cp.zeros((800, 4))
    wide[::2, 1:3] = cp.asarray(obs)
    view = wide[::2, 1:3]
    assert view.data.ptr == wide.data.ptr + 8  # a view, not a copy
    indices, distances = kw.nearest(view, cp.asfortranarray(cp.asarray(ref)), k=2)
    check_neighbours(obs, ref, indices.get(), distances.get(), 2)


def test_diffuse_updates_the_device_field_in_place(xp):
    field = RNG.uniform(0, 1, (64, 80))
    expected, expected_laplacian = diffuse_reference(field.copy(), 7, 0.2)
    on_device = xp.device(field)
    pointer = xp.pointer(on_device)
    returned, laplacian = kw.diffuse(on_device, steps=7, coeff=0.2, laplacian=True)
    assert returned is on_device and xp.pointer(on_device) == pointer and xp.is_ours(laplacian)
    assert np.allclose(xp.host(on_device), expected, rtol=1e-13, atol=1e-14)
    assert np.allclose(xp.host(laplacian), expected_laplacian, rtol=1e-13, atol=1e-14)


def test_reductions_linear_algebra_and_cg(xp):
    x, y = RNG.normal(size=4097), RNG.normal(size=4097)
    assert kw.sum(xp.device(x)) == pytest.approx(math.fsum(x), rel=1e-14, abs=1e-12)
    assert kw.dot(xp.device(x), xp.device(y)) == pytest.approx(math.fsum(x * y), rel=1e-13)
    assert kw.norm2(xp.device(x)) == pytest.approx(math.sqrt(math.fsum(x * x)), rel=1e-14)
    a, b = RNG.normal(size=(40, 30)), RNG.normal(size=(30, 20))
    c = kw.gemm(xp.device(a), xp.device(b))
    assert xp.is_ours(c) and np.allclose(xp.host(c), a @ b, rtol=1e-12, atol=1e-12)
    colsum = kw.matmul_colsum(xp.device(a), xp.device(b))
    assert xp.is_ours(colsum) and np.allclose(xp.host(colsum), (a @ b).sum(0), rtol=1e-12, atol=1e-11)
    n = 50
    spd = 2.1 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    rhs = RNG.normal(size=n)
    solution, info = kw.cg(xp.device(spd), xp.device(rhs), tol=1e-12)
    assert xp.is_ours(solution) and info["residual_norm"] <= 1e-12
    assert np.allclose(xp.host(solution), np.linalg.solve(spd, rhs), rtol=1e-9, atol=1e-10)


def test_cg_on_a_cupy_csr_matrix():
    cp = CuPy().cp
    sparse = pytest.importorskip("cupyx.scipy.sparse")
    n = 80
    dense = 2.05 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    rhs = RNG.normal(size=n)
    solution, _ = kw.cg(sparse.csr_matrix(cp.asarray(dense)), cp.asarray(rhs), tol=1e-12)
    assert np.allclose(solution.get(), np.linalg.solve(dense, rhs), rtol=1e-9, atol=1e-10)


def test_caller_streams_are_waited_for():
    cp = CuPy().cp
    obs, ref = sphere_points(RNG, 1 << 16), sphere_points(RNG, 1 << 10)
    with cp.cuda.Stream(non_blocking=True):
        o, r = cp.asarray(obs), cp.asarray(ref)
        o *= 1.0  # queued on the stream when the call starts
        indices, distances = kw.nearest(o, r)
    check_neighbours(obs[:2000], ref, indices.get()[:2000], distances.get()[:2000], 1)


def test_dlpack_in_and_out():
    torch = Torch().torch
    cp = CuPy().cp
    obs, ref = sphere_points(RNG, 300), sphere_points(RNG, 100)

    class OnlyDLPack:  # an array library kernwerk does not know, offering DLPack alone
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, **kwargs):
            return self.tensor.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

    indices, distances = kw.nearest(OnlyDLPack(torch.as_tensor(obs, device="cuda")),
                                    OnlyDLPack(torch.as_tensor(ref, device="cuda")), k=3)
    assert type(indices).__name__ == "DeviceArray" and indices.shape == (300, 3)
    from_torch = torch.from_dlpack(distances)
    from_cupy = cp.from_dlpack(indices)
    check_neighbours(obs, ref, cp.asnumpy(from_cupy), from_torch.cpu().numpy(), 3)


def test_mixed_and_foreign_places_are_refused():
    cp = CuPy().cp
    obs, ref = sphere_points(RNG, 10), sphere_points(RNG, 20)
    with pytest.raises(ValueError, match=r"kernwerk\.nearest: ref: is a host array, but obs is a device array"):
        kw.nearest(cp.asarray(obs), ref)
    with pytest.raises(ValueError, match=r"kernwerk\.nearest: out\[1\]: is a host array"):
        kw.nearest(cp.asarray(obs), cp.asarray(ref),
                   out=(cp.empty((10, 1), cp.int64), np.empty((10, 1))))


def test_qr_and_fft_on_device_arrays(xp):
    a = RNG.normal(size=(500, 60))
    for implementation in ("vendor", "generic"):
        q, r = kw.qr(xp.device(a), implementation=implementation)
        assert xp.is_ours(q) and xp.is_ours(r)
        q, r = xp.host(q), xp.host(r)
        assert np.linalg.norm(q @ r - a) <= 1e-13 * np.linalg.norm(a)
        assert np.linalg.norm(q.T @ q - np.eye(60)) <= 1e-12
        assert np.all(np.tril(r, -1) == 0) and np.all(np.diag(r) >= 0)
    b = RNG.normal(size=500)
    x = kw.solve_least_squares(xp.device(a), xp.device(b))
    assert np.allclose(xp.host(x), np.linalg.lstsq(a, b, rcond=None)[0], rtol=1e-11, atol=1e-12)
    z = RNG.normal(size=(8, 1000)) + 1j * RNG.normal(size=(8, 1000))
    spectrum = kw.fft(xp.device(z))
    assert xp.is_ours(spectrum)
    assert np.allclose(xp.host(spectrum), np.fft.fft(z), rtol=1e-13, atol=1e-11)
    assert np.allclose(xp.host(kw.fft2(xp.device(z), norm="ortho")), np.fft.fft2(z, norm="ortho"), rtol=1e-13,
                       atol=1e-12)
    real = RNG.normal(size=(8, 1000)).astype(np.float32)
    half = kw.rfft(xp.device(real))
    assert np.allclose(xp.host(half), np.fft.rfft(real), rtol=1e-5, atol=1e-3)
    assert np.allclose(xp.host(kw.irfft(half, n=1000)), real, rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="kernwerk.fft: out: is a host array"):
        kw.fft(xp.device(z), out=np.empty_like(z))
