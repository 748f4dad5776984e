#!/usr/bin/env python3
"""Times the LockerKit runtime (release build) on a bundle of generated flashcards.

Usage: python3 Benchmarks/run_runtime.py [CARDS] [RUNS]. Writes a vault of CARDS inline cards in
decks of 500, builds it with `locker build`, then runs `locker-runtime-bench` on the bundle:
opening and verifying it, the day's queue, and the median time of one saved review."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, ".build", "release")


def main():
    cards = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = sys.argv[2] if len(sys.argv) > 2 else "7"
    work = tempfile.mkdtemp(prefix="locker-runtime-")
    try:
        vault = os.path.join(work, "vault")
        os.makedirs(vault)
        per_deck = 500
        for deck in range((cards + per_deck - 1) // per_deck):
            lines = ["---", "type: deck", f"id: deck-{deck:03d}", f"title: Deck {deck}", "---", ""]
            for card in range(deck * per_deck, min(cards, (deck + 1) * per_deck)):
                lines.append(f"What does signal {card} mean, and when is it given?::"
                             f"Answer {card}: one prolonged blast, then two short ones (Rule 35). ^c{card}")
            with open(os.path.join(vault, f"deck-{deck:03d}.md"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines) + "\n")
        out = os.path.join(work, "out")
        subprocess.run([os.path.join(RELEASE, "locker"), "build", vault, "--out", out], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
        subprocess.run([os.path.join(RELEASE, "locker-runtime-bench"), os.path.join(out, "bundles", "v1"), runs],
                       check=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
