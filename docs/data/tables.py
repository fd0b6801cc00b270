#!/usr/bin/env python3
"""Writes the figure tables of docs/*.md from the CSV files in docs/data.

A table's place in a Markdown file is a pair of markers that name its CSV file:

    <!-- table: h200_scan.csv -->
    ... (generated: everything between the markers is replaced)
    <!-- /table -->

A figures CSV starts with comment lines that say what was measured, then a header and one row per
figure (one implementation, one series, one size):

    # title: scans, every type                       (optional, not printed)
    # device: NVIDIA H200, 132 SMs                   (required)
    # driver: NVIDIA 580.159.04, OpenCL 3.0 CUDA 13.0 (required)
    # method: ratio to a copy of the same bytes ...   (optional, printed under the table)
    # note: free text                                 (optional, any number, printed under the table)
    series,n,impl,value,unit,commit,date
    int,2^20,clscan,14.1,us,1031806,2026-11-24
    int,2^20,CUB,11.6,us,1031806,2026-11-24

- series: a column of the table (a type, a call, a number of ranks); columns keep the order in which
  their series first appear, rows the order of their n.
- impl: clscan, or the one reference it is compared with in the same run (CUB, std::inclusive_scan,
  ...); a file names at most one reference.
- value: the figure as measured (text: a range such as 0.925-0.926 is allowed); unit: ratio, us or ms.
- commit, date: the run that measured it: the tree measured, or for older runs the commit that
  recorded the figures (its own or its parent's tree is the code measured), and the run's date.

A cell shows "clscan / reference"; a missing figure is "—". Where the two figures of a cell come
from different runs the cell carries a dagger, and the runs are listed under the table.

    docs/data/tables.py           rewrite the tables in place
    docs/data/tables.py --check   exit 1 (and show the difference) where a table differs from its CSV

Python 3 standard library only.
"""

import argparse
import csv
import difflib
import io
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DOCS = ["docs/PERFORMANCE.md", "docs/SCALING.md"]
COLUMNS = ["series", "n", "impl", "value", "unit", "commit", "date"]
UNITS = {"ratio": "", "us": " µs", "ms": " ms", "x": "×"}
MARKER = re.compile(r"^<!-- table: ([A-Za-z0-9_.-]+\.csv) -->$")
END = "<!-- /table -->"


class Error(Exception):
    pass


def read_figures(path):
    meta = {"note": []}
    lines = path.read_text(encoding="utf-8").splitlines()
    body = []
    for number, line in enumerate(lines, 1):
        if line.startswith("#"):
            if body:
                raise Error(f"{path}:{number}: comment after the header")
            key, sep, text = line[1:].strip().partition(":")
            if not sep:
                raise Error(f"{path}:{number}: a comment line is '# key: text'")
            key, text = key.strip(), text.strip()
            if key == "note":
                meta["note"].append(text)
            elif key in ("title", "device", "driver", "method"):
                meta[key] = text
            else:
                raise Error(f"{path}:{number}: unknown key '{key}'")
        elif line.strip():
            body.append(line)
    for key in ("device", "driver"):
        if key not in meta:
            raise Error(f"{path}: no '# {key}:' line")
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    if reader.fieldnames != COLUMNS:
        raise Error(f"{path}: the header must be {','.join(COLUMNS)}")
    rows = list(reader)
    if not rows:
        raise Error(f"{path}: no figures")
    for row in rows:
        if any(row[c] is None or not row[c].strip() for c in COLUMNS):
            raise Error(f"{path}: a row with an empty field: {row}")
        if row["unit"] not in UNITS:
            raise Error(f"{path}: unit '{row['unit']}' is not one of {', '.join(UNITS)}")
        if not re.fullmatch(r"[0-9a-f]{7,40}", row["commit"]):
            raise Error(f"{path}: commit '{row['commit']}' is not a hash")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"]):
            raise Error(f"{path}: date '{row['date']}' is not YYYY-MM-DD")
    references = sorted({r["impl"] for r in rows} - {"clscan"})
    if len(references) > 1:
        raise Error(f"{path}: more than one reference implementation: {', '.join(references)}")
    return meta, rows, (references[0] if references else None)


