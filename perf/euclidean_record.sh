#!/usr/bin/env bash
# The Euclidean nearest-neighbour record of a machine: builds kernwerk_bench_nearest against the
# Kokkos at KOKKOS_ROOT (its nvcc_wrapper for CUDA) and, where ARBORX_ROOT names an ArborX 2.x
# installation, the ArborX peer (perf/arborx_peer.cpp) beside it; then times both on the
# Euclidean layouts (layouts::euclidean_names(): uniform, clusters, tracks, duplicates) in 2-D
# and 3-D at k = 1 and 16, each answer spot-checked against the float64 brute force. The
# records go to OUTDIR in perf/results/'s schema (euclidean-BACKEND-MACHINE.json and
# euclidean-peers-arborx-BACKEND-MACHINE.json).
#
#   perf/euclidean_record.sh MACHINE OUTDIR KOKKOS_ROOT [BACKEND [ARBORX_ROOT]]   (BACKEND: cuda or host)
#
# KERNWERK_EUCLIDEAN_SIZES overrides the sizes (log2 observations x log2 references; default
# 17x17,20x20,24x20 on cuda, 17x17,20x20 on host) and KERNWERK_RECORD_BUILD the build folder.
set -euo pipefail
machine=${1:?machine name} out=${2:?output folder} kokkos=${3:?Kokkos root} backend=${4:-cuda} arborx=${5:-}
build=${KERNWERK_RECORD_BUILD:-/tmp/kernwerk-euclidean-build}
compiler=() peer=(-DKERNWERK_PERF_ARBORX=OFF) targets=(kernwerk_bench_nearest)
[[ $backend == cuda ]] && compiler=(-DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper")
[[ -n $arborx ]] && peer=(-DKERNWERK_PERF_ARBORX=ON -DArborX_ROOT="$arborx") && targets+=(kernwerk_peer_arborx)
mkdir -p "$out"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" "${compiler[@]}" "${peer[@]}" \
  -DKERNWERK_ENABLE_PERF=ON -DKERNWERK_ENABLE_TESTS=OFF -DKERNWERK_ENABLE_APPS=OFF \
  -DKERNWERK_ENABLE_PYTHON=OFF -DKERNWERK_ENABLE_FORTRAN=OFF -DKERNWERK_ENABLE_MPI=OFF > "$out/configure.log"
# -k 0: a peer that does not build leaves kernwerk's record to be taken (and fails the run after it)
built=yes
ninja -k 0 -C "$build" "${targets[@]}" > "$out/build.log" 2>&1 || built=no
[[ -x $build/bin/kernwerk_bench_nearest ]] || { tail -n 30 "$out/build.log"; exit 1; }
default_sizes=17x17,20x20,24x20
[[ $backend == cuda ]] || default_sizes=17x17,20x20
sizes=${KERNWERK_EUCLIDEAN_SIZES:-$default_sizes}
# indexed: the index built and queried in each call, as the peer's; index: a kept index's
# queries; build: its construction alone; auto: the default choice.
"$build/bin/kernwerk_bench_nearest" --metric euclidean --dimension 2,3 --layouts all --sizes "$sizes" \
  --k 1,16 --variants indexed,index,build,auto --repeat 7 --machine "$machine" \
  --json "$out/euclidean-$backend-$machine.json" | tee "$out/euclidean.log"
if [[ -n $arborx ]]; then
  [[ -x $build/bin/kernwerk_peer_arborx ]] || { grep -B2 -A10 "error" "$out/build.log" | head -n 40; exit 1; }
  "$build/bin/kernwerk_peer_arborx" --metric euclidean --dimension 2,3 --layouts all --sizes "$sizes" \
    --k 1,16 --repeat 7 --machine "$machine" \
    --json "$out/euclidean-peers-arborx-$backend-$machine.json" | tee "$out/euclidean-peers.log"
fi
[[ $built == yes ]]
