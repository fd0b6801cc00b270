#!/usr/bin/env bash
# Builds cub_bench with nvcc (CUB comes with the CUDA toolkit: no include path needed). Not part of
# clscan's CMake build or CI; see bench/cub/README.md.
#
#   bench/cub/build.sh [OUTPUT]     default OUTPUT: ./cub_bench
#
# Environment: NVCC (default nvcc); CUDA_ARCH (e.g. sm_90; default: GPU 0's, from nvidia-smi);
# CUB_BENCH_JOBS (default 7): with more than 1, the six element types and main are compiled as seven
# parallel nvcc calls (cub_bench.cu's CUB_BENCH_PART and CUB_BENCH_SPLIT) and linked, which takes about
# the time of one type instead of six; 1: one nvcc call for the whole program.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-cub_bench}
nvcc=${NVCC:-nvcc}
if ! command -v "$nvcc" >/dev/null 2>&1; then
  echo "build.sh: '$nvcc' not found: cub_bench needs the CUDA toolkit" >&2
  exit 2
fi
flags=(-O3 -std=c++17)
# The architecture of GPU 0 as nvidia-smi reports it (e.g. 9.0 -> sm_90), so that CUB compiles the
# tuning it has for that GPU (nvcc's own default would be an older one, JIT-compiled); sm_90 without it.
arch=${CUDA_ARCH:-}
if [[ -z $arch ]]; then
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .') || true
  if [[ $cap =~ ^[0-9]+$ ]]; then
    arch=sm_$cap
  else
    arch=sm_90
    echo "build.sh: no GPU architecture from nvidia-smi; building for $arch (set CUDA_ARCH to choose)" >&2
  fi
fi
if [[ ${CUB_BENCH_JOBS:-7} == 1 ]]; then
  "$nvcc" "${flags[@]}" -arch="$arch" -o "$out" "$here/cub_bench.cu"
else
  objects=$(mktemp -d)
  trap 'rm -rf "$objects"' EXIT
  pids=()
  for part in 0 1 2 3 4 5; do
    "$nvcc" "${flags[@]}" -arch="$arch" -DCUB_BENCH_PART=$part -c -o "$objects/part$part.o" "$here/cub_bench.cu" &
    pids+=($!)
  done
  "$nvcc" "${flags[@]}" -arch="$arch" -DCUB_BENCH_SPLIT -c -o "$objects/main.o" "$here/cub_bench.cu" &
  pids+=($!)
  failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  if [[ $failed == 1 ]]; then
    echo "build.sh: a part of cub_bench did not compile (above); CUB_BENCH_JOBS=1 builds it in one call" >&2
    exit 1
  fi
  "$nvcc" -arch="$arch" -o "$out" "$objects"/main.o "$objects"/part*.o
fi
echo "build.sh: built $out for $arch"
