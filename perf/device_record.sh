#!/usr/bin/env bash
# The record of a GPU machine in one run: the CUDA test suites (also under compute-sanitizer), the
# Python module's tests and timing, the measured ceilings,
# kernwerk's nearest-neighbour variants (inputs on the device, then on the host through the
# chunk pipeline), repeated small calls, its other workloads and QR and FFT, and the peers (the course's Numba kernels, CuPy,
# PyTorch; ArborX where a binary of its peer program is given). Results go to OUTDIR in
# perf/results/'s schema, packed with the logs into OUTDIR/record.tar.gz; a short table is
# printed last.
#
#   perf/device_record.sh MACHINE OUTDIR [ARBORX_PEER]
#
# KERNWERK_RECORD_STEPS="tests nearest ..." runs only the steps named (default: all of them).
#
# Run from the repository root with build/cuda/bin built by `./kw build --backend cuda`, and
# build/cuda/python for the machine's python3 (configure with -DPython_EXECUTABLE= an
# interpreter of its version: the GPU machines run Python 3.12).
# ARBORX_PEER: kernwerk_peer_arborx (perf/arborx_peer.cpp), built beside the project against an
# ArborX 2.x installation (-DKERNWERK_PERF_ARBORX=ON -DArborX_ROOT=...); it times every layout
# and k and writes its own record.
set -uo pipefail
machine=${1:?machine name} out=${2:?output folder} arborx=${3:-}
bin=build/cuda/bin
mkdir -p "$out"
source "$(dirname "${BASH_SOURCE[0]}")/record_steps.sh"

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1
step tests "$bin/kernwerk_tests"
step cli_tests "$bin/kernwerk_cli_tests"
# compute-sanitizer: memcheck over the whole suite; initcheck and synccheck over the cases that
# run our kernels; racecheck over them for our kernels alone (gpu_impl; Kokkos 3.4's own
# ParallelReduce reports shared-memory warnings of its own).
ours="nearest: k nearest*,nearest: near copies*,nearest: random*,nearest: every method*,nearest: poles*,nearest: single-point*,nearest: host Views*,diffuse against*,gemm against*,matmul_colsum*,sum, dot*,min and max*,transform:*,conjugate_gradient solves*"
step memcheck compute-sanitizer --tool memcheck --error-exitcode 1 "$bin/kernwerk_tests"
step initcheck compute-sanitizer --tool initcheck --error-exitcode 1 "$bin/kernwerk_tests" -tc="$ours"
step synccheck compute-sanitizer --tool synccheck --error-exitcode 1 "$bin/kernwerk_tests" -tc="$ours"
step racecheck compute-sanitizer --tool racecheck --racecheck-report hazard --kernel-name kns=gpu_impl \
  --error-exitcode 1 "$bin/kernwerk_tests" -tc="$ours"
step ceilings "$bin/kernwerk_ceilings" --machine "$machine" --json "$out/ceilings-cuda-$machine.json"
step nearest "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 16x13,16x16,24x14 \
  --variants generic,tuned,indexed --repeat 9 --json "$out/nearest-cuda-$machine.json"
step host_inputs "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 24x14 \
  --variants tuned,indexed --repeat 5 --host-inputs 1 \
  --json "$out/nearest-cuda-host-inputs-$machine.json"
step host_inputs_copy "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 24x14 \
  --variants tuned,indexed --repeat 5 --host-inputs copy \
  --json "$out/nearest-cuda-host-copy-$machine.json"
step host_inputs_budget "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 24x14 \
  --variants indexed --repeat 5 --host-inputs 1 --budget $((256 << 20)) \
  --json "$out/nearest-cuda-host-inputs-256MiB-$machine.json"
step calls "$bin/kernwerk_bench_calls" --machine "$machine" --calls 9 \
  --json "$out/calls-cuda-$machine.json"
step knn "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 20x14 --k 8,32 \
  --variants generic,tuned,indexed --repeat 5 --json "$out/knn-cuda-$machine.json"
step knn_peers python3 perf/peers_gpu.py --machine "$machine" --sizes 20x14 --k 8,32 \
  --json "$out/knn-peers-cuda-$machine.json"
step layouts "$bin/kernwerk_bench_nearest" --machine "$machine" --sizes 20x14,24x14 \
  --variants brute,indexed,auto --layouts all --k 1,2,8,32 --repeat 5 \
  --json "$out/layouts-cuda-$machine.json"
step peers python3 perf/peers_gpu.py --machine "$machine" --json "$out/nearest-peers-cuda-$machine.json"
# The Python module (build/cuda/python, built for this machine's python3): its tests on CuPy,
# PyTorch and NumPy arrays, and kernwerk.nearest on CuPy arrays beside the course's peers.
step python_tests env PYTHONPATH=build/cuda/python python3 tests/python/run_tests.py -v
step python_nearest env PYTHONPATH=build/cuda/python python3 perf/python_nearest.py --machine "$machine" \
  --repeat 15 --json "$out/python-nearest-cuda-$machine.json"
step workloads "$bin/kernwerk_bench_workloads" --machine "$machine" --scale full --repeat 5 \
  --json "$out/workloads-cuda-$machine.json"
step workload_peers python3 perf/peers_workloads_gpu.py --machine "$machine" \
  --json "$out/workloads-peers-cuda-$machine.json"
step dense "$bin/kernwerk_bench_dense" --machine "$machine" --scale full --repeat 7 \
  --json "$out/dense-cuda-$machine.json"
step dense_peers python3 perf/peers_dense.py --device gpu --machine "$machine" --repeat 7 \
  --json "$out/dense-peers-cuda-$machine.json"
[[ -n $arborx ]] && step arborx "$arborx" --machine "$machine" --sizes 20x14,24x14 --layouts all \
  --k 1,2,8,32 --repeat 5 --json "$out/layouts-peers-arborx-cuda-$machine.json"

grep -h "test cases\|assertions" "$out/tests.log" "$out/cli_tests.log" 2>/dev/null
grep -H "SUMMARY" "$out"/{memcheck,initcheck,synccheck,racecheck}.log 2>/dev/null
python3 - "$out" <<'EOF'
import glob, json, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/nearest-*.json") + glob.glob(f"{sys.argv[1]}/knn-*.json") +
                   glob.glob(f"{sys.argv[1]}/python-nearest-*.json") +
                   glob.glob(f"{sys.argv[1]}/layouts-*.json")):
    for r in json.load(open(path))["results"]:
        print(f"{r.get('layout', ''):<10} {r['variant']:<28} 2^{r['observations'].bit_length() - 1}x2^{r['references'].bit_length() - 1} k {r.get('k', 1):<2}"
              f"  {1e3 * r['median_seconds']:10.3f} ms  {r.get('wrong_of_256', 'exact')}")
for path in sorted(glob.glob(f"{sys.argv[1]}/workloads-*.json")):
    for r in json.load(open(path))["results"]:
        print(f"{r['workload']:<16} {r['variant']:<22} {r['size']:<34} {1e6 * r['median_seconds']:12.2f} us {r['note']}")
EOF
(cd "$out" && tar -czf record.tar.gz --remove-files -- *.json *.log gpu.txt 2>/dev/null)
exit $failed
