#!/usr/bin/env python3
"""Times `locker sync` (release) pulling a signed bundle of generated guide notes from nginx.

Usage: python3 Benchmarks/run_sync.py [NOTES] [RUNS]   (defaults: 10000 notes, 5 runs)

Generates the vault `make bench` uses (`generate.py --guides`), makes a key pair with
`locker keygen`, builds the vault signed (`SOURCE_DATE_EPOCH` the current time) and serves the
output folder with nginx (`nginx-light` from Debian) on a free port of 127.0.0.1, from a
configuration in the temporary folder: one process in the foreground, ETags on, no compression,
an access log of each request's URI, status and bytes sent. Then, RUNS times each:

- first sync: `locker sync URL --into DIR --key PUB` into a new, empty folder each run;
- no change: the same again into the last of those folders (one conditional request, a 304);
- one note edited: a line appended to one guide note, the vault built again into the same
  output folder with `SOURCE_DATE_EPOCH` 60 s later, and `locker sync` into a copy of a folder
  synced before the edit (the copy made before the run, outside its time).

For each: the median wall time and its range, the median CPU time, the peak resident memory of
the largest run (`wait4`), and from nginx's access log the requests and the body bytes sent of
one run (a run that differs from the others is reported). For the edit, the two manifests are
compared: which files changed their hash, which appeared and which went away; the update should
fetch the manifest, its signature and those files, nothing else. The counts `locker sync`
prints are checked against nginx's.

LOCKER_BENCH_DIR chooses where the vault, the output and the synced folders go, as for run.py;
`/dev/shm` takes the disk (and the cost of making the downloaded files durable) out. The
machine is shared and noisy: quote medians, and re-run before drawing conclusions.
"""
import gzip
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCKER = os.path.join(ROOT, ".build", "release", "locker")
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

NGINX_CONFIG = """\
daemon off;
master_process off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
    types {{ application/json json; text/html html; text/css css; }}
    default_type application/octet-stream;
    log_format sync '$request_uri\\t$status\\t$body_bytes_sent\\t$bytes_sent';
    access_log {work}/access.log sync;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    sendfile on;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        etag on;
        location / {{ }}
    }}
}}
"""


