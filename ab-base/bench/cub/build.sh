#!/usr/bin/env bash
# Builds cub_bench with nvcc (CUB comes with the CUDA toolkit: no include path needed). Not part of
# clscan's CMake build or CI; see bench/cub/README.md.
#
#   bench/cub/build.sh [OUTPUT]     default OUTPUT: ./cub_bench
#
# Environment: NVCC (default nvcc); CUDA_ARCH (e.g. sm_90; default: GPU 0's, from nvidia-smi).
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
"$nvcc" "${flags[@]}" -arch="$arch" -o "$out" "$here/cub_bench.cu"
echo "build.sh: built $out for $arch"
