#!/usr/bin/env bash
# pip's build (pyproject.toml, setup.py) as docs/python.md gives it, into a fresh venv, with this
# build's objects (KERNWERK_BUILD_DIR): the package installs with its metadata, imports outside
# the source tree, and answers as NumPy's float64 brute force does.
#
#   pip_install_test.sh PYTHON SOURCE BUILD
set -euo pipefail
python=$1 source=$2 build=$3
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$python" -m venv --system-site-packages "$venv/env" \
  || { echo "pip_install_test: $python -m venv failed (Debian: python3-venv)"; exit 1; }
"$venv/env/bin/python" -c "import setuptools, wheel" \
  || { echo "pip_install_test: pip's build needs setuptools and wheel (Debian: python3-setuptools python3-wheel)"; exit 1; }
KERNWERK_BUILD_DIR=$build "$venv/env/bin/pip" install --no-build-isolation --no-deps --no-index \
  --disable-pip-version-check -q "$source"
"$venv/env/bin/pip" show kernwerk | grep "^Version: " || { echo "pip_install_test: no metadata"; exit 1; }
cd "$venv"
"$venv/env/bin/python" - <<'PY'
import numpy as np
import kernwerk

assert kernwerk.__file__.startswith(__import__("sys").prefix), kernwerk.__file__
rng = np.random.default_rng(7)
obs = np.column_stack([np.arcsin(rng.uniform(-1, 1, 200)), rng.uniform(-np.pi, np.pi, 200)])
ref = np.column_stack([np.arcsin(rng.uniform(-1, 1, 300)), rng.uniform(-np.pi, np.pi, 300)])
a = np.sin((ref[None, :, 0] - obs[:, :1]) / 2) ** 2 + np.cos(obs[:, :1]) * np.cos(ref[None, :, 0]) * \
    np.sin((ref[None, :, 1] - obs[:, 1:]) / 2) ** 2
true = 2 * np.arcsin(np.sqrt(np.clip(a, 0, 1)))
indices, distances = kernwerk.nearest(obs, ref)
assert (true[np.arange(200), indices[:, 0]] <= true.min(1) + 1e-12).all()
assert np.allclose(distances[:, 0], true.min(1), rtol=1e-12, atol=1e-15)
print("pip_install_test: kernwerk", kernwerk.__version__, "from", kernwerk.__file__)
PY
