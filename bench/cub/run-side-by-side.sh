#!/usr/bin/env bash
# clscan and CUB side by side, in one run: builds cub_bench into a clscan build directory, then
# for each primitive and type runs clscan-bench (on the NVIDIA OpenCL platform) and cub_bench with the
# same --primitive, sizes and repetitions, writes both CSVs (and their stderr) to OUT_DIR, and prints a
# compact table, also saved as OUT_DIR/side-by-side.txt.
#
#   bench/cub/run-side-by-side.sh [OUT_DIR [BUILD_DIR]]
#
# OUT_DIR defaults to $OUT; BUILD_DIR (default build-gpu) must hold a built tools/clscan-bench.
# Environment: PRIMITIVES (default "scan"; any of "scan select by_key reduce sort sort_by_key
# reduce_by_key unique_by_key run_length_encode reduce_segmented inclusive_segmented"), TYPES (default
# "int float long double"), SIZES (default 2^16,2^20,...,2^28), REPS (20), KEYS (the sorts' key
# distributions, default "uniform distinct7"), TRANSFORMS (default none; any of "twice positive even":
# scan and reduce run again with --transform 'x * 2', 'x > 0 ? 1 : 0', 'i % 2 == 0 ? x : 0'),
# SEGMENT_LENGTH (the segmented calls' --segment-length, default 1000), CUB_BENCH_REBUILD=1 (build
# cub_bench even when it is newer than its sources). Files: clscan-TYPE.csv and
# cub-TYPE.csv for scan, clscan-PRIMITIVE-TYPE.csv and cub-PRIMITIVE-TYPE.csv for the others, PRIMITIVE
# being e.g. sort-distinct7 for the sorts and scan-twice for a scan with a transform.
# Exit status: non-zero when any run failed (its CSV and .err file say why); the table is printed anyway.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-${OUT:-}}
build=${2:-build-gpu}
if [[ -z $out ]]; then
  echo "usage: run-side-by-side.sh [OUT_DIR [BUILD_DIR]] (or set OUT)" >&2
  exit 2
fi
if [[ ! -x $build/tools/clscan-bench ]]; then
  echo "run-side-by-side.sh: no $build/tools/clscan-bench: build clscan there first" >&2
  exit 2
fi
mkdir -p "$out"
primitives=${PRIMITIVES:-scan}
types=${TYPES:-int float long double}
known="scan select by_key reduce sort sort_by_key reduce_by_key unique_by_key run_length_encode reduce_segmented inclusive_segmented"
for p in $primitives; do
  if [[ " $known " != *" $p "* ]]; then
    echo "run-side-by-side.sh: PRIMITIVES: unknown '$p' (${known// /, }: those cub_bench measures)" >&2
    exit 2
  fi
done
# The transforms by short name (file names), and the expression both programs take.
transform_expression() {
  case $1 in
    twice) echo 'x * 2' ;;
    positive) echo 'x > 0 ? 1 : 0' ;;
    even) echo 'i % 2 == 0 ? x : 0' ;;
    *) return 1 ;;
  esac
}
transforms=${TRANSFORMS:-}
for f in $transforms; do
  transform_expression "$f" >/dev/null ||
    { echo "run-side-by-side.sh: TRANSFORMS: unknown '$f' (twice, positive, even)" >&2; exit 2; }
done
segment_length=${SEGMENT_LENGTH:-1000}
sizes=${SIZES:-2^16,2^20,2^22,2^24,2^26,2^28}
reps=${REPS:-20}
keys=${KEYS:-uniform distinct7}
# The runs: a primitive, a sort with one key distribution, or scan or reduce with one transform (their
# rows are reported apart).
runs=()
for p in $primitives; do
  case $p in
    sort | sort_by_key) for k in $keys; do runs+=("$p-$k"); done ;;
    scan | reduce) runs+=("$p"); for f in $transforms; do runs+=("$p-$f"); done ;;
    *) runs+=("$p") ;;
  esac
done

# Built once per build directory: again only when a source is newer than the program (each build of
# every call and type takes nvcc minutes of the GPU machine's time).
sources=("$here/cub_bench.cu" "$here/build.sh" "$here/../common/arguments.hpp" "$here/../../tools/bench/inputs.hpp"
         "$here/../../tools/bench/run_checks.hpp")
rebuild=${CUB_BENCH_REBUILD:-0}
[[ -x $build/cub_bench ]] || rebuild=1
for f in "${sources[@]}"; do [[ $f -nt $build/cub_bench ]] && rebuild=1; done
if [[ $rebuild == 1 ]]; then
  bash "$here/build.sh" "$build/cub_bench" || exit 1
else
  echo "run-side-by-side.sh: $build/cub_bench is newer than its sources: not rebuilt (CUB_BENCH_REBUILD=1 rebuilds)" >&2
