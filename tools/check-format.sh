#!/usr/bin/env bash
# Checks that clscan's C and C++ sources and OpenCL kernels are formatted by the repository's .clang-format:
# prints each file that is not (with clang-format's description of the first differences) and exits
# non-zero on any, or when clang-format is missing. The ctest "clang-format" (label hygiene) runs it.
#
#   tools/check-format.sh            check
#   tools/check-format.sh --fix      rewrite the files in place instead
#
# Environment: CLANG_FORMAT (the program; default clang-format-14, else clang-format).
set -euo pipefail

source_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
me=check-format.sh

format=${CLANG_FORMAT:-}
if [[ -z $format ]]; then
  for candidate in clang-format-14 clang-format; do
    if command -v "$candidate" >/dev/null 2>&1; then format=$candidate; break; fi
  done
fi
if [[ -z $format ]] || ! command -v "$format" >/dev/null 2>&1; then
  echo "$me: FAILED: clang-format not found${format:+ ('$format')}: install it (Debian/Ubuntu package" \
       "'clang-format'), or set CLANG_FORMAT to the program" >&2
  exit 2
fi

cd "$source_dir"
mapfile -t files < <(find include lib tools tests kernels python -type f \
                       \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.h' -o -name '*.cl' \) | sort)
if [[ ${1:-} == --fix ]]; then
  "$format" -i "${files[@]}"
  exit 0
fi
# One clang-format process for every file (one per file took two minutes on a loaded 2-core machine);
# its diagnostics name the files that differ.
bad=()
if ! report=$("$format" --dry-run --Werror "${files[@]}" 2>&1); then
  mapfile -t bad < <(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' <<<"$report" | sort -u)
  if [[ ${#bad[@]} -eq 0 ]]; then
    echo "$report" >&2
    echo "$me: FAILED: clang-format failed" >&2
    exit 1
  fi
fi
if [[ ${#bad[@]} -gt 0 ]]; then
  for f in "${bad[@]}"; do "$format" --dry-run "$f" 2>&1 | head -n 12; done
  echo "$me: FAILED: ${#bad[@]} of ${#files[@]} files are not formatted: run tools/check-format.sh --fix" >&2
  exit 1
fi
echo "$me: ${#files[@]} files formatted as .clang-format says"
