#!/usr/bin/env bash
# Runs the spack lines of docs/building.md ("Installing with spack") as a user types them, in a
# copy of the checkout, with a spack that has no network: Debian 12's compiler, CMake, libpng and Eigen as
# externals, and as the installed Kokkos one built like Debian's (OpenMP only, no Serial).
#
#   tests/spack/check_docs.sh SPACK_ROOT PACKAGES_ROOT [COMPILER_WRAPPER_SOURCE]
#
# SPACK_ROOT: a spack checkout (1.1 or develop); PACKAGES_ROOT: a checkout of spack-packages
# (the builtin package repository spack 1.x would clone), the release that spack pairs with.
# COMPILER_WRAPPER_SOURCE: spack-packages after v2025.11 download spack's compiler wrapper
# (github.com/spack/compiler-wrapper, v1.1.0); here a package repository ahead of builtin takes
# it from this checkout of it instead.
# spack's Python must import clingo (PYTHONPATH): spack would download it, this check cannot.
#
# CI's leg `spack` runs it with spack 1.1.0 from $KERNWERK_CACHE/spack-tools, made by hand once:
#   spack-1.1               `git archive v1.1.0` of github.com/spack/spack
#   spack-packages-2025.11  `git archive v2025.11.0` of github.com/spack/spack-packages
#   clingo                  clingo 5.6.2's Python module (github.com/potassco/clingo, v5.6.2:
#                           cmake -DCLINGO_BUILD_APPS=OFF -DCLINGO_BUILD_WITH_LUA=OFF
#                           -DPYCLINGO_USER_INSTALL=OFF -DPYCLINGO_USE_INSTALL_PREFIX=ON
#                           -DCMAKE_INSTALL_PREFIX=<here>/clingo, built with Debian's python3-dev)
# $KERNWERK_CACHE (default ~/.cache/kernwerk) keeps the OpenMP-only Kokkos between runs;
# everything else is made anew under $KERNWERK_CACHE/spack-check.
#
# Checked: the host lines install and `spack test run` passes; the GPU lines concretize (CUDA
# 13.0 at /usr/local/cuda, Kokkos with CUDA from kw's bootstrap as the external), and +cuda with
# GCC 16 is refused with the recipe's message.
set -euo pipefail

