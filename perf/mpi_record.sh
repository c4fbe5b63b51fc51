#!/usr/bin/env bash
# The MPI benchmark's record for one rank count (one GPU a rank): the sizes of the distributed
# nearest-neighbour search, both strategies, brute force and indexed, merged into one file
# OUTDIR/mpi-nearest-cuda-MACHINE-RANKSgpu.json; the log beside it.
#
#   perf/mpi_record.sh MACHINE RANKS OUTDIR [BINDIR]      (BINDIR default build/cuda/bin)
#
# KERNWERK_MPIEXEC_FLAGS adds launcher flags (e.g. --allow-run-as-root).
set -euo pipefail
machine=${1:?machine name} ranks=${2:?rank count} out=${3:?output folder} bin=${4:-build/cuda/bin}
mkdir -p "$out"
run() {  # one benchmark run; its record goes to $out/part-$1.json
  local part=$1
  shift
  # shellcheck disable=SC2086
  mpiexec -n "$ranks" ${KERNWERK_MPIEXEC_FLAGS:-} "$bin/kernwerk_bench_mpi_nearest" --machine "$machine" \
    --json "$out/part-$part.json" "$@" | tee -a "$out/mpi-$ranks.log"
}
run a --sizes 22x14,24x14 --methods brute,indexed --repeat 7
run b --sizes 24x20,26x20 --methods indexed --repeat 5
run c --sizes 26x20 --methods brute --repeat 1  # 2^46 pairs: about 20 s a run on one H200
python3 - "$out" "$machine" "$ranks" <<'PY'
import json, sys
out, machine, ranks = sys.argv[1:]
parts = [json.load(open(f"{out}/part-{p}.json")) for p in "abc"]
merged = dict(parts[0])
merged["results"] = [r for p in parts for r in p["results"]]
merged["repeat"] = "7 (22x14, 24x14), 5 (indexed 24x20, 26x20), 1 (brute 26x20)"
merged["command"] = f"perf/mpi_record.sh {machine} {ranks} OUTDIR"
with open(f"{out}/mpi-nearest-cuda-{machine}-{ranks}gpu.json", "w") as f:
    json.dump(merged, f, indent=1)
PY
rm -f "$out"/part-?.json
