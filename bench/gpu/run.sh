#!/usr/bin/env bash
# Measures what docs/PERFORMANCE.md's GPU tables hold, on an NVIDIA GPU, from a checkout: builds clscan
# into BUILD_DIR, then runs clscan-bench and bench/cub's cub_bench side by side for every call and type of
# the tables, and writes their CSVs, logs and a summary under OUT_DIR (bench/gpu/README.md).
#
#   [CLSCAN_GPU_SETUP=script] bench/gpu/run.sh [OUT_DIR [BUILD_DIR]]
#
# OUT_DIR defaults to $OUT, BUILD_DIR to build-gpu (built here: do not carry one made on another machine).
# CLSCAN_GPU_SETUP: a script the GPU machine provides to make OpenCL usable there (an ICD loader, the
# NVIDIA ICD registered); it runs first, with bash. Environment: REPS (20), SIZES (2^20,2^24,2^28),
# STEPS (default "scan select-by_key reduce sort partition-unique deterministic"; also runs, transform
# and segmented: the calls on runs, transforms and segmented calls beside CUB's; which steps run;
# about 12 minutes in all on an H100 without the sort, the build included), PARTS=1 also runs clscan-parts-bench and clscan-mpi-bench where two or
# more GPUs are visible.
# Exit status: non-zero when a step failed (its .err file says why); later steps still run.
set -uo pipefail
out=${1:-${OUT:-}}
build=${2:-build-gpu}
if [[ -z $out ]]; then
  echo "usage: [CLSCAN_GPU_SETUP=script] bench/gpu/run.sh [OUT_DIR [BUILD_DIR]] (or set OUT)" >&2
  exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
mkdir -p "$out"
reps=${REPS:-20}
sizes=${SIZES:-2^20,2^24,2^28}
steps=" ${STEPS:-scan select-by_key reduce sort partition-unique deterministic} "
status=0
wanted() { [[ $steps == *" $1 "* ]]; }
step() { # step NAME COMMAND...: runs one step, its output into OUT_DIR/NAME.log, its errors into NAME.err
  local name=$1
  shift
  echo "== $name: $*"
  if ! "$@" >"$out/$name.log" 2>"$out/$name.err"; then
    echo "   failed (see $out/$name.err)"
    status=1
  fi
}

if [[ -n ${CLSCAN_GPU_SETUP:-} ]]; then
  bash "$CLSCAN_GPU_SETUP" >"$out/setup.log" 2>&1 || { echo "run.sh: $CLSCAN_GPU_SETUP failed" >&2; exit 1; }
fi
{
  echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
  echo "date: $(date -u +%Y-%m-%d)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
  nvcc --version 2>/dev/null | tail -1 | sed 's/^/nvcc: /'
} | tee "$out/run-info.txt"

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$out/configure.log" 2>&1 &&
  cmake --build "$build" --target clscan-bench clscan-info >"$out/build.log" 2>&1 ||
  { echo "run.sh: the build failed (see $out/configure.log, $out/build.log)" >&2; exit 1; }
export CLSCAN_PLATFORM=${CLSCAN_PLATFORM:-NVIDIA}
step info "$build/tools/clscan-info"

# Scans of every type, select_if and scans by key, and reduce: clscan beside CUB in one process each.
export REPS=$reps
wanted scan && step scan env PRIMITIVES=scan TYPES="int uint float long ulong double" SIZES="$sizes" \
  bench/cub/run-side-by-side.sh "$out/scan" "$build"
wanted select-by_key && step select-by_key env PRIMITIVES="select by_key" TYPES="int float long double" SIZES="$sizes" \
  bench/cub/run-side-by-side.sh "$out/prim" "$build"
wanted reduce && step reduce env PRIMITIVES=reduce TYPES="int float double" SIZES="$sizes,2^30" \
  bench/cub/run-side-by-side.sh "$out/reduce" "$build"
wanted sort && step sort env PRIMITIVES="sort sort_by_key" TYPES="int float long" SIZES="$sizes" \
  bench/cub/run-side-by-side.sh "$out/sort" "$build"
# The calls on runs, scan and reduce of each transform beside the plain calls, the segmented calls
# (steps left out by default).
wanted runs && step runs env PRIMITIVES="reduce_by_key unique_by_key run_length_encode" TYPES="int float" \
  SIZES="$sizes" bench/cub/run-side-by-side.sh "$out/runs" "$build"
wanted transform && step transform env PRIMITIVES="scan reduce" TRANSFORMS="twice positive even" TYPES="int float" \
  SIZES="$sizes" bench/cub/run-side-by-side.sh "$out/transform" "$build"
wanted segmented && step segmented env PRIMITIVES="reduce_segmented inclusive_segmented" TYPES="int float" \
  SIZES="$sizes" bench/cub/run-side-by-side.sh "$out/segmented" "$build"
# Calls CUB has no counterpart for in bench/cub, and deterministic scans against the default.
wanted partition-unique && for p in partition unique; do
  step "$p" "$build/tools/clscan-bench" --primitive "$p" --type int --sizes "$sizes" --reps "$reps" --csv
done
wanted deterministic && for t in float double; do
  step "deterministic-$t" "$build/tools/clscan-bench" --type "$t" --sizes 2^24,2^26,2^28 --reps "$reps" --csv
  step "deterministic-$t-on" "$build/tools/clscan-bench" --type "$t" --sizes 2^24,2^26,2^28 --reps "$reps" \
    --csv --deterministic
done

if [[ ${PARTS:-0} == 1 ]] && (($(nvidia-smi -L 2>/dev/null | wc -l) >= 2)); then
  cmake --build "$build" --target clscan-parts-bench >>"$out/build.log" 2>&1 || status=1
  step parts "$build/tools/clscan-parts-bench" --sizes 2^26,2^28,2^30 --parts 2 --reps 20
  if cmake --build "$build" --target clscan-mpi-bench >>"$out/build.log" 2>&1; then
    for r in 1 2; do
      step "mpi-$r" mpirun --allow-run-as-root -np "$r" "$build/tools/clscan-mpi-bench" --n 2^29 --reps 20 \
        --device-per-rank
    done
  else
    echo "== mpi: clscan-mpi-bench not built (no MPI found?), skipped"
  fi
fi

for f in "$out"/scan/side-by-side.txt "$out"/prim/side-by-side.txt "$out"/reduce/side-by-side.txt; do
  [[ -f $f ]] && { echo "== $f"; cat "$f"; }
done
exit $status
