#!/usr/bin/env python3
"""Times Pagefind indexing a site `locker build` (release) made, and measures the index.

Usage: python3 Benchmarks/run_site_search.py [NOTES] [RUNS]   (defaults: 10000 notes, 3 runs)

Two sites: the default vault's (`content/`), and that of the vault `make bench` uses
(`generate.py --guides`, NOTES notes). Each is built once with the release `locker` into a
temporary folder, then indexed RUNS times with `python3 -m pagefind --site SITE` (the Pagefind
of `.build/tools`, pinned in Tests/browser/requirements.txt), the previous index removed before
each run. For each site it prints the pages indexed, the median wall time and its range, the
median CPU time over the wall time (2.0 means both of two cores busy), the peak resident memory
of the largest run (`wait4`; the build's too, for scale), and the index: its files and bytes in all, the bytes of its
fragments (one per page), of its word indexes, and of what a browser loads before the first
result (the entry, the metadata and WebAssembly of one language, pagefind.js and the UI).

LOCKER_BENCH_DIR chooses where the vault and outputs go, as for run.py. The machine is shared and
noisy: quote medians, and re-run before drawing conclusions.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCKER = os.environ.get("LOCKER_BIN") or os.path.join(ROOT, ".build", "release", "locker")
PYTHON = os.path.join(ROOT, ".build", "tools", "bin", "python3")


def run(arguments):
    """Runs a command; returns its wall seconds, CPU seconds, peak RSS in MB and its output."""
    start = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
    output = process.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.stdout.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(arguments)} failed: {output[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


def sizes(index):
    """Files and bytes of the index, in all and by part."""
    total, files, parts = 0, 0, {"fragment": 0, "index": 0, "first": 0}
    entry = json.load(open(os.path.join(index, "pagefind-entry.json")))
    language = next(iter(entry["languages"].values()))
    first = {"pagefind-entry.json", "pagefind.js", "pagefind-ui.js", "pagefind-ui.css", "pagefind-worker.js",
             "wasm.%s.pagefind" % language["wasm"], "pagefind.%s.pf_meta" % language["hash"]}
    for folder, _, names in os.walk(index):
        for name in names:
            size = os.path.getsize(os.path.join(folder, name))
            total += size
            files += 1
            part = os.path.relpath(folder, index)
            if part in parts:
                parts[part] += size
            if part == "." and name in first:
                parts["first"] += size
    return {"files": files, "bytes": total, **parts, "languages": sorted(entry["languages"])}


def measure(name, site, runs):
    index = os.path.join(site, "pagefind")
    walls, cores, peaks, output = [], [], [], ""
    for _ in range(runs):
        shutil.rmtree(index, ignore_errors=True)
        wall, cpu, peak, output = run([PYTHON, "-m", "pagefind", "--site", site])
        walls.append(wall)
        cores.append(cpu / wall)
        peaks.append(peak)
    pages = re.search(r"Indexed (\d+) pages", output)
    words = re.search(r"Indexed (\d+) words", output)
    return {"name": name, "pages": int(pages.group(1)) if pages else None,
            "words": int(words.group(1)) if words else None, "wall": statistics.median(walls),
            "range": (min(walls), max(walls)), "cores": statistics.median(cores), "rss": max(peaks),
            **sizes(index)}


def main():
    notes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if not os.access(LOCKER, os.X_OK):
        sys.exit("no release build: run `make bench-site-search`, which builds it")
    if subprocess.run([PYTHON, "-m", "pagefind", "--version"], capture_output=True).returncode != 0:
        sys.exit("no Pagefind in .build/tools: run `make bench-site-search`, which installs it")
    version = subprocess.run([PYTHON, "-m", "pagefind", "--version"], capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="locker-search-", dir=os.environ.get("LOCKER_BENCH_DIR"))
    try:
        vault = os.path.join(work, "vault")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), vault, str(notes),
                        "--guides"], check=True, stdout=subprocess.DEVNULL)
        rows = []
        for name, source in (("content/", os.path.join(ROOT, "content")), ("%d notes" % notes, vault)):
            out = os.path.join(work, "out-" + str(len(rows)))
            wall, _, build_rss, _ = run([LOCKER, "build", source, "--out", out])
            site = os.path.join(out, "site")
            html = sum(name.endswith(".html") for _, _, names in os.walk(site) for name in names)
            row = measure(name, site, runs)
            row["build"], row["build_rss"], row["html"] = wall, build_rss, html
            rows.append(row)
        print("%s, %d runs each, median (range)" % (version, runs))
        print("| site | pages (indexed of HTML files) | locker build (peak RSS) | pagefind | cores | peak RSS | index "
              "| fragments | word indexes | first search loads |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            print("| %s | %s of %d, %s words, %s | %.2f s (%.0f MB) | %.2f s (%.2f–%.2f s) | %.2f | %.0f MB "
                  "| %d files, %.1f MB | %.1f MB | %.1f MB | %.0f KB |" % (
                      row["name"], row["pages"], row["html"], row["words"], ", ".join(row["languages"]),
                      row["build"], row["build_rss"], row["wall"], row["range"][0], row["range"][1], row["cores"], row["rss"],
                      row["files"], row["bytes"] / 1e6, row["fragment"] / 1e6, row["index"] / 1e6,
                      row["first"] / 1e3))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