fi
status=0
for run in "${runs[@]}"; do
  p=${run%%-*}
  key_flags=()
  if [[ $run == *-* ]]; then
    case $p in
      scan | reduce) key_flags=(--transform "$(transform_expression "${run#*-}")") ;;
      *) key_flags=(--keys "${run#*-}") ;;
    esac
  fi
  case $p in
    reduce_segmented | inclusive_segmented) key_flags=(--segment-length "$segment_length") ;;
  esac
  for t in $types; do
    name=$t
    [[ $run == scan ]] || name=$run-$t
    echo "run-side-by-side.sh: $run $t: clscan-bench" >&2
    # --no-std: CUB is the comparison here, and timing std::stable_sort at 2^28 takes minutes.
    CLSCAN_PLATFORM=NVIDIA "$build/tools/clscan-bench" --primitive "$p" "${key_flags[@]}" --type "$t" \
      --sizes "$sizes" --reps "$reps" --csv --no-std >"$out/clscan-$name.csv" 2>"$out/clscan-$name.err" ||
      { status=1; echo "  failed: see $out/clscan-$name.err" >&2; }
    echo "run-side-by-side.sh: $run $t: cub_bench" >&2
    "$build/cub_bench" --primitive "$p" "${key_flags[@]}" --type "$t" --sizes "$sizes" --reps "$reps" --csv \
      >"$out/cub-$name.csv" 2>"$out/cub-$name.err" || { status=1; echo "  failed: see $out/cub-$name.err" >&2; }
  done
done

python3 - "$out" "${runs[*]}" $types <<'PY' | tee "$out/side-by-side.txt"
import csv, os, sys

out, primitives, types = sys.argv[1], sys.argv[2].split(), sys.argv[3:]

def rows(path):
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {int(r["n"]): r for r in csv.DictReader(f) if r.get("n", "").isdigit()}

def n_text(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)

def num(r, key, fmt):
    try:
        return format(float(r[key]), fmt)
    except (KeyError, TypeError, ValueError):
        return "-"

def gkeys(r):
    try:
        return format(float(r["keys_per_s"]) / 1e9, ".2f")
    except (KeyError, TypeError, ValueError):
        return "-"

width = max([9] + [len(p) for p in primitives])
first = True
for p, t in ((p, t) for p in primitives for t in types):
    name = t if p == "scan" else f"{p}-{t}"  # p: a run's name
    cl, cub = rows(f"{out}/clscan-{name}.csv"), rows(f"{out}/cub-{name}.csv")
    if first:
        for who, rs in (("clscan", cl), ("CUB", cub)):
            r = next(iter(rs.values()), None)
            if r:
                print(f"{who}: {r.get('device', '?')}, {r.get('platform', '') + ' ' if 'platform' in r else ''}"
                      f"{r.get('driver', '?')}")
        print("ratio = copy time / call time (same process, same input bytes: by_key's values);")
        print("reduce's ratio is to a read of its input: (copy time / 2) / call time, in both programs;")
        print("us = median call time; cub/clscan = CUB's time over clscan's (> 1: clscan is faster)")
        print("select: \"x > 0\" with ~43 % kept; by_key: inclusive sum, int keys, segments of 1000 on average")
        print("reduce_by_key (sum), unique_by_key: by_key's int keys and values; run_length_encode: keys in by_key's")
        print("runs, ratio to a copy of the keys; reduce_segmented, inclusive_segmented: CSR segments of SEGMENT_LENGTH")
        print("(CUB's inclusive_segmented: InclusiveSumByKey over segment numbers); -twice, -positive, -even: scan")
        print("or reduce of 'x * 2', 'x > 0 ? 1 : 0', 'i % 2 == 0 ? x : 0' (compare with the plain row)")
        print("sort, sort_by_key (uint values): ratio to a copy of the keys; -uniform: random keys, -distinct7:")
        print("keys of 7 distinct values (they flatter every radix sort); Gk/s = 10^9 keys per second\n")
        print(f"{'primitive':<{width}} {'n':>6} {'type':<7} {'clscan_us':>10} {'ratio':>6} {'copy_GB/s':>9}   {'cub_us':>10} "
              f"{'ratio':>6} {'copy_GB/s':>9}   {'cub/clscan':>10}  verified  Gk/s clscan/cub")
        first = False
    for n in sorted(set(cl) | set(cub)):
        a, b = cl.get(n, {}), cub.get(n, {})
        try:
            rel = f"{float(b['scan_us']) / float(a['scan_us']):.3f}"
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            rel = "-"
        print(f"{p:<{width}} {n_text(n):>6} {t:<7} {num(a, 'scan_us', '.1f'):>10} {num(a, 'ratio', '.3f'):>6} "
              f"{num(a, 'copy_gbps', '.0f'):>9}   {num(b, 'scan_us', '.1f'):>10} {num(b, 'ratio', '.3f'):>6} "
              f"{num(b, 'copy_gbps', '.0f'):>9}   {rel:>10}  {a.get('verified', '-')}/{b.get('verified', '-')}"
              + (f"  {gkeys(a)}/{gkeys(b)}" if p.startswith("sort") else ""))
PY
exit $status