spack_root=$(cd "${1:?SPACK_ROOT}" && pwd)
packages_root=$(cd "${2:?PACKAGES_ROOT}" && pwd)
wrapper=${3:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cache=${KERNWERK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kernwerk}
work=$cache/spack-check
fail() { echo "spack check: $*" >&2; exit 1; }

# Debian's libkokkos-dev is built with OpenMP and without Serial; Kokkos 3.4.01 (kw's
# bootstrap source) built the same way stands in for it here.
kokkos=$cache/kokkos-3.4.01-openmp-only
if [[ ! -f $kokkos/.complete ]]; then
  "$root/kw" deps > /dev/null  # the patched Kokkos source, under $cache/src
  rm -rf "$kokkos" "$cache/build-openmp-only"
  cmake -S "$cache/src/kokkos-3.4.01" -B "$cache/build-openmp-only" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$kokkos" -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_OPENMP=ON \
    -DKokkos_ENABLE_SERIAL=OFF -DBUILD_SHARED_LIBS=ON > /dev/null
  cmake --build "$cache/build-openmp-only" > /dev/null
  cmake --install "$cache/build-openmp-only" > /dev/null
  rm -rf "$cache/build-openmp-only"
  touch "$kokkos/.complete"
fi

rm -rf "$work"
mkdir -p "$work/config" "$work/checkout"
export SPACK_USER_CONFIG_PATH=$work/config SPACK_USER_CACHE_PATH=$work/cache PATH=$spack_root/bin:$PATH
# The builtin packages from the local checkout instead of its git address.
cat > "$work/config/repos.yaml" <<YAML
repos::
$([[ -n $wrapper ]] && echo "  offline: $work/offline")
  builtin: $packages_root/repos/spack_repo/builtin
YAML
if [[ -n $wrapper ]]; then
  mkdir -p "$work/offline/packages/compiler-wrapper" "$work/compiler-wrapper-1.1.0"
  cp -r "$wrapper"/. "$work/compiler-wrapper-1.1.0"
  tar -C "$work" -czf "$work/compiler-wrapper-1.1.0.tar.gz" compiler-wrapper-1.1.0
  echo "repo: {namespace: offline}" > "$work/offline/repo.yaml"
  cat > "$work/offline/packages/compiler-wrapper/package.py" <<PY
from spack_repo.builtin.packages.compiler_wrapper.package import CompilerWrapper as Builtin
from spack.package import *


class CompilerWrapper(Builtin):
    version("1.1.0", url="file://$work/compiler-wrapper-1.1.0.tar.gz",
            sha256="$(sha256sum "$work/compiler-wrapper-1.1.0.tar.gz" | cut -d' ' -f1)")
PY
fi
cat > "$work/config/config.yaml" <<YAML
config:
  install_tree:
    root: $work/opt
  build_jobs: $(nproc)
YAML
spack compiler find > /dev/null
nvcc=/usr/local/cuda/bin/nvcc
cat >> "$work/config/packages.yaml" <<YAML
  cmake: {externals: [{spec: cmake@$(cmake --version | sed -n 's/cmake version //p'), prefix: /usr}], buildable: false}
  gmake: {externals: [{spec: gmake@$(make --version | sed -n '1s/GNU Make //p'), prefix: /usr}], buildable: false}
  libpng: {externals: [{spec: libpng@$(dpkg-query -W -f='${Version}' libpng-dev | cut -d- -f1), prefix: /usr}], buildable: false}
  eigen: {externals: [{spec: eigen@$(dpkg-query -W -f='${Version}' libeigen3-dev | cut -d- -f1), prefix: /usr}], buildable: false}
$([[ -x $nvcc ]] && echo "  cuda: {externals: [{spec: cuda@$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\)/\1/p'), prefix: /usr/local/cuda}], buildable: false}")
  kokkos:
    buildable: false
    externals:
    - {spec: kokkos@3.4.01 +openmp ~serial ~shared, prefix: $kokkos}
    # kw's bootstrap for CUDA, for the GPU lines' concretization
    - {spec: kokkos@3.4.01 +openmp +serial ~shared +cuda +wrapper +cuda_lambda cuda_arch=90, prefix: $cache/kokkos-3.4.01-cuda-sm_90}
YAML

# The lines of docs/building.md: its first sh block under "Installing with spack" runs as it is, in a copy of
# the checkout (tracked files); the second's GPU specs are each added to an environment of their
# own and concretized.
readme_block() {
  awk -v want="$1" '/^## Installing with spack/ {on = 1; next} /^## / {on = 0}
    on && /^```sh/ {block++; inside = 1; next} on && /^```/ {inside = 0; next}
    on && inside && block == want' "$root/docs/building.md"
}
[[ -n $(readme_block 1) ]] || fail "no sh block under 'Installing with spack' in docs/building.md"
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$work/checkout"
cd "$work/checkout"
while IFS= read -r line; do
  echo "+ $line"
  bash -euo pipefail -c "$line" || fail "docs/building.md line failed: $line"
done < <(readme_block 1)

[[ -x $nvcc ]] || { echo "spack check: passed, but for the CUDA lines: no CUDA toolkit at /usr/local/cuda"; exit 0; }
n=0
while IFS= read -r line; do
  n=$((n + 1))
  gpu_line=${line//build\/spack-env/build\/spack-gpu-$n}
  echo "+ $gpu_line"
  spack env create -d "build/spack-gpu-$n" > /dev/null
  bash -euo pipefail -c "$gpu_line" || fail "docs/building.md line failed: $gpu_line"
  spack -e "build/spack-gpu-$n" concretize > "$work/gpu-$n.txt" || fail "does not concretize: $line"
  grep -q "kokkos@.*+cuda\|kokkos@.*+rocm" "$work/gpu-$n.txt" || fail "no GPU Kokkos in: $line"
done < <(readme_block 2 | grep "+cuda")

# +cuda with a GCC newer than the CUDA takes: refused, saying why (a GCC 16 declared in a scope of
# its own: spack only reads its version).
mkdir -p "$work/gcc16"
cat > "$work/gcc16/packages.yaml" <<YAML
packages:
  gcc:
    externals:
    - spec: gcc@16.1.0 languages:='c,c++,fortran'
      prefix: /usr
      extra_attributes: {compilers: {c: /usr/bin/gcc, cxx: /usr/bin/g++, fortran: /usr/bin/gfortran}}
YAML
if spack -C "$work/gcc16" spec kernwerk@main +cuda cuda_arch=90 %gcc@16 > "$work/gcc16.txt" 2>&1; then
  fail "+cuda with GCC 16 and CUDA 13.0 concretized"
fi
grep -q "CUDA up to 13.0 takes GCC up to 15" "$work/gcc16.txt" \
  || { cat "$work/gcc16.txt"; fail "+cuda with GCC 16 refused without the recipe's message"; }
echo "spack check: passed ($(spack --version))"
