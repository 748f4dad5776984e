#!/usr/bin/env python3
"""A small HTTP proxy that makes the faults a real server alone cannot, for the delivery tests.

It forwards GET requests to an upstream server (nginx, in the tests) and, for the requests that
a rule matches, misbehaves:

    {"rules": [
        {"match": "/bundles/v1/guide/*", "action": "truncate", "keep": 100},
        {"match": "*.json", "action": "corrupt"},
        {"match": "/bundles/v1/manifest.json", "action": "status", "status": 503},
        {"match": "*", "action": "delay", "seconds": 0.02},
        {"match": "*", "action": "drop", "after": 5}
    ]}

- ``delay``: waits ``seconds`` before forwarding (a slow server); other rules still apply.
- ``status``: answers ``status`` without forwarding (404, 500, 503...).
- ``truncate``: sends the upstream's headers with its full Content-Length, then the first
  ``keep`` bytes of the body (default: half), then closes the connection.
- ``corrupt``: sends the upstream's body with one byte changed (same length).
- ``drop``: closes the connection without answering (a server that stopped), for every
  matching request once ``after`` requests (default 0) came since the rules last changed.
- ``endless``: answers 200 without forwarding, with a body that does not end: ``chunk`` bytes
  (default 65536) at a time, ``seconds`` apart (default 0), chunked (no Content-Length) unless
  ``length`` gives a Content-Length to announce; gzip-encoded (``Content-Encoding: gzip``, each
  chunk of zeros a few bytes on the wire) when ``gzip`` is true. It stops sending after ``cap``
  body bytes (default 1 GiB; uncompressed) but keeps the connection open, the answer unfinished,
  for ``hold`` seconds (default 30), so that a client that never stops reading is not fed
  forever. Logged once the answer ends, with ``bytes`` the body bytes sent (uncompressed) and
  ``ended``: ``client`` when the client closed the connection, ``hold`` when the proxy did after
  the hold, ``stalled`` when the client neither read nor closed for that long.

``match`` is a shell pattern (``fnmatch``) over the request's path, query string excluded; the
first rule of each action that matches applies. The rules file is read again for every
request, so a test changes the faults by replacing the file (write, then rename). Without a
rules file, or with an empty one, the proxy only forwards.

Each request is logged as one JSON line in the log file, written before the last byte of the
answer, so a client that saw an answer finds its line: {"path": ..., "action": ..., "status":
..., "bytes": ...} (``bytes``: body bytes sent). A delayed request has a line of its own
(``"action": "delay"``) when its wait begins; an endless answer, which has no last byte, is
logged when it ends.

It listens on 127.0.0.1 only, on a free port it prints as the first line of standard output,
and exits when the process named by ``--parent-pid`` is gone (its test ended, however it
ended), or when its standard input closes.

    fault_proxy.py --upstream 127.0.0.1:8080 --rules rules.json --log proxy.log --parent-pid 42
"""

