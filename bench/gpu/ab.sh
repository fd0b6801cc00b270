#!/usr/bin/env bash
# A/B of clscan's speed between an earlier commit and this checkout, on one machine in one run: builds
# both (the earlier one from `git archive`, or from a tar of it), then runs clscan-bench for scans of four
# types and the other calls, alternating between the two builds for ROUNDS rounds, and prints one line
# per row: build (A = the earlier, B = this checkout), platform, call, type, size, ratio to a copy.
#
#   [CLSCAN_GPU_SETUP=script] bench/gpu/ab.sh REV|FILE.tar [PLATFORM...]
#
# PLATFORM: CLSCAN_PLATFORM texts (default NVIDIA); SIZES (2^24,2^28 for the first platform, 2^20,2^24
# for the others), REPS (20), ROUNDS (2). A difference between A and B beyond the spread of a build's
# own rounds is a change of speed. Exit status 1 when a build or a run failed.
set -uo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: [CLSCAN_GPU_SETUP=script] bench/gpu/ab.sh REV|FILE.tar [PLATFORM...]" >&2
  exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
base=$1
shift
platforms=("${@:-NVIDIA}")
work=$(mktemp -d)
if [[ -n ${CLSCAN_GPU_SETUP:-} ]]; then
  bash "$CLSCAN_GPU_SETUP" >"$work/setup.log" 2>&1 || { echo "ab.sh: $CLSCAN_GPU_SETUP failed" >&2; exit 1; }
fi
mkdir -p "$work/a-src"
if [[ -f $base ]]; then
  tar -xf "$base" -C "$work/a-src" || exit 1
else
  git archive "$base" | tar -xf - -C "$work/a-src" || exit 1
fi
options=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DCLSCAN_BUILD_TESTS=OFF -DCLSCAN_SANITIZER_TESTS=OFF
         -DCLSCAN_CLANG_TIDY_TEST=OFF)
status=0
build() { # build SOURCE DIR
  cmake -S "$1" -B "$2" "${options[@]}" >"$2.log" 2>&1 && cmake --build "$2" --target clscan-bench >>"$2.log" 2>&1 ||
    { echo "ab.sh: the build in $2 failed (see $2.log)" >&2; return 1; }
}
build "$work/a-src" "$work/A" & build . "$work/B" & wait || status=1
[[ -x $work/A/tools/clscan-bench && -x $work/B/tools/clscan-bench ]] || exit 1

rows() { # rows LABEL: clscan-bench CSV on stdin -> one line per row
  awk -F, -v label="$1" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
    { printf "%s %s %s %s %s ratio %s %s\n", label, $h["primitive"], $h["type"], $h["n"], $h["algorithm"],
             $h["ratio"], $h["error"] }'
}
bench() { # bench BUILD PLATFORM SIZES ARGS...
  local build=$1 platform=$2 sizes=$3
  shift 3
  CLSCAN_PLATFORM=$platform CLSCAN_CACHE_DIR=$work/cache-$build "$work/$build/tools/clscan-bench" \
    --csv --sizes "$sizes" --reps "${REPS:-20}" "$@" | rows "$build $platform" || status=1
}
first=1
for platform in "${platforms[@]}"; do
  sizes=${SIZES:-$([[ $first == 1 ]] && echo 2^24,2^28 || echo 2^20,2^24)}
  first=0
  for ((round = 1; round <= ${ROUNDS:-2}; ++round)); do
    echo "== $platform, round $round"
    for build in A B; do
      for type in int float long double; do bench $build "$platform" "$sizes" --primitive scan --type $type; done
      bench $build "$platform" "$sizes" --primitive select,partition,unique,by_key,reduce --type int
    done
  done
done
rm -rf "$work"
exit $status
