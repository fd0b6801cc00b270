#!/usr/bin/env python3
"""Times clscan.inclusive against pyopencl.array.cumsum and numpy.cumsum in one process, and each
against a device copy of the same bytes (cl.enqueue_copy, buffer to buffer) on the same device.

    PYTHONPATH=build/python /usr/bin/python3 python/bench.py [--platform TEXT] [--sizes 2^10,2^20]
                                                             [--types int32,float32] [--reps N]

Each row is one size and dtype: median host times of a call that enqueues and then waits for its
event (what a Python caller sees, Python overhead included), and ratio = copy time / its time
(higher is faster; 1.0 runs at copy speed). clscan scans out of place into a preallocated array;
pyopencl.array.cumsum allocates its result from a memory pool; numpy.cumsum scans a host array into
a preallocated one of the same dtype (no transfers), and is compared with the device's copy too.
Every method's last result is checked against numpy (integers exactly, floats within rounding).
"""

import argparse
import re
import statistics
import sys
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.tools

import clscan


def parse_size(text):
    """'1000', '2^20', '2^20+3' or '64K' -> int."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:\^\s*(\d+))?\s*(?:\+\s*(\d+))?\s*([KMG]?)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    base, exponent, plus, unit = match.groups()
    value = int(base) ** int(exponent) if exponent else int(base)
    value *= {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[unit]
    return value + int(plus or 0)


def pick_device(platform_text):
    if platform_text is None:
        return clscan.select_device()
    for platform in cl.get_platforms():
        if platform_text.lower() in platform.name.lower():
            devices = platform.get_devices()
            if devices:
                return devices[0]
    names = ", ".join(repr(p.name) for p in cl.get_platforms())
    sys.exit(f"bench.py: no platform with a device matches {platform_text!r} (platforms: {names})")


def median_time(call, reps, budget_s):
    """Median seconds of call() over `reps` runs (fewer when they exceed budget_s, at least 3)."""
    times = []
    started = time.perf_counter()
    while len(times) < reps and (len(times) < 3 or time.perf_counter() - started < budget_s):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def check(name, got, x, sequential=False):
    """Exits when `got` is not the inclusive sum of x: integers exactly; floats within the rounding
    of a tree of additions (64 ulps of the running sum of |x|), or of a sequential one (n ulps)."""
    if x.dtype.kind == "f":
        reference = np.cumsum(x.astype(np.float64))
        ulps = len(x) if sequential else 64
        bound = np.cumsum(np.abs(x).astype(np.float64)) * ulps * np.finfo(x.dtype).eps
        ok = bool(np.all(np.abs(got.astype(np.float64) - reference) <= bound))
    else:
        ok = np.array_equal(got, np.cumsum(x, dtype=x.dtype))
    if not ok:
        sys.exit(f"bench.py: {name} gave a wrong result for n={len(x)} {x.dtype}")


def bench_row(queue, pool, n, dtype, reps, budget_s):
    rng = np.random.default_rng(n)
    if np.dtype(dtype).kind == "f":
        x = rng.uniform(-1.0, 1.0, n).astype(dtype)
    else:
        x = rng.integers(-100, 101, n).astype(dtype)
    src = cla.to_device(queue, x, allocator=pool)
    dst = cla.empty_like(src)
    nbytes = x.nbytes

    def copy():
        cl.enqueue_copy(queue, dst.base_data, src.base_data, byte_count=nbytes).wait()

    def scan_clscan():
        clscan.inclusive(src, dst).wait()

    results = {}

    def scan_pyopencl():
        event, results["pyopencl"] = cla.cumsum(src, return_event=True)
        event.wait()

    host_out = np.empty_like(x)

    def scan_numpy():
        results["numpy"] = np.cumsum(x, out=host_out)

    row = {}
    for name, call in (("copy", copy), ("clscan", scan_clscan), ("pyopencl", scan_pyopencl),
                       ("numpy", scan_numpy)):
        call()  # warm-up: builds kernels (or loads them from the caches), allocates
        row[name] = median_time(call, reps, budget_s)
        src.events.clear()  # every call above waited for its own event
        dst.events.clear()
    check("clscan.inclusive", dst.get(), x)
    check("pyopencl.array.cumsum", results["pyopencl"].get(), x)
    check("numpy.cumsum", results["numpy"], x, sequential=True)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--platform", help="first device of the first platform whose name contains "
                        "this text (case-insensitive); default: clscan.select_device() "
                        "(CLSCAN_PLATFORM, CLSCAN_DEVICE)")
    parser.add_argument("--sizes", default="2^10,2^16,2^20,2^24",
                        type=lambda s: [parse_size(t) for t in s.split(",")],
                        help="element counts, e.g. 2^10,2^20+3,64K (default %(default)s)")
    parser.add_argument("--types", default="int32,float32",
                        type=lambda s: [np.dtype(t) for t in s.split(",")],
                        help="numpy dtypes clscan scans (default %(default)s)")
    parser.add_argument("--reps", type=int, default=30,
                        help="timed calls per method and row, fewer past 2 s (default %(default)s)")
    args = parser.parse_args()

    device = pick_device(args.platform)
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    pool = pyopencl.tools.MemoryPool(pyopencl.tools.ImmediateAllocator(queue))
    print(f"device: {device.name} ({device.platform.name}, {device.version}); "
          f"clscan {clscan.__version__}, pyopencl {cl.VERSION_TEXT}, numpy {np.__version__}")
    print()
    print("| n | dtype | copy µs | clscan µs | clscan ratio | pyopencl µs | pyopencl ratio "
          "| numpy µs | numpy ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dtype in args.types:
        for n in args.sizes:
            row = bench_row(queue, pool, n, dtype, args.reps, 2.0)
            copy = row["copy"]
            cells = [f"{copy * 1e6:.1f}"]
            for name in ("clscan", "pyopencl", "numpy"):
                cells += [f"{row[name] * 1e6:.1f}", f"{copy / row[name]:.3f}"]
            exponent = n.bit_length() - 1
            size = f"2^{exponent}" if n == 1 << exponent else str(n)
            print(f"| {size} | {dtype} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
