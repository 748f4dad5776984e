#!/usr/bin/env python3
"""Where a build's CPU goes, by stage, from a `perf` profile of release builds.

Each sample is put in the first stage (in the order below) one of whose patterns is part of a
function name on its stack; the patterns are pieces of Swift's mangled names, which change
when the code does: check the "other" lines after a rename.

    perf record -F 4000 -g -o perf.data -- sh -c 'for i in $(seq 30); do
        echo "edit $i" >> VAULT/folder-03/note-00003.md
        SOURCE_DATE_EPOCH=0 .build/release/locker build VAULT --out OUT >/dev/null; done'
    perf script -i perf.data -F comm,tid,ip,sym --no-demangle > perf.txt
    python3 Benchmarks/stages.py perf.txt --runs 30 --hz 4000
"""
import argparse
import collections

STAGES = [
    ("previous build's files checked", ["changedFiles"]),
    ("vault fingerprint", ["BuildFingerprintV8compiler"]),
    ("marker read", ["previousFiles"]),
    ("arguments", ["parseAsRoot"]),
    ("record decoded", ["NoteRecordV5bytes"]),
    ("notes parsed or stood in for", ["parseNotes"]),
    ("listing", ["VaultScannerV7listing"]),
    ("vault shape", ["LinkSurfaceV"]),
    ("decks", ["DeckCatalog"]),
    ("link tables", ["VaultIndexV"]),
    ("linking", ["BuiltAELLV"]),
    ("bundle files", ["BundleWriterV6render"]),
    ("manifest", ["writeManifest"]),
    ("record encoded", ["encodedRuns"]),
    ("site tables", ["siteTables"]),
    ("site", ["SiteBuilderV6render"]),
    ("record's notes gathered", ["noteRecordRuns"]),
    ("record written", ["writeRecord"]),
    ("commit", ["commit6record"]),
    ("compiler, between stages", ["CompilerV7compile"]),
    ("build command, between stages", ["BuildV3run"]),
]


def samples(path):
    """Each sample's stack, innermost frame first, as function names."""
    stack = []
    with open(path, errors="replace") as lines:
        for line in lines:
            line = line.rstrip("\n")
            if not line.strip():
                if stack:
                    yield stack
                stack = []
            elif line[0] in "\t ":
                stack.append(line.strip().split(" ", 1)[-1])
            elif stack:
                yield stack
                stack = []
    if stack:
        yield stack


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", help="the output of `perf script -F comm,tid,ip,sym --no-demangle`")
    parser.add_argument("--runs", type=int, default=1, help="how many builds the profile holds")
    parser.add_argument("--hz", type=int, default=4000, help="the sampling frequency (`perf record -F`)")
    arguments = parser.parse_args()
    counts = collections.Counter()
    total = 0
    for stack in samples(arguments.script):
        total += 1
        for name, patterns in STAGES:
            if any(pattern in frame for frame in stack for pattern in patterns):
                counts[name] += 1
                break
        else:
            counts["other: " + stack[-1][:50]] += 1
    if total == 0:
        raise SystemExit("no samples")
    each = 1000 / arguments.hz / arguments.runs
    print(f"{total * each:.1f} ms of CPU a build, {total} samples")
    for name, count in counts.most_common(40):
        print(f"{count * each:7.2f} ms  {100 * count / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()
