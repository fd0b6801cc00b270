#!/usr/bin/env python3
"""Plots clscan-bench --csv output: scan bandwidth against n, one line per algorithm, plus the
bandwidth of clEnqueueCopyBuffer of the same bytes, and below it the scan/copy ratio.

    clscan-bench --algorithm all --csv > bench.csv
    tools/plot_bench.py bench.csv --out bench.png

Several CSV files may be given (e.g. one per algorithm, type or device); their rows are plotted
together. Rows whose verification failed are drawn with a red cross; rows with errors are left out.
Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3).
"""

import argparse
import csv
import math
import statistics
import sys
from collections import OrderedDict, defaultdict


def read_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            missing = {"n", "algorithm", "scan_gbps", "copy_gbps"} - set(reader.fieldnames or [])
            if missing:
                sys.exit(f"plot_bench: {path} is not clscan-bench --csv output (no column {', '.join(sorted(missing))})")
            for row in reader:
                if row.get("verified") == "error" or not row.get("scan_gbps"):
                    continue
                try:
                    row["n"] = int(row["n"])
                    row["scan_gbps"] = float(row["scan_gbps"])
                    row["copy_gbps"] = float(row["copy_gbps"]) if row.get("copy_gbps") else math.nan
                    row["ratio"] = float(row["ratio"]) if row.get("ratio") else math.nan
                except ValueError:
                    continue
                if row["n"] <= 0:
                    continue
                rows.append(row)
    return rows


def distinct(rows, key):
    return list(OrderedDict.fromkeys(r.get(key, "") for r in rows))


def size_label(n):
    if n > 0 and n & (n - 1) == 0:
        return f"$2^{{{n.bit_length() - 1}}}$"
    return str(n)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("csv", nargs="+", help="CSV files written by clscan-bench --csv")
    parser.add_argument("--out", default="bench.png", help="PNG to write (default bench.png)")
    parser.add_argument("--title", help="title (default: the device name from the CSV)")
    parser.add_argument("--no-ratio", action="store_true", help="leave out the scan/copy ratio panel")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench: matplotlib is missing (apt install python3-matplotlib, and run /usr/bin/python3)")

    rows = read_rows(args.csv)
    if not rows:
        sys.exit("plot_bench: no plottable rows (only errors, or empty files)")

    devices = distinct(rows, "device")
    # A line is one algorithm; device, type, op and kind join its label where the files differ in them.
    varying = [k for k in ("device", "type", "op", "kind") if len(distinct(rows, k)) > 1]

    def line_key(r):
        return tuple(r.get(k, "") for k in varying) + (r["algorithm"],)

    def line_label(key):
        parts = list(key[:-1])
        if "device" in varying and len(parts) > 0:
            parts[0] = parts[0][:28]
        return " ".join(parts + [key[-1]])

    lines = OrderedDict()
    for r in rows:
        lines.setdefault(line_key(r), []).append(r)

    # The copy is measured next to every scan; per device (and element size) and n, take the median.
    copy_key_fields = [k for k in ("device", "type") if k in varying]
    copies = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if not math.isnan(r["copy_gbps"]):
            copies[tuple(r.get(k, "") for k in copy_key_fields)][r["n"]].append(r["copy_gbps"])

    panels = 1 if args.no_ratio else 2
    fig, axes = plt.subplots(panels, 1, figsize=(9, 5.5 if panels == 1 else 8.5), sharex=True,
                             gridspec_kw={"height_ratios": [3, 1.4]} if panels == 2 else None, squeeze=False)
    ax = axes[0][0]
    markers = "os^Dv<>p*h"
    for i, (key, line_rows) in enumerate(lines.items()):
        line_rows.sort(key=lambda r: r["n"])
        xs = [r["n"] for r in line_rows]
        ys = [r["scan_gbps"] for r in line_rows]
        (handle,) = ax.plot(xs, ys, marker=markers[i % len(markers)], linewidth=1.6, label=line_label(key))
        bad = [r for r in line_rows if r.get("verified") == "FAIL"]
        if bad:
            ax.plot([r["n"] for r in bad], [r["scan_gbps"] for r in bad], "x", color="red", markersize=11,
                    markeredgewidth=2, label="_nolegend_")
        if panels == 2:
            axes[1][0].plot(xs, [r["ratio"] for r in line_rows], marker=markers[i % len(markers)],
                            color=handle.get_color(), linewidth=1.4)
    for key, by_n in copies.items():
        ns = sorted(by_n)
        label = "copy" + (" " + " ".join(k[:28] for k in key) if key else "")
        ax.plot(ns, [statistics.median(by_n[n]) for n in ns], color="black", linestyle="--", linewidth=1.6,
                label=label + " (clEnqueueCopyBuffer)")
    if any(r.get("verified") == "FAIL" for r in rows):
        ax.plot([], [], "x", color="red", markersize=11, markeredgewidth=2, label="verification FAILED")

    all_n = sorted({r["n"] for r in rows})
    for a in (row[0] for row in axes):
        a.set_xscale("log", base=2)
        a.grid(True, which="major", alpha=0.35)
        a.set_xticks(all_n)
        a.set_xticklabels([size_label(n) for n in all_n])
    ax.set_ylabel("GB/s (read + write bytes)")
    ax.set_ylim(bottom=0)
    ax.legend(loc="best", fontsize=9)
    if panels == 2:
        r_ax = axes[1][0]
        r_ax.axhline(1.0, color="black", linestyle="--", linewidth=1)
        r_ax.set_ylabel("scan / copy")
        r_ax.set_ylim(bottom=0)
        r_ax.set_xlabel("n (elements)")
    else:
        ax.set_xlabel("n (elements)")

    details = []
    for k in ("type", "op", "kind"):
        if k not in varying:
            v = distinct(rows, k)[0]
            if v:
                details.append(v)
    title = args.title or (" / ".join(d for d in devices if d) or "clscan-bench")
    if details and not args.title:
        title += "\n" + " ".join(details) + " scan"
    ax.set_title(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"plot_bench: wrote {args.out} ({len(rows)} rows, {len(lines)} lines)")


if __name__ == "__main__":
    main()