import argparse
import fnmatch
import http.client
import json
import os
import select
import socket
import sys
import threading
import time
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Headers that describe one hop, not the resource: never forwarded.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Proxy:
    """What every handler shares: the upstream, the rules file, the log and a request counter."""

    def __init__(self, upstream, rules_path, log_path):
        self.upstream = upstream
        self.rules_path = rules_path
        self.log_path = log_path
        self.lock = threading.Lock()
        self.text = ""
        self.seen = 0

    def rules(self):
        """The rules now, and how many requests came under them before this one.

        The count starts again whenever the rules change, so ``drop``'s ``after`` counts from the
        moment a test set it."""
        text = ""
        if self.rules_path:
            try:
                with open(self.rules_path, encoding="utf-8") as file:
                    text = file.read()
            except FileNotFoundError:
                pass
        with self.lock:
            if text != self.text:
                self.text = text
                self.seen = 0
            before = self.seen
            self.seen += 1
        return (json.loads(text).get("rules", []) if text.strip() else []), before

    def rule(self, rules, action, path):
        for rule in rules:
            if rule.get("action") == action and fnmatch.fnmatchcase(path, rule.get("match", "*")):
                return rule
        return None

    def log(self, entry):
        if not self.log_path:
            return
        line = json.dumps(entry, sort_keys=True) + "\n"
        with self.lock:
            with open(self.log_path, "a", encoding="utf-8") as file:
                file.write(line)
                file.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes: with Nagle's algorithm on, the second waits
    # for the client's delayed ACK, 40 ms a request.
    disable_nagle_algorithm = True
    proxy: Proxy  # set on the subclass made in main()

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # the JSON log says what happened; standard error stays quiet

    def do_GET(self):
        proxy = self.proxy
        path = urllib.parse.urlsplit(self.path).path
        rules, before = proxy.rules()

        drop = proxy.rule(rules, "drop", path)
        if drop is not None and before >= int(drop.get("after", 0)):
            proxy.log({"path": path, "action": "drop", "status": 0, "bytes": 0})
            self.hang_up()
            return

        delay = proxy.rule(rules, "delay", path)
        if delay is not None:
            # Logged before the wait, so a test knows the request is being held.
            proxy.log({"path": path, "action": "delay", "status": 0, "bytes": 0})
            time.sleep(float(delay.get("seconds", 0)))

        endless = proxy.rule(rules, "endless", path)
        if endless is not None:
            self.send_endless(path, endless)
            return

        fixed = proxy.rule(rules, "status", path)
        if fixed is not None:
            status = int(fixed.get("status", 500))
            body = f"fault_proxy: {status}\n".encode()
            proxy.log({"path": path, "action": "status", "status": status, "bytes": len(body)})
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return

        try:
            status, headers, body = self.forward()
        except OSError as error:
            # The upstream is down (stopped mid-test): the client sees what it would see of a
            # stopped server, a connection closed without an answer.
            proxy.log({"path": path, "action": "upstream-down", "status": 0, "bytes": 0, "error": str(error)})
            self.hang_up()
            return

        action = "forward"
        sent = body
        truncate = proxy.rule(rules, "truncate", path)
        corrupt = proxy.rule(rules, "corrupt", path)
        if truncate is not None and status == 200 and body:
            action = "truncate"
            keep = int(truncate.get("keep", len(body) // 2))
            sent = body[: max(0, min(keep, len(body) - 1))]
        elif corrupt is not None and status == 200 and body:
            action = "corrupt"
            at = int(corrupt.get("offset", len(body) // 2)) % len(body)
            sent = body[:at] + bytes([body[at] ^ 0x20]) + body[at + 1 :]

        proxy.log({"path": path, "action": action, "status": status, "bytes": len(sent)})
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                self.send_header(name, value)
        # The full length even when truncating: the client must see a body cut short.
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(sent)
        if action == "truncate":
            self.wfile.flush()
            self.hang_up()

    def send_endless(self, path, rule):
        """Answers 200 with a body that never ends (see ``endless`` above); logs it once it ends."""
        chunk = max(1, int(rule.get("chunk", 65536)))
        pause = float(rule.get("seconds", 0))
        cap = int(rule.get("cap", 1 << 30))
        length = rule.get("length")
        chunked = length is None
        compressor = zlib.compressobj(wbits=31) if rule.get("gzip") else None
        self.close_connection = True
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if compressor is not None:
            self.send_header("Content-Encoding", "gzip")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(int(length)))
        self.end_headers()
        zeros = bytes(chunk)
        sent = 0
        ended = "hold"
        hold = float(rule.get("hold", 30))
        # A client that stops reading without closing blocks the writes: given up after the hold.
        self.connection.settimeout(hold)
        try:
            while sent < cap:
                piece = zeros[: min(chunk, cap - sent)]
                wire = piece
                if compressor is not None:
                    wire = compressor.compress(piece) + compressor.flush(zlib.Z_SYNC_FLUSH)
                if chunked:
                    wire = b"%x\r\n" % len(wire) + wire + b"\r\n"
                self.wfile.write(wire)
                sent += len(piece)
                if pause > 0 and self.client_closed(pause):
                    raise ConnectionResetError("the client closed the connection")
            # Capped: the answer stays unfinished until the client gives up, or the hold ends.
            if self.client_closed(hold):
                ended = "client"
        except TimeoutError:
            ended = "stalled"
        except OSError:
            ended = "client"
        self.proxy.log({"path": path, "action": "endless", "status": 200, "bytes": sent, "ended": ended})
        self.hang_up()

    def client_closed(self, seconds):
        """Waits up to ``seconds`` for the client to close the connection; whether it did."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            readable, _, _ = select.select([self.connection], [], [], left)
            if readable:
                try:
                    if not self.connection.recv(65536):
                        return True
                except OSError:
                    return True

    def forward(self):
        """GETs the same path from the upstream; returns its status, headers and whole body."""
        connection = http.client.HTTPConnection(self.proxy.upstream, timeout=30)
        try:
            headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
            headers["Connection"] = "close"
            connection.request("GET", self.path, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()

    def hang_up(self):
        """Closes the connection at once, without (the rest of) an answer."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def watch_parent(parent):
    """Ends the proxy when its test process is gone, or when standard input closes."""

    def parent_gone():
        while True:
            if os.getppid() != parent:
                os._exit(0)
            time.sleep(0.2)

    def stdin_closed():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except OSError:
            pass
        os._exit(0)

    threading.Thread(target=parent_gone, daemon=True).start()
    threading.Thread(target=stdin_closed, daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="host:port of the server to forward to")
    parser.add_argument("--rules", help="a JSON rules file, read again for every request")
    parser.add_argument("--log", help="a file to append one JSON line per request to")
    parser.add_argument("--parent-pid", type=int, required=True, help="exit when this process is gone")
    parser.add_argument("--port", type=int, default=0, help="the port to listen on; 0, a free one")
    arguments = parser.parse_args()

    watch_parent(arguments.parent_pid)
    handler = type("BoundHandler", (Handler,), {"proxy": Proxy(arguments.upstream, arguments.rules, arguments.log)})
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
