#!/usr/bin/env python3
"""Times LockerKit's ContentSearch (release build) on the 10,000-note benchmark vault.

Usage: python3 Benchmarks/run_search.py [NOTES] [RUNS]. Writes the mixed vault of generate.py
(English and Russian words, every tenth note a checklist, a deck), builds it with `locker build`,
edits one note and builds again into a second folder, then runs `locker-runtime-bench search` on
both bundles with the queries of Tests/lockerTests/Fixtures/search-relevance.json."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")


def main():
    notes = sys.argv[1] if len(sys.argv) > 1 else "10000"
    runs = sys.argv[2] if len(sys.argv) > 2 else "3"
    work = tempfile.mkdtemp(prefix="locker-search-", dir=os.environ.get("LOCKER_BENCH_DIR"))
    try:
        vault = os.path.join(work, "vault")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), vault, notes], check=True,
                       stdout=subprocess.DEVNULL)
        environment = {**os.environ, "SOURCE_DATE_EPOCH": "0"}
        locker = os.path.join(RELEASE, "locker")
        first, second = os.path.join(work, "first"), os.path.join(work, "second")
        subprocess.run([locker, "build", vault, "--out", first], check=True, stdout=subprocess.DEVNULL, env=environment)
        notes = sorted(os.path.join(folder, name) for folder, _, names in os.walk(vault) for name in names
                       if name.startswith("note-"))
        with open(notes[len(notes) // 2], "a", encoding="utf-8") as handle:
            handle.write("\nOne more paragraph about the windlass and the snubber, edited.\n")
        subprocess.run([locker, "build", vault, "--out", second], check=True, stdout=subprocess.DEVNULL,
                       env=environment)
        queries = os.path.join(ROOT, "Tests", "lockerTests", "Fixtures", "search-relevance.json")
        subprocess.run([os.path.join(RELEASE, "locker-runtime-bench"), "search", os.path.join(first, "bundles", "v1"),
                        os.path.join(second, "bundles", "v1"), queries, runs], check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
