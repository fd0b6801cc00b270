#!/usr/bin/env bash
# Profiles clscan's single-pass kernels with Nsight Compute on the GPU machine: for each primitive, type
# and size, clscan-bench runs once on NVIDIA's OpenCL platform with an empty disk cache (so that the cache
# then holds the one program it built for that size), extract_ptx.py takes the kernel's PTX and launch shape
# from it, ptx_launch runs that PTX through the CUDA driver API (timed against a device copy, result
# checked), and `ncu` profiles one launch. See bench/profile/README.md.
#
#   bench/profile/run-profile.sh OUT_DIR [BUILD_DIR]
#
# BUILD_DIR (default build-gpu) must hold a built tools/clscan-bench. Environment: PRIMITIVES (default
# "scan"; any of "scan select by_key"), TYPES (default "int"), SIZES (default "2^22 2^28", spaces),
# CUB=1 (also profile CUB's kernel for the same call, cub_bench from bench/cub), SECTIONS (ncu
# sections, default SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats
# SchedulerStats), NCU (default ncu), NVCC (default nvcc), CUDA_ARCH (default sm_90).
# Writes OUT_DIR/P-T-N.*.ptx and P-T-N.txt (ncu's report; cub-P-T-N.txt for CUB), and prints
# ptx_launch's lines and the reports' main figures. Exit status: non-zero when any step failed.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-}
build=${2:-build-gpu}
if [[ -z $out ]]; then
  echo "usage: run-profile.sh OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
if [[ ! -x $build/tools/clscan-bench ]]; then
  echo "run-profile.sh: no $build/tools/clscan-bench: build clscan there first" >&2
  exit 2
fi
for p in ${PRIMITIVES:-scan}; do
  case $p in
    scan | select | by_key) ;;
    *) echo "run-profile.sh: PRIMITIVES: unknown '$p' (scan, select, by_key)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
ncu=${NCU:-ncu}
sections=${SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis Occupancy LaunchStats WarpStateStats SchedulerStats}
"${NVCC:-nvcc}" -O2 -std=c++17 -arch="${CUDA_ARCH:-sm_90}" -o "$out/ptx_launch" "$here/ptx_launch.cu" -lcuda ||
  { echo "run-profile.sh: building ptx_launch failed" >&2; exit 1; }

# The main figures of an ncu report.
summarize() {
  grep -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|L1/TEX Hit|L2 Hit|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit (Registers|Shared Mem)|Static Shared|Grid Size|Block Size|Waves Per SM|No Eligible|Warp Cycles Per Issued|Mem Busy|Mem Pipes Busy" \
    "$1" | sed 's/^ */     /'
  grep -E "stall|bank" "$1" | head -n 6 | cut -c 1-200 | sed 's/^ */     /'
}
declare -A cub_kernel=([scan]=DeviceScanKernel [select]=DeviceSelectSweepKernel [by_key]=DeviceScanByKeyKernel)
if [[ ${CUB:-0} == 1 ]]; then
  bash "$here/../cub/build.sh" "$out/cub_bench" >/dev/null || { echo "run-profile.sh: building cub_bench failed" >&2; exit 1; }
fi

status=0
for p in ${PRIMITIVES:-scan}; do
  for t in ${TYPES:-int}; do
    for n in ${SIZES:-2^22 2^28}; do
      name=$p-$t-${n/^/_}
      cache=$(mktemp -d)
      # CLSCAN_QUALIFY=0: no qualification check, whose small input would build a second program.
      if ! CLSCAN_QUALIFY=0 CLSCAN_CACHE_DIR=$cache CLSCAN_PLATFORM=NVIDIA "$build/tools/clscan-bench" --primitive "$p" --type "$t" \
        --sizes "$n" --reps 3 >"$out/$name.bench.txt" 2>&1; then
        echo "$name: clscan-bench failed (see $name.bench.txt)"; status=1; continue
      fi
      if ! candidates=$(python3 "$here/extract_ptx.py" "$cache" "${p}_single_pass" "$out/$name"); then
        echo "$name: no PTX for ${p}_single_pass in the cache"; status=1; continue
      fi
      rm -rf "$cache"
      bench_line=$(grep -E "^(2\^|[0-9])" "$out/$name.bench.txt" | tail -n 1)
      echo "== $name"
      echo "   clscan-bench: $bench_line"
      launch=()
      while read -r ptx wg items; do
        one=("$out/ptx_launch" --ptx "$ptx" --primitive "$p" --type "$t" --n "$n" --wg "$wg" --items "$items")
        line=$("${one[@]}" --reps 20 2>"$out/$name.launch.err") || { status=1; cat "$out/$name.launch.err"; }
        echo "   ptx_launch wg=$wg items=$items: $(cat "$out/$name.launch.err") $line (kernel_us copy_us ratio verified)"
        [[ ${#launch[@]} -gt 0 ]] || launch=("${one[@]}")
      done <<<"$candidates"
      if [[ $(wc -l <<<"$candidates") -gt 1 ]]; then
        echo "   several programs define ${p}_single_pass: profiling the first built, ${launch[2]}"
      fi
      args=()
      for s in $sections; do args+=(--section "$s"); done
      if ! "$ncu" "${args[@]}" -k regex:single_pass --launch-skip 1 --launch-count 1 "${launch[@]}" --reps 2 \
        >"$out/$name.txt" 2>&1; then
        echo "   ncu failed (see $name.txt)"; status=1; continue
      fi
      summarize "$out/$name.txt"
      if [[ ${CUB:-0} == 1 ]]; then
        # CUB's kernel for the same call, with the same sections (cub_bench runs warm-ups first: the
        # first launch of the kernel is profiled; its data are cub_bench's, the same distributions).
        "$ncu" "${args[@]}" -k "regex:${cub_kernel[$p]}" --launch-count 1 "$out/cub_bench" --primitive "$p" \
          --type "$t" --sizes "$n" --reps 1 >"$out/cub-$name.txt" 2>&1 || { echo "   ncu of cub_bench failed (see cub-$name.txt)"; status=1; continue; }
        echo "   CUB (${cub_kernel[$p]}):"
        summarize "$out/cub-$name.txt"
      fi
    done
  done
done
exit $status
