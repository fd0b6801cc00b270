#!/usr/bin/env python3
"""Writes the PTX of clscan's programs for NVIDIA that define a kernel, taken from clscan's disk cache,
and prints their launch shapes, for ptx_launch (bench/profile/README.md).

    extract_ptx.py CACHE_DIR ENTRY OUT_PREFIX

CACHE_DIR: a CLSCAN_CACHE_DIR that clscan filled on NVIDIA's OpenCL platform; ENTRY: a kernel's name
(scan_single_pass, select_single_pass, by_key_single_pass). Every cache entry whose PTX defines ENTRY is
written to OUT_PREFIX.wgW-itemsI.ptx (one call may have built several shapes: clscan's qualification
check of a device runs a small input), and one line "FILE W I" per file is printed. Exit status 1 when
no entry matches, 2 on a bad command line.
"""
import os
import re
import struct
import sys


def entries(cache_dir):
    """(mtime, identity text, binary) of every cache entry (lib/program/disk_cache.cpp's layout:
    magic, format, identity length, identity, binary length, XXH3 of the binary, binary)."""
    for name in os.listdir(cache_dir):
        if not name.endswith(".clbin"):
            continue
        path = os.path.join(cache_dir, name)
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"CLSCANBN":
            continue
        (identity_size,) = struct.unpack_from("<Q", data, 16)
        identity = data[24 : 24 + identity_size].decode("utf-8", "replace")
        (binary_size,) = struct.unpack_from("<Q", data, 24 + identity_size)
        binary_at = 24 + identity_size + 16
        yield os.path.getmtime(path), identity, data[binary_at : binary_at + binary_size]


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    cache_dir, entry, prefix = sys.argv[1:]
    found = 0
    for _, identity, binary in sorted(entries(cache_dir)):
        start = binary.find(b".version")
        if start < 0:
            continue
        end = binary.find(b"\0", start)
        ptx = binary[start : end if end >= 0 else len(binary)]
        if not re.search(rb"\.entry\s+" + re.escape(entry.encode()) + rb"\b", ptx):
            continue
        options = re.search(r"^options: (.*)$", identity, re.M)
        options = options.group(1) if options else ""
        wg = re.search(r"-DCLSCAN_WG=(\d+)", options)
        items = re.search(r"-DCLSCAN_ITEMS=(\d+)", options)
        if not wg or not items:
            print(f"extract_ptx.py: no CLSCAN_WG / CLSCAN_ITEMS in the options: {options}", file=sys.stderr)
            return 1
        path = f"{prefix}.wg{wg.group(1)}-items{items.group(1)}.ptx"
        with open(path, "wb") as f:
            f.write(ptx)
        print(path, wg.group(1), items.group(1))
        found += 1
    if not found:
        print(f"extract_ptx.py: no PTX in {cache_dir} defines {entry}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
