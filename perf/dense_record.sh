#!/usr/bin/env bash
# The dense solvers' record of a GPU machine (issue 48): builds kernwerk_bench_dense and
# kernwerk_bench_workloads against the Kokkos at KOKKOS_ROOT (its nvcc_wrapper), then times
#   - QR 4096^2 float64 (Q and R, and the factored form alone) through cuSOLVER and the generic
#     blocked Householder QR, and the generic factorisation of 4096 x 32 (one panel) and
#     4096 x 128 (four), which part the panels take;
#   - the FFTs of the full scale, with and without the input check;
#   - conjugate gradient (the CSR Laplacians and the dense 8192^2 step);
#   - their peers: CuPy and PyTorch (QR, FFT), CuPy's CG and cuSPARSE's SpMV alone;
#   - where ncu is on the PATH, Nsight Compute's figures of one CSR step on 1024^2, one dense
#     product of the 8192^2 step and the FFT's input check on 2^24 complex64 points.
# First the suites of what it times (QR, FFT, conjugate gradient, gemm) run on the GPU.
# Records go to OUTDIR in perf/results/'s schema (dense-cuda-MACHINE.json,
# dense-peers-cuda-MACHINE.json, cg-cuda-MACHINE.json, cg-peers-cuda-MACHINE.json); Nsight
# Compute's reports to OUTDIR/ncu-*.txt.
#
#   perf/dense_record.sh MACHINE OUTDIR KOKKOS_ROOT
#
# KERNWERK_RECORD_BUILD sets the build folder; KERNWERK_RECORD_STEPS="dense cg ..." runs only the
# steps named (build tests dense qr_parts dense_peers cg cg_peers ncu).
set -uo pipefail
machine=${1:?machine name} out=${2:?output folder} kokkos=${3:?Kokkos root}
build=${KERNWERK_RECORD_BUILD:-/tmp/kernwerk-dense-build}
bin=$build/bin
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/record_steps.sh"
configure_and_build() {
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$kokkos" \
    -DCMAKE_CXX_COMPILER="$kokkos/bin/nvcc_wrapper" -DKERNWERK_ENABLE_PERF=ON -DKERNWERK_ENABLE_TESTS=ON \
    -DKERNWERK_ENABLE_APPS=OFF -DKERNWERK_ENABLE_PYTHON=OFF -DKERNWERK_ENABLE_FORTRAN=OFF \
    -DKERNWERK_ENABLE_MPI=OFF &&
    ninja -C "$build" kernwerk_bench_dense kernwerk_bench_workloads kernwerk_tests
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
step build configure_and_build
step tests "$bin/kernwerk_tests" -tc="qr*,fft*,conjugate_gradient*,gemm*"
step dense "$bin/kernwerk_bench_dense" --machine "$machine" --scale full --repeat 5 \
  --json "$out/dense-cuda-$machine.json"
qr_parts() {
  for size in 4096x32 4096x128; do
    "$bin/kernwerk_bench_dense" --machine "$machine" --only qr --qr-size $size --repeat 5 || return 1
  done
}
step qr_parts qr_parts
step dense_peers python3 perf/peers_dense.py --device gpu --machine "$machine" \
  --json "$out/dense-peers-cuda-$machine.json"
step cg "$bin/kernwerk_bench_workloads" --machine "$machine" --scale full --only cg --repeat 5 \
  --json "$out/cg-cuda-$machine.json"
step cg_peers python3 perf/peers_workloads_gpu.py --machine "$machine" --only cg \
  --json "$out/cg-peers-cuda-$machine.json"
profile() {  # profile NAME KERNEL_REGEX SKIP COMMAND...: one launch's Nsight Compute sections
  local name=$1 kernel=$2 skip=$3
  shift 3
  ncu --clock-control none --kernel-name-base demangled --kernel-name "regex:$kernel" \
    --launch-skip "$skip" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section Occupancy --section LaunchStats --section WarpStateStats "$@" > "$out/ncu-$name.txt" 2>&1
}
ncu_all() {
  command -v ncu > /dev/null || { echo "no ncu on PATH"; return 0; }
  # the 128^2 solve runs first: 2 x 336 launched steps with --repeat 1
  profile cg-csr-1024 csr_step 700 "$bin/kernwerk_bench_workloads" --scale full --only cg --repeat 1 &&
    profile cg-dense-8192 dense_product 0 "$bin/kernwerk_bench_workloads" --scale full --only cg --repeat 1 &&
    profile fft-check find_non_finite 0 "$bin/kernwerk_bench_dense" --only fft --repeat 1
}
step ncu ncu_all
# the table: every timed row, then the Nsight figures that matter
grep -E "^\[doctest\] (test cases|assertions)" "$out/tests.log"
cat "$out"/dense.log "$out"/qr_parts.log "$out"/cg.log 2>/dev/null | grep -E "median" | cut -c10-130
for f in "$out"/ncu-*.txt; do
  [[ -f $f ]] || continue
  echo "-- $(basename "$f")"
  grep -E "Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit Rate|L2 Hit Rate|Achieved Occupancy|Registers Per|Theoretical Occupancy" "$f" | head -n 12
done
exit $failed
