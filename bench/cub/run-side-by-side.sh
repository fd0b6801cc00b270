#!/usr/bin/env bash
# clscan and CUB side by side, in one run: builds cub_bench into a clscan build directory, then
# for each primitive and type runs clscan-bench (on the NVIDIA OpenCL platform) and cub_bench with the
# same --primitive, sizes and repetitions, writes both CSVs (and their stderr) to OUT_DIR, and prints a
# compact table, also saved as OUT_DIR/side-by-side.txt.
#
#   bench/cub/run-side-by-side.sh [OUT_DIR [BUILD_DIR]]
#
# OUT_DIR defaults to $OUT; BUILD_DIR (default build-gpu) must hold a built tools/clscan-bench.
# Environment: PRIMITIVES (default "scan"; any of "scan select by_key reduce sort sort_by_key"), TYPES
# (default "int float long double"), SIZES (default 2^16,2^20,...,2^28), REPS (20), KEYS (the sorts' key
# distributions, default "uniform distinct7"). Files: clscan-TYPE.csv and cub-TYPE.csv for scan,
# clscan-PRIMITIVE-TYPE.csv and cub-PRIMITIVE-TYPE.csv for the others, PRIMITIVE being e.g.
# sort-distinct7 for the sorts.
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
for p in $primitives; do
  case $p in
    scan | select | by_key | reduce | sort | sort_by_key) ;;
    *) echo "run-side-by-side.sh: PRIMITIVES: unknown '$p' (scan, select, by_key, reduce, sort, sort_by_key: those cub_bench measures)" >&2
       exit 2 ;;
  esac
done
sizes=${SIZES:-2^16,2^20,2^22,2^24,2^26,2^28}
reps=${REPS:-20}
keys=${KEYS:-uniform distinct7}
# The runs: a primitive, or a sort with one key distribution (its rows are reported apart).
runs=()
for p in $primitives; do
  case $p in
    sort | sort_by_key) for k in $keys; do runs+=("$p-$k"); done ;;
    *) runs+=("$p") ;;
  esac
done

bash "$here/build.sh" "$build/cub_bench" || exit 1
status=0
for run in "${runs[@]}"; do
  p=${run%%-*}
  key_flags=()
  [[ $run == *-* ]] && key_flags=(--keys "${run#*-}")
  for t in $types; do
    name=$t
    [[ $p == scan ]] || name=$run-$t
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
    name = t if p == "scan" else f"{p}-{t}"
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
