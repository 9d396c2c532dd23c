#!/usr/bin/env python3
"""A loopback HTTP server for the remote-model tests (tests/cli/test_cli_remote.cpp).

python3 -m http.server ignores Range, so this one serves what the remote reader needs:
  GET/HEAD /files/PATH                    a file under --root, with Range, ETag, Content-Length
  GET /api/models/OWNER/REPO              the Hugging Face hub's listing: {"siblings": [{"rfilename"}]}
  GET/HEAD /OWNER/REPO/resolve/main/FILE  302 to /files/OWNER/REPO/FILE, as the hub redirects to its CDN
Modes: normal; norange (Range ignored: 200 and the whole body, like some servers); stall
(listens but never accepts: connections open and nothing ever answers).
It binds 127.0.0.1 only, prints "PORT n" once listening, and rewrites --stats (JSON: requests,
head, get, ranged, bytes_sent) after every request so the test can count what was fetched.
With --token T, /api/models answers 401 unless "Authorization: Bearer T" is sent.
"""
import argparse
import json
import os
import re
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

STATS = {"requests": 0, "head": 0, "get": 0, "ranged": 0, "bytes_sent": 0}


def write_stats(path):
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(STATS, f)
    os.replace(tmp, path)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):  # keep the test's output clean
        pass

    def end_headers(self):
        # The request counts are on disk before the client can read a byte of the answer, so a
        # test reading them after the client exits sees this request (bytes_sent of a body is
        # added while it is written and saved once the request ends).
        write_stats(self.server.stats_path)
        super().end_headers()

    def do_HEAD(self):
        self.handle_any(head=True)

    def do_GET(self):
        self.handle_any(head=False)

    def handle_any(self, head):
        STATS["requests"] += 1
        STATS["head" if head else "get"] += 1
        try:
            self.route(head)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading (it has what it asked for)
        finally:
            write_stats(self.server.stats_path)

    def route(self, head):
        path = self.path.split("?", 1)[0]
        m = re.fullmatch(r"/api/models/([^/]+)/([^/]+)", path)
        if m:
            return self.listing(m.group(1), m.group(2))
        m = re.fullmatch(r"/([^/]+)/([^/]+)/resolve/main/(.+)", path)
        if m:
            self.send_response(302)
            self.send_header("Location", "/files/%s/%s/%s" % m.groups())
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if path.startswith("/files/"):
            return self.serve_file(path[len("/files/"):], head)
        self.send_error(404)

    def listing(self, owner, repo):
        token = self.server.token
        if token and self.headers.get("Authorization") != "Bearer " + token:
            self.send_error(401)
            return
        base = os.path.join(self.server.root, owner, repo)
        if not os.path.isdir(base):
            self.send_error(404)
            return
        files = []
        for dirpath, _, names in os.walk(base):
            for n in names:
                files.append(os.path.relpath(os.path.join(dirpath, n), base))
        body = json.dumps({"id": owner + "/" + repo,
                           "siblings": [{"rfilename": f} for f in sorted(files)]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        STATS["bytes_sent"] += len(body)
        self.end_headers()
        self.wfile.write(body)

    def serve_file(self, rel, head):
        full = os.path.realpath(os.path.join(self.server.root, rel))
        if not full.startswith(os.path.realpath(self.server.root) + os.sep) or not os.path.isfile(full):
            self.send_error(404)
            return
        st = os.stat(full)
        size = st.st_size
        etag = '"%x-%x"' % (size, int(st.st_mtime_ns))
        begin, end, status = 0, size, 200
        rng = self.headers.get("Range")
        if rng and self.server.mode != "norange":
            m = re.fullmatch(r"bytes=(\d+)-(\d*)", rng.strip())
            if not m or int(m.group(1)) >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.end_headers()
                return
            begin = int(m.group(1))
            end = min(size, int(m.group(2)) + 1) if m.group(2) else size
            status = 206
            STATS["ranged"] += 1
        self.send_response(status)
        self.send_header("Content-Length", str(end - begin))
        self.send_header("ETag", etag)
        self.send_header("Accept-Ranges", "none" if self.server.mode == "norange" else "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (begin, end - 1, size))
        self.end_headers()
        if head:
            return
        with open(full, "rb") as f:
            f.seek(begin)
            left = end - begin
            while left > 0:
                chunk = f.read(min(left, 64 * 1024))
                if not chunk:
                    break
                self.wfile.write(chunk)
                STATS["bytes_sent"] += len(chunk)
                left -= len(chunk)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--mode", choices=["normal", "norange", "stall"], default="normal")
    ap.add_argument("--stats", default="")
    ap.add_argument("--token", default="")
    args = ap.parse_args()

    if args.mode == "stall":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(16)  # the kernel completes handshakes; nobody ever accepts or answers
        print("PORT %d" % s.getsockname()[1], flush=True)
        while True:
            time.sleep(3600)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    server.root = args.root
    server.mode = args.mode
    server.stats_path = args.stats
    server.token = args.token
    write_stats(args.stats)
    print("PORT %d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
