#!/usr/bin/env python3
"""One-note rebuilds of two or more `locker` binaries, interleaved, for an A/B of a change.

    python3 Benchmarks/ab.py VAULT NOTE RUNS name=BINARY[:ENV=VALUE...] name=BINARY ...

Each round writes NOTE (a note of VAULT) as it was with one line of its own added (it is put
back at the end), and rebuilds once with every variant, in turns that alternate the order. Each
variant builds into its own output folder beside the vault (`ab-out-0`, `ab-out-1`, ...), and
the folders are handed round halfway: two folders alone gave identical binaries a 1.5 %
difference in a run, which swapping cancels. Each half starts with two rebuilds per variant that
are not counted (a new binary rebuilds everything once).

Prints each variant's median wall and CPU time (user + system) and its ratio to the first
variant, paired round by round (the median of the ratios), for each half and in all. On a
shared machine, trust a ratio only when both halves agree; a change of less than 2 % needs more
runs than that, or a profile (`stages.py`).
"""
import os
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    vault, note, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    variants = []
    for spec in sys.argv[4:]:
        name, rest = spec.split("=", 1)
        binary, *settings = rest.split(":")
        variants.append((name, binary, dict(setting.split("=", 1) for setting in settings)))
    parent = os.path.dirname(os.path.abspath(vault))

    def build(binary, out, settings):
        environment = {**os.environ, "SOURCE_DATE_EPOCH": "0", **settings}
        start = time.perf_counter()
        process = subprocess.Popen([binary, "build", vault, "--out", out], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=environment)
        _, status, usage = os.wait4(process.pid, 0)
        if status != 0:
            sys.exit(f"{binary} build failed ({status})")
        return (time.perf_counter() - start) * 1000, (usage.ru_utime + usage.ru_stime) * 1000

    results = {name: [] for name, _, _ in variants}
    # Each round's note is the original with one line of its own, as `run.py` edits it: a note
    # that grew by a line a round made later rounds parse more. Put back as it was at the end.
    with open(note, encoding="utf-8") as handle:
        original = handle.read()
    try:
        measure(variants, outs_parent=parent, note=note, original=original, runs=runs, build=build,
                results=results)
    finally:
        with open(note, "w", encoding="utf-8") as handle:
            handle.write(original)
    report(variants, results)


def measure(variants, outs_parent, note, original, runs, build, results):
    """The rounds, in two halves with the output folders handed round between them."""
    parent = outs_parent
    for half in range(2):
        outs = {}
        for place, (name, binary, settings) in enumerate(variants):
            outs[name] = os.path.join(parent, f"ab-out-{(place + half) % len(variants)}")
            build(binary, outs[name], settings)
            build(binary, outs[name], settings)
        for round_ in range(runs // 2):
            with open(note, "w", encoding="utf-8") as handle:
                handle.write(original + f"\nA line of round {half}.{round_}.\n")
            order = variants if round_ % 2 == 0 else list(reversed(variants))
            for name, binary, settings in order:
                results[name].append(build(binary, outs[name], settings))


def report(variants, results):
    """Each variant's medians, and its paired ratio to the first, in all and by half."""
    base = variants[0][0]
    for name, _, _ in variants:
        walls = [wall for wall, _ in results[name]]
        cpus = [cpu for _, cpu in results[name]]
        ratios = [mine[0] / theirs[0] for mine, theirs in zip(results[name], results[base])]
        half = len(ratios) // 2
        print(f"{name:12} wall {statistics.median(walls):6.1f} ms (min {min(walls):5.1f})  "
              f"CPU {statistics.median(cpus):6.1f} ms  paired/{base} {statistics.median(ratios):.3f} "
              f"(halves {statistics.median(ratios[:half]):.3f}, {statistics.median(ratios[half:]):.3f})")


if __name__ == "__main__":
    main()
