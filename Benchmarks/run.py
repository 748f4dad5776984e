#!/usr/bin/env python3
"""Times `locker check` and `locker build` (release build) on a generated vault.

Usage: python3 Benchmarks/run.py [NOTES] [RUNS]. Prints the median wall time and the peak
resident memory of each command. Run on a quiet machine; quote medians, not single runs."""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCKER = os.path.join(ROOT, ".build", "release", "locker")


def measure(arguments, runs):
    times, peaks = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        result = subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
        times.append(time.perf_counter() - start)
        peaks.append(max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
        if result.returncode not in (0, 1):
            sys.exit(f"{' '.join(arguments)} failed: {result.stderr.decode()[-2000:]}")
    return statistics.median(times), max(peaks) / 1024


def main():
    notes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    work = tempfile.mkdtemp(prefix="locker-bench-")
    try:
        vault = os.path.join(work, "vault")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), vault, str(notes)], check=True)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(vault) for f in fs)
        print(f"vault: {notes} notes, {size / 1e6:.1f} MB; {runs} runs each; {os.cpu_count()} cores")
        for name, arguments in [
            ("check", [LOCKER, "check", vault]),
            ("build", [LOCKER, "build", vault, "--out", os.path.join(work, "out")]),
        ]:
            median, peak = measure(arguments, runs)
            print(f"locker {name}: median {median:.2f} s, peak RSS {peak:.0f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
