#!/usr/bin/env bash
# The radius-search and DBSCAN record of a machine: builds kernwerk_bench_dbscan against the
# Kokkos at KOKKOS_ROOT (its nvcc_wrapper for CUDA), runs it at 2^20 and 2^24 (each answer
# checked on a sample against the float64 brute force; KERNWERK_DBSCAN_SIZES and
# KERNWERK_DBSCAN_SETS override), then the peers on the same sets in the same run
# (perf/dbscan_peers.py: scikit-learn on the host, cuML with CUDA where it is installed). The
# records go to OUTDIR in perf/results/'s schema.
#
#   perf/dbscan_record.sh MACHINE OUTDIR KOKKOS_ROOT [BACKEND]     (BACKEND: cuda or host)
#
# PYTHON names the peers' interpreter (default python3; it needs NumPy and scikit-learn).
set -euo pipefail
machine=${1:?machine name} out=${2:?output folder} kokkos=${3:?Kokkos root} backend=${4:-cuda}
build=${KERNWERK_RECORD_BUILD:-/tmp/kernwerk-dbscan-build}
compiler=()
[[ $backend == cuda ]] && compiler=(-DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper")
mkdir -p "$out"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" "${compiler[@]}" \
  -DKERNWERK_ENABLE_PERF=ON -DKERNWERK_ENABLE_TESTS=OFF -DKERNWERK_ENABLE_APPS=OFF \
  -DKERNWERK_ENABLE_PYTHON=OFF -DKERNWERK_ENABLE_FORTRAN=OFF -DKERNWERK_ENABLE_MPI=OFF > "$out/configure.log"
ninja -C "$build" kernwerk_bench_dbscan > "$out/build.log"
sizes=${KERNWERK_DBSCAN_SIZES:-20,24} sets=${KERNWERK_DBSCAN_SETS:-within,moons,moons-scaled,places}
rm -rf "$build/sets"
mkdir -p "$build/sets"
"$build/bin/kernwerk_bench_dbscan" --sizes "$sizes" --sets "$sets" --machine "$machine" --save "$build/sets" \
  --json "$out/dbscan-$backend-$machine.json" | tee "$out/dbscan.log"
peers=sklearn
[[ $backend == cuda ]] && peers=cuml
"${PYTHON:-python3}" perf/dbscan_peers.py --sets "$build/sets" --machine "$machine" --peers "$peers" \
  --json "$out/dbscan-peers-$backend-$machine.json" | tee "$out/dbscan-peers.log"
