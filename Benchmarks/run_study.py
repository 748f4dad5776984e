#!/usr/bin/env python3
"""Times LockerKit's study engine (release build) on 10,000 cards and a year of simulated history.

Usage: python3 Benchmarks/run_study.py [CARDS] [RUNS]. Runs `locker-runtime-bench study`, which
needs no bundle: it makes the cards in memory, simulates a year of daily sittings (SM-2 with
learning steps, seeded grades) into a progress database in a temporary folder, then times the
next day's queue, one saved review, `setScheduling` replaying the whole log (to FSRS and back),
and merging 10,000 events of a second device into a copy of the database, and merging them again.
`make bench-study` builds the program first."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")


def main():
    cards = sys.argv[1] if len(sys.argv) > 1 else "10000"
    runs = sys.argv[2] if len(sys.argv) > 2 else "7"
    subprocess.run([os.path.join(RELEASE, "locker-runtime-bench"), "study", cards, runs], check=True)


if __name__ == "__main__":
    main()