class Nginx:
    """nginx serving `root` on a free port of 127.0.0.1, its files in `work`."""

    def __init__(self, root, work):
        self.work = work
        os.makedirs(work)
        self.log = os.path.join(work, "access.log")
        for attempt in range(5):
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                self.port = probe.getsockname()[1]
            config = os.path.join(work, "nginx.conf")
            with open(config, "w") as handle:
                handle.write(NGINX_CONFIG.format(work=work, port=self.port, root=root))
            self.process = subprocess.Popen([NGINX, "-p", work, "-c", config, "-e", os.path.join(work, "error.log")],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if self.wait_ready():
                return
            # Another program took the port between the probe and nginx: try another.
        sys.exit(f"nginx did not start: {self.errors()}")

    def wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def errors(self):
        text = ""
        path = os.path.join(self.work, "error.log")
        if os.path.exists(path):
            text += open(path, errors="replace").read()
        if self.process.poll() is not None and self.process.stderr:
            text += self.process.stderr.read().decode(errors="replace")
        return text[-2000:]

    def mark(self):
        """Where the access log ends now."""
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def requests_since(self, mark):
        """The (URI, status, body bytes) of each request logged after `mark`. nginx writes a
        request's line once its response is sent: wait until no more arrive."""
        last = None
        while True:
            size = self.mark()
            if size == last:
                break
            last = size
            time.sleep(0.05)
        with open(self.log, "rb") as handle:
            handle.seek(mark)
            lines = handle.read().decode(errors="replace").splitlines()
        requests = []
        for line in lines:
            uri, status, body, _ = line.split("\t")
            requests.append((uri, int(status), int(body)))
        return requests

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def run(arguments, environment=None):
    """Runs a command; returns its wall seconds, CPU seconds, peak RSS in MB and standard output."""
    start = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, **(environment or {})})
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    stdout = process.stdout.read().decode(errors="replace")
    stderr = process.stderr.read().decode(errors="replace")
    process.stdout.close()
    process.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(arguments)} failed ({code}):\n{stdout[-2000:]}{stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def reported(stdout):
    """The files and bytes `locker sync` says it downloaded: (0, 0) when up to date."""
    if stdout.startswith("Up to date"):
        return 0, 0
    match = re.search(r": ([\d,]+) files, ([\d,]+) bytes downloaded", stdout)
    if not match:
        sys.exit(f"locker sync said something unexpected: {stdout!r}")
    return int(match.group(1).replace(",", "")), int(match.group(2).replace(",", ""))


def manifest_files(path):
    with open(path, "rb") as handle:
        manifest = json.load(handle)
    return {entry["path"]: entry["sha256"] for entry in manifest["files"]}, manifest.get("version")


def measure(name, runs, nginx, sync, prepare=None):
    """Runs `sync(index)` RUNS times, `prepare(index)` before each outside the time."""
    walls, cpus, peaks, logged, said = [], [], [], [], []
    for index in range(runs):
        if prepare:
            prepare(index)
        mark = nginx.mark()
        wall, cpu, peak, stdout = run(sync(index))
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
        logged.append(nginx.requests_since(mark))
        said.append(reported(stdout))
    return {"name": name, "walls": walls, "cpu": statistics.median(cpus), "rss": max(peaks), "requests": logged,
            "said": said}


def summary(requests):
    statuses = {}
    for _, status, _ in requests:
        statuses[status] = statuses.get(status, 0) + 1
    return ", ".join(f"{count:,}×{status}" for status, count in sorted(statuses.items()))


def check(result, expected_requests, manifest_uri, files_expected):
    """Problems with a row's counts: runs whose requests differ, fewer or more requests than the
    manifests call for, and counts `locker sync` printed that differ from nginx's."""
    problems = []
    shapes = {tuple(sorted(run)) for run in result["requests"]}
    if len(shapes) > 1:
        problems.append(f"the runs made different requests: {[len(run) for run in result['requests']]}")
    for index, (requests, (files, size)) in enumerate(zip(result["requests"], result["said"])):
        if len(requests) != expected_requests:
            problems.append(f"run {index + 1}: {len(requests)} requests, the manifests call for {expected_requests}")
        downloads = [r for r in requests if r[0] != manifest_uri and "/signatures/" not in r[0] and r[1] == 200]
        if files != files_expected or files != len(downloads) or size != sum(r[2] for r in downloads):
            problems.append(f"run {index + 1}: locker sync reports {files:,} files and {size:,} bytes; nginx sent "
                            f"{len(downloads):,} files of {sum(r[2] for r in downloads):,} bytes; expected "
                            f"{files_expected:,} files")
        if any(status not in (200, 304) for _, status, _ in requests):
            problems.append(f"run {index + 1}: {summary(requests)}")
    return problems


def main():
    notes = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if not os.access(LOCKER, os.X_OK):
        sys.exit("no release build: run `make bench-sync`, which builds it")
    if not os.access(NGINX, os.X_OK):
        sys.exit("no nginx: run `make bench-sync`, which installs nginx-light")
    work = tempfile.mkdtemp(prefix="locker-sync-bench-", dir=os.environ.get("LOCKER_BENCH_DIR"))
    nginx = None
    try:
        vault = os.path.join(work, "vault")
        out = os.path.join(work, "out")
        keys = os.path.join(work, "keys")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "generate.py"), vault, str(notes), "--guides"],
                       check=True)
        subprocess.run([LOCKER, "keygen", "--out", keys], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        private = os.path.join(keys, "locker-signing.key")
        public = os.path.join(keys, "locker-signing.pub")
        epoch = int(time.time())
        build = [LOCKER, "build", vault, "--out", out, "--sign-key", private]
        run(build, {"SOURCE_DATE_EPOCH": str(epoch)})
        bundle = os.path.join(out, "bundles", "v1")
        before, version = manifest_files(os.path.join(bundle, "manifest.json"))
        size = sum(os.path.getsize(os.path.join(bundle, path)) for path in before)
        nginx = Nginx(out, os.path.join(work, "nginx"))
        url = f"http://127.0.0.1:{nginx.port}/bundles/v1/"
        manifest_uri = "/bundles/v1/manifest.json"
        print(f"vault: {notes:,} guide notes; bundle: {len(before):,} files, {size / 1e6:.1f} MB, version {version}; "
              f"served by nginx {nginx.port}; {runs} runs each; {os.cpu_count()} cores")

        def sync(folder):
            return lambda index: [LOCKER, "sync", url, "--into", folder(index), "--key", public]

        results, problems = [], []
        fresh = [os.path.join(work, f"first-{index}") for index in range(runs)]
        results.append(measure("first sync (empty folder)", runs, nginx, sync(lambda index: fresh[index])))
        problems += check(results[-1], 2 + len(before), manifest_uri, len(before))
        synced = fresh[-1]
        results.append(measure("no change", runs, nginx, sync(lambda index: synced)))
        problems += check(results[-1], 1, manifest_uri, 0)

        # The folder as synced before the edit, copied before each update run.
        base = os.path.join(work, "base")
        shutil.copytree(synced, base, symlinks=True)
        paths = sorted(os.path.join(folder, name) for folder, _, names in os.walk(vault) for name in names
                       if name.endswith(".md"))
        edited = paths[len(paths) // 2]
        with open(edited, "a", encoding="utf-8") as handle:
            handle.write("\nEdited line for the sync benchmark.\n")
        run(build, {"SOURCE_DATE_EPOCH": str(epoch + 60)})
        after, new_version = manifest_files(os.path.join(bundle, "manifest.json"))
        changed = sorted(path for path in after if path in before and before[path] != after[path])
        added = sorted(path for path in after if path not in before)
        removed = sorted(path for path in before if path not in after)
        updates = [os.path.join(work, f"update-{index}") for index in range(runs)]
        results.append(measure("one note edited", runs, nginx, sync(lambda index: updates[index]),
                               prepare=lambda index: shutil.copytree(base, updates[index], symlinks=True)))
        problems += check(results[-1], 2 + len(changed) + len(added), manifest_uri, len(changed) + len(added))
        served = open(os.path.join(bundle, "manifest.json"), "rb").read()
        for folder in updates + [synced]:
            if folder != synced and open(os.path.join(folder, "manifest.json"), "rb").read() != served:
                problems.append(f"{folder}: its manifest is not the one served")

        print(f"{'':27} {'median':>8} {'range':>15} {'CPU':>7} {'requests':>18} {'body bytes':>12} {'peak RSS':>9}")
        for result in results:
            walls = result["walls"]
            requests = result["requests"][len(result["requests"]) // 2]
            span = f"{min(walls):.3f}–{max(walls):.3f} s"
            print(f"{result['name']:27} {statistics.median(walls):7.3f}s {span:>15} {result['cpu']:6.2f}s "
                  f"{summary(requests):>18} {sum(r[2] for r in requests):>12,} {result['rss']:6.0f} MB")
        # A bundle's files are named after their content: a file whose bytes change comes back
        # under a new path, and the old path leaves the manifest.
        print(f"edited {os.path.relpath(edited, vault)}; the manifests (version {version} → {new_version}): "
              f"{len(changed) + len(added)} of {len(after):,} files new by path and SHA-256 ({len(changed)} with a "
              f"new hash under the same path, {len(added)} under a new path), {len(removed)} gone")
        manifest_bytes = len(served)
        print(f"manifest.json: {manifest_bytes:,} bytes ({len(gzip.compress(served, 6)):,} gzipped; nginx here does "
              f"not compress)")
        listed = [("changed", path) for path in changed] + [("added", path) for path in added] + \
            [("removed", path) for path in removed]
        for kind, path in listed[:20]:
            print(f"  {kind:8} {path}")
        if len(listed) > 20:
            print(f"  … and {len(listed) - 20} more")
        update = results[-1]["requests"][len(results[-1]["requests"]) // 2]
        print(f"the update's requests ({len(update)}):")
        for uri, status, body in update[:20]:
            print(f"  {status} {body:>10,} B  {uri}")
        if problems:
            print("PROBLEMS:")
            for problem in problems:
                print("  " + problem)
            sys.exit(1)
    finally:
        if nginx:
            nginx.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
