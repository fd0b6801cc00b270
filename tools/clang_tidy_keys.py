#!/usr/bin/env python3
"""Prints "KEY FILE" for each FILE: a digest of everything clang-tidy's verdict on FILE depends on.

    clang_tidy_keys.py DATABASE TIDY_VERSION INPUT... -- FILE...

DATABASE: compile_commands.json. TIDY_VERSION: clang-tidy's --version text. INPUT: files whose content
decides the checks (.clang-tidy, the calling script). For each FILE the digest covers those, its compile
command, and the content of every file its compilation reads (the compiler's own -M list: the source
and each header, system headers included). The same key means clang-tidy would see the same input, so
a clean verdict stored under it (tools/run-clang-tidy.sh) holds. A FILE whose key cannot be computed is
left out (it is checked).
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys


def compile_arguments(entry):
    if "arguments" in entry:
        return list(entry["arguments"])
    return shlex.split(entry["command"])


def dependencies(entry):
    """The files the compilation of entry reads, from the compiler's -M output."""
    args = compile_arguments(entry)
    kept = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if arg in ("-c", "-MD", "-MMD") or arg.startswith("-o"):
            continue
        kept.append(arg)
    result = subprocess.run(kept + ["-M"], cwd=entry["directory"], capture_output=True, text=True, check=True)
    text = result.stdout.replace("\\\n", " ")
    rule = text.split(":", 1)[1] if ":" in text else ""
    return sorted({os.path.normpath(os.path.join(entry["directory"], name)) for name in rule.split()})


def key(entry, common):
    digest = hashlib.sha256(common)
    digest.update(json.dumps(compile_arguments(entry)).encode())
    for path in dependencies(entry):
        digest.update(path.encode() + b"\0")
        with open(path, "rb") as f:
            digest.update(hashlib.sha256(f.read()).digest())
    return digest.hexdigest()


def main(argv):
    if "--" not in argv or len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    split = argv.index("--")
    database, version, inputs, files = argv[1], argv[2], argv[3:split], argv[split + 1:]
    with open(database) as f:
        entries = {os.path.normpath(os.path.join(e["directory"], e["file"])): e for e in json.load(f)}
    common = hashlib.sha256(version.encode())
    for path in inputs:
        with open(path, "rb") as f:
            common.update(path.encode() + b"\0" + hashlib.sha256(f.read()).digest())
    base = common.digest()

    def one(path):
        entry = entries.get(os.path.normpath(path))
        if entry is None:
            return None
        try:
            return key(entry, base + path.encode())
        except (OSError, subprocess.CalledProcessError):
            return None

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for path, digest in zip(files, pool.map(one, files)):
            if digest:
                print(digest, path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