def render(path):
    meta, rows, reference = read_figures(path)
    series, sizes, cells, runs = [], [], {}, {}
    for row in rows:
        if row["series"] not in series:
            series.append(row["series"])
        if row["n"] not in sizes:
            sizes.append(row["n"])
        key = (row["series"], row["n"], row["impl"])
        if key in cells:
            raise Error(f"{path}: two figures for {row['impl']} {row['series']} at {row['n']}")
        cells[key] = row
        runs.setdefault((row["date"], row["commit"]), []).append(row)

    def shown(row):
        return "—" if row is None else row["value"] + UNITS[row["unit"]]

    head = ["n"] + [f"{s}: clscan / {reference}" if reference else s for s in series]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    mixed = False
    for n in sizes:
        line = [n]
        for s in series:
            mine = cells.get((s, n, "clscan"))
            if reference is None:
                line.append(shown(mine))
                continue
            theirs = cells.get((s, n, reference))
            cell = f"{shown(mine)} / {shown(theirs)}"
            if mine and theirs and (mine["date"], mine["commit"]) != (theirs["date"], theirs["commit"]):
                cell += " †"
                mixed = True
            line.append(cell)
        out.append("| " + " | ".join(line) + " |")
    listed = []
    for (date, commit), members in runs.items():
        what = []
        for row in members:
            label = row["series"]
            if row["impl"] != "clscan":
                mine = cells.get((row["series"], row["n"], "clscan"))
                if mine and (mine["date"], mine["commit"]) != (date, commit):
                    label = f"{row['impl']} {label}"
            if label not in what:
                what.append(label)
        if len(runs) > 1 and len(what) == len(series):
            # The run covers every column: the rows it gave say more.
            what = []
            for row in members:
                if row["n"] not in what:
                    what.append(row["n"])
        listed.append(f"{date} at {commit} ({', '.join(what)})")
    out += ["", f"{meta['device']}; {meta['driver']}. Runs: " + "; ".join(listed) + "."]
    if mixed:
        out += ["", "† the two figures of this cell come from different runs."]
    for text in ([meta["method"]] if "method" in meta else []) + meta["note"]:
        out += ["", text]
    return out


def generate(text, source):
    lines = text.split("\n")
    result, index, seen = [], 0, []
    while index < len(lines):
        line = lines[index]
        result.append(line)
        index += 1
        match = MARKER.match(line)
        if not match:
            continue
        name = match.group(1)
        seen.append(name)
        end = index
        while end < len(lines) and lines[end] != END:
            if MARKER.match(lines[end]):
                raise Error(f"{source}: table {name} has no '{END}' before the next table")
            end += 1
        if end == len(lines):
            raise Error(f"{source}: table {name} has no '{END}'")
        csv_path = HERE / name
        if not csv_path.is_file():
            raise Error(f"{source}: table {name}: no docs/data/{name}")
        result.extend(render(csv_path))
        result.append(END)
        index = end + 1
    return "\n".join(result), seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 on a difference")
    args = parser.parse_args()
    status, used = 0, []
    try:
        for name in DOCS:
            path = ROOT / name
            text = path.read_text(encoding="utf-8")
            new, seen = generate(text, name)
            used += seen
            if new == text:
                continue
            if args.check:
                status = 1
                sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), name, name + " (from docs/data)"))
                print(f"tables: {name} differs from docs/data: run docs/data/tables.py")
            else:
                path.write_text(new, encoding="utf-8")
                print(f"tables: rewrote {name}")
        for path in sorted(HERE.glob("*.csv")):
            if path.read_text(encoding="utf-8").startswith("#") and path.name not in used:
                print(f"tables: docs/data/{path.name} is in no table (add '<!-- table: {path.name} -->')")
                status = 1
    except Error as error:
        print(f"tables: {error}")
        return 1
    if status == 0 and args.check:
        print(f"tables: {len(used)} tables match docs/data")
    return status


if __name__ == "__main__":
    sys.exit(main())
