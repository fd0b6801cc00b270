#!/usr/bin/env python3
"""Writes a copy of kernels/ into OUT_DIR whose sort.cl can leave out one part of the one-pass sort's
kernel, so that bench/profile/sort_kernels.cpp (--kernels OUT_DIR/sort.cl --define NAME) shows what
that part costs. The results are wrong by design (sort_kernels reports them wrong):

  SORT_CUT_LOOKBACK  no tile waits for its predecessors (each still publishes its counts)
  SORT_CUT_SCATTER   no key is written out (ranked and placed as before)

Usage: bench/profile/sort_cuts.py OUT_DIR   (from a checkout's root)
"""
import pathlib
import shutil
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = pathlib.Path(sys.argv[1])
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree("kernels", out)
    path = out / "sort.cl"
    text = path.read_text()
    cuts = [
        ("    digits_before(status, tag, tile, publishes,",
         "#ifdef SORT_CUT_LOOKBACK\n    if (descending == 77)\n#endif\n    digits_before(status, tag, tile, publishes,"),
        ("    if (write_keys) dst[to] = keys[k];",
         "#ifdef SORT_CUT_SCATTER\n    if (write_keys == 77)\n#else\n    if (write_keys)\n#endif\n      dst[to] = keys[k];"),
    ]
    for old, new in cuts:
        if text.count(old) != 1:
            print(f"sort_cuts.py: kernels/sort.cl no longer has exactly one `{old.strip()}`", file=sys.stderr)
            return 1
        text = text.replace(old, new)
    path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
