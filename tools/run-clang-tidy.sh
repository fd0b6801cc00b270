#!/usr/bin/env bash
# Runs clang-tidy with the checks of .clang-tidy (repository root) over clscan's own sources, the .cpp
# files under lib/ and tools/ (subdirectories included), and the headers of lib/, tools/ and include/clscan/ they include, with the compile
# commands of a build directory. Prints every finding and exits non-zero on any, when clang-tidy is
# missing, or when the build directory has no compile_commands.json. The ctest "clang-tidy" (label
# hygiene, tests/cmake/sanitizers.cmake) runs it on its own build directory.
#
#   tools/run-clang-tidy.sh [BUILD_DIR [DIR...]]   BUILD_DIR defaults to ./build; DIR: lib, tools or
#                                                   both (the default)
#
# Environment: CLANG_TIDY (the program; default clang-tidy-14, else clang-tidy), JOBS (parallel
# clang-tidy processes; default: the number of CPUs), CLSCAN_TIDY_CACHE (a folder of clean verdicts;
# default ~/.cache/clscan/clang-tidy, empty: none). A file found clean is not checked again while it,
# every header it includes, its compile command, clang-tidy and .clang-tidy stay the same
# (tools/clang_tidy_keys.py computes that key; without python3 every file is checked). Configure BUILD_DIR with a Ninja or Makefile
# generator: clscan's top-level CMakeLists.txt turns CMAKE_EXPORT_COMPILE_COMMANDS on for this.
set -euo pipefail

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build}
me=run-clang-tidy.sh
shift $(( $# > 0 ? 1 : 0 ))
areas=("$@")
(( ${#areas[@]} > 0 )) || areas=(lib tools)
for area in "${areas[@]}"; do
  if [[ $area != lib && $area != tools ]]; then
    echo "$me: FAILED: '$area' is not a directory this script checks (lib or tools)" >&2
    exit 2
  fi
done
area_pattern=$(IFS='|'; printf '%s' "${areas[*]}")

tidy=${CLANG_TIDY:-}
if [[ -z $tidy ]]; then
  for candidate in clang-tidy-14 clang-tidy; do
    if command -v "$candidate" >/dev/null 2>&1; then tidy=$candidate; break; fi
  done
fi
if [[ -z $tidy ]] || ! command -v "$tidy" >/dev/null 2>&1; then
  echo "$me: FAILED: clang-tidy not found${tidy:+ ('$tidy')}: install it (Debian/Ubuntu package" \
       "'clang-tidy'), or set CLANG_TIDY to the program" >&2
  exit 2
fi

database=$build_dir/compile_commands.json
if [[ ! -f $database ]]; then
  echo "$me: FAILED: no $database: configure that build with a Ninja or Makefile generator" \
       "(clscan's CMakeLists.txt sets CMAKE_EXPORT_COMPILE_COMMANDS when CLSCAN_CLANG_TIDY_TEST is ON)" >&2
  exit 2
fi
build_dir=$(cd "$build_dir" && pwd)

# The source directory as an extended regular expression.
escaped_source_dir=$(printf '%s' "$source_dir" | sed 's/[][\.*^$+?(){}|]/\\&/g')

# The sources of the database (as CMake writes them: one "file": "..." per entry) that are clscan's
# own .cpp files under lib/ and tools/; generated sources (the embedded kernels) are not checked.
mapfile -t files < <(grep -o '"file": *"[^"]*"' "$build_dir/compile_commands.json" |
                     sed -e 's/^"file": *"//' -e 's/"$//' |
                     grep -E "^$escaped_source_dir/($area_pattern)/.*\.cpp$" |
                     sort -u)
mapfile -t sources < <(for area in "${areas[@]}"; do find "$source_dir/$area" -name '*.cpp'; done | sort)
for source in "${sources[@]}"; do
  if ! printf '%s\n' "${files[@]}" | grep -qxF "$source"; then
    echo "$me: note: ${source#"$source_dir"/} is not built in $build_dir; not checked"
  fi
done
if (( ${#files[@]} == 0 )); then
  echo "$me: FAILED: no lib/ or tools/ source of $source_dir in $database" >&2
  exit 2
fi

jobs=${JOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

version=$("$tidy" --version | grep -i version | head -n 1 | sed 's/^ *//')
start=$SECONDS

# Files whose clean verdict is stored under their current key are not checked again.
cache=${CLSCAN_TIDY_CACHE-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/clscan/clang-tidy}
declare -A key_of=()
if [[ -n $cache ]] && mkdir -p "$cache" 2>/dev/null && [[ -w $cache ]] && command -v python3 >/dev/null; then
  while read -r key file; do
    key_of[$file]=$key
  done < <(python3 "$source_dir/tools/clang_tidy_keys.py" "$database" "$version" "$source_dir/.clang-tidy" \
             "$source_dir/tools/run-clang-tidy.sh" -- "${files[@]}" 2>/dev/null || true)
else
  cache=
fi
unchanged=0
to_check=()
for file in "${files[@]}"; do
  if [[ -n ${key_of[$file]:-} && -f $cache/${key_of[$file]} ]]; then
    unchanged=$((unchanged + 1))
  else
    to_check+=("$file")
  fi
done
echo "$me: $version, ${#files[@]} files${cache:+ ($unchanged clean before and unchanged, in $cache)}, $jobs jobs"
# -std=c++17 first: GCC compiles C++17 without a -std option (its default), clang-tidy's clang would
# not; a -std in the compile command itself still wins. The tools are single-threaded programs:
# concurrency-mt-unsafe (exit, setenv, ...) is for the library only.
(( ${#to_check[@]} == 0 )) || printf '%s\n' "${to_check[@]}" | xargs -P "$jobs" -I{} sh -c '
  name=$(printf "%s" "$1" | tr / _)
  case $1 in "$4"/tools/*) extra=--checks=-concurrency-mt-unsafe ;; *) extra=--checks= ;; esac
  "$2" -p "$3" --quiet --config-file="$4/.clang-tidy" --extra-arg-before=-std=c++17 "$extra" \
       --header-filter="^$5/(include/clscan|lib|tools)/" "$1" > "$6/$name.log" 2>&1 ||
    : > "$6/$name.failed"' sh {} "$tidy" "$build_dir" "$source_dir" "$escaped_source_dir" "$out"

# Everything but clang's "N warnings generated." counts; a finding in a header is printed once.
findings_in() {
  cat "$@" /dev/null | grep -vE '^[0-9]+ (warnings?|errors?)( and [0-9]+ errors?)? generated\.$' |
    grep -vE '^Suppressed [0-9]+ warnings|^Use -header-filter|^Error while processing' || true
}
shopt -s nullglob
logs=("$out"/*.log)
shopt -u nullglob
findings=$(findings_in "${logs[@]}")
if [[ -n $cache ]]; then
  for file in "${to_check[@]}"; do
    name=$(printf '%s' "$file" | tr / _)
    if [[ -n ${key_of[$file]:-} && ! -e $out/$name.failed && -z $(findings_in "$out/$name.log") ]]; then
      : > "$cache/${key_of[$file]}" || true
    fi
  done
fi
failed=$(ls "$out" | grep -c '\.failed$' || true)
locations=$(printf '%s\n' "$findings" | grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error):' | sort -u || true)
count=$(printf '%s' "$locations" | grep -c . || true)

if [[ -n $findings ]]; then
  # Each finding with its context, headers' findings once: print per file, skip repeated blocks.
  printf '%s\n' "$findings" | awk '
    /^[^ ].*:[0-9]+:[0-9]+: (warning|error):/ { if ($0 in seen) { skip = 1; next } seen[$0] = 1; skip = 0 }
    !skip { print }'
fi
echo "$me: $count finding(s) in ${#files[@]} files ($((SECONDS - start)) s)"
if (( count > 0 || failed > 0 )); then
  if (( count > 0 )); then
    echo "$me: by check:"
    printf '%s\n' "$locations" | grep -oE '\[[a-zA-Z0-9.,_-]+\]$' | sed 's/,-warnings-as-errors//' |
      sort | uniq -c | sort -rn
  fi
  echo "$me: FAILED" >&2
  exit 1
fi
echo "$me: clean"
