#!/usr/bin/env bash
# Builds Kokkos for a backend into a cache prefix.
#
#   bootstrap-kokkos.sh BACKEND ARCH PREFIX [SOURCE VERSION]
#
# BACKEND is host, cuda or hip; ARCH is sm_80/sm_90 for cuda, gfx908 for hip, ignored for host.
# Without SOURCE: Kokkos 3.4.01 from Debian 12's trilinos source package. With SOURCE: a copy of
# that Kokkos source tree, whose CMakeLists.txt says VERSION (the tree itself is not touched).
# The copy is patched with cmake/patches/kokkos-VERSION-*.patch (CUDA 13, Hopper). The prefix is
# written only when the build succeeded (a stamp file names the source, the options and the
# patches), so an interrupted run starts again and a changed source is built again.
set -euo pipefail

backend=$1 arch=$2 prefix=$3 given_source=${4:-} version=${5:-3.4.01}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=$(dirname "$prefix")
src_root=$cache/src
jobs=$(nproc)

fail() { echo "kw: kokkos bootstrap: $*" >&2; exit 1; }
# 75 (EX_TEMPFAIL): the source could not be had right now; kw and .ci/run pass it on.
unavailable() { echo "kw: UNAVAILABLE: kokkos bootstrap: $*" >&2; exit 75; }

ensure_deb_src() {
  if apt-get source --print-uris -q trilinos >/dev/null 2>&1; then return; fi
  # Everything this script says goes to standard error: prepare_source's standard output is
  # the source path its caller captures.
  local mirror
  mirror=$("$here/debian-mirror.sh") || fail "no Debian archive to take trilinos' source from"
  echo "kw: adding a deb-src entry for bookworm at $mirror (needed for 'apt-get source trilinos')" >&2
  cat > /etc/apt/sources.list.d/kernwerk-deb-src.sources <<EOF
Types: deb-src
URIs: $mirror
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  apt-get update -q >/dev/null || unavailable "apt-get update failed"
}

major=${version%%.*}
shopt -s nullglob
patches=("$here"/patches/kokkos-$version-*.patch)
shopt -u nullglob

# What the given source is: its files, sizes and times (nothing for Debian's package).
source_identity() {
  [[ -n $given_source ]] || return 0
  (cd "$given_source" && find . -path ./.git -prune -o -type f -printf '%P %s %T@\n' | sort | sha256sum | cut -c1-12)
}

# The given tree copied to $src_root/kokkos-VERSION-given, or packages/kokkos of the trilinos
# source unpacked into $src_root/kokkos-3.4.01; then patched.
prepare_source() {
  local identity=$1 dest patch_sum
  patch_sum=$(cat "${patches[@]}" /dev/null | sha256sum | cut -c1-12)
  if [[ -n $given_source ]]; then
    dest=$src_root/kokkos-$version-given
    if [[ -f $dest/.kernwerk-patched-$patch_sum${identity:+-$identity} ]]; then echo "$dest"; return; fi
    rm -rf "$dest"
    mkdir -p "$dest"
    tar --exclude=./.git -C "$given_source" -cf - . | tar -xf - -C "$dest"
  else
    dest=$src_root/kokkos-3.4.01
    if [[ -f $dest/.kernwerk-patched-$patch_sum${identity:+-$identity} ]]; then echo "$dest"; return; fi
    unpack_debian_source "$dest"
  fi
  ((${#patches[@]})) || echo "kw: cmake/patches has no patch for Kokkos $version; building it as it is" >&2
  for p in "${patches[@]}"; do
    patch -d "$dest" -p1 -s < "$p" >&2 || fail "patch $p does not apply"
  done
  touch "$dest/.kernwerk-patched-$patch_sum${identity:+-$identity}"
  echo "$dest"
}

# packages/kokkos of the trilinos source, pristine, into $1.
unpack_debian_source() {
  local dest=$1
  mkdir -p "$src_root"
  local tarball
  tarball=$(ls "$src_root"/trilinos_13.2.0.orig.tar.* 2>/dev/null | head -n1 || true)
  if [[ -z $tarball ]]; then
    ensure_deb_src
    echo "kw: downloading the trilinos source package (Kokkos 3.4.01 lives in it)" >&2
    (cd "$src_root" && apt-get source -d -q trilinos >&2) || unavailable "apt-get source trilinos failed"
    tarball=$(ls "$src_root"/trilinos_13.2.0.orig.tar.* | head -n1)
  fi
  rm -rf "$dest" "$src_root/unpack"
  mkdir -p "$src_root/unpack"
  tar -xf "$tarball" -C "$src_root/unpack" --wildcards '*/packages/kokkos/*' >&2
  mv "$src_root"/unpack/*/packages/kokkos "$dest"
  rm -rf "$src_root/unpack"
}

kokkos_arch_option() {
  case $backend:$arch in
    host:*) echo "" ;;
    cuda:sm_90) echo "-DKokkos_ARCH_HOPPER90=ON" ;;
    cuda:sm_80) echo "-DKokkos_ARCH_AMPERE80=ON" ;;
    hip:gfx908) ((major < 4)) && echo "-DKokkos_ARCH_VEGA908=ON" || echo "-DKokkos_ARCH_AMD_GFX908=ON" ;;
    *) fail "unsupported --arch '$arch' for backend '$backend' (cuda: sm_90, sm_80; hip: gfx908)" ;;
  esac
}

main() {
  local arch_opt src build stamp identity
  arch_opt=$(kokkos_arch_option)
  local -a opts=(
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix"
    -DCMAKE_CXX_STANDARD=$((major < 5 ? 17 : 20)) -DKokkos_ENABLE_SERIAL=ON
    -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF
    -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON
  )
  case $backend in
    host) opts+=(-DKokkos_ENABLE_OPENMP=ON) ;;
    cuda)
      # OpenMP as the host space: host-side work of a GPU call (validating and staging host
      # Views) runs on all cores.
      command -v nvcc >/dev/null || fail "nvcc not found (expected at /usr/local/cuda/bin)"
      opts+=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_CUDA=ON)
      ((major >= 5)) || opts+=(-DKokkos_ENABLE_CUDA_LAMBDA=ON)  # always on from Kokkos 5
      opts+=(-DKokkos_ENABLE_CUDA_CONSTEXPR=ON -DCMAKE_CXX_COMPILER=nvcc_wrapper "$arch_opt") ;;
    hip)
      command -v hipcc >/dev/null || fail "hipcc not found (Debian package hipcc)"
      opts+=(-DKokkos_ENABLE_OPENMP=OFF -DKokkos_ENABLE_HIP=ON -DCMAKE_CXX_COMPILER=hipcc "$arch_opt")
      # Kokkos 4 sorts through rocThrust when it can; Debian 12 has no rocThrust
      ((major < 4)) || opts+=(-DKokkos_ENABLE_ROCTHRUST=OFF) ;;
    *) fail "unknown backend '$backend'" ;;
  esac
  # The stamp names the source, the options and the patches: a change rebuilds.
  identity=$(source_identity)
  stamp=$prefix/.kernwerk-complete-$( (printf '%s' "${identity:+$identity$'\n'}"; printf '%s\n' "${opts[@]}"; cat "${patches[@]}" /dev/null) | sha256sum | cut -c1-12)
  [[ -f $stamp ]] && exit 0
  src=$(prepare_source "$identity")
  opts=("${opts[@]/#-DCMAKE_CXX_COMPILER=nvcc_wrapper/-DCMAKE_CXX_COMPILER=$src/bin/nvcc_wrapper}")
  build=$cache/build-$(basename "$prefix")
  rm -rf "$build" "$prefix"
  echo "kw: building Kokkos $version ($backend${arch:+ $arch}) from $src into $prefix"
  cmake -S "$src" -B "$build" -G Ninja "${opts[@]}" > "$build.configure.log" 2>&1 \
    || { tail -n 40 "$build.configure.log"; fail "configure failed (log: $build.configure.log)"; }
  cmake --build "$build" -j "$jobs" > "$build.build.log" 2>&1 \
    || { tail -n 40 "$build.build.log"; fail "build failed (log: $build.build.log)"; }
  cmake --install "$build" > /dev/null
  rm -rf "$build"
  [[ -n $(ls "$prefix"/lib*/cmake/Kokkos/KokkosConfig.cmake 2>/dev/null) ]] \
    || fail "the build of $src installed no lib*/cmake/Kokkos/KokkosConfig.cmake into $prefix"
  touch "$stamp"
}

main
