#!/usr/bin/env python3
"""The latency `axt proxy` adds to each chunk of a stream (make bench-proxy).

Usage: scripts/proxy-latency.py AXT [EVENTS] [ROUNDS]

A stand-in upstream on loopback streams an Anthropic Messages SSE answer of EVENTS
text deltas (default 500), one chunk each, 2 ms apart, each stamped with the monotonic
clock when it is written. A client reads the answer directly from the upstream and through
`AXT proxy` (recording to a scratch directory) in alternating rounds (default 10 of each),
and takes each chunk's latency as its arrival time minus its stamp (one process, one
clock). Printed: median, p90 and p99 of both, and what the proxy adds (proxied minus direct,
quantile by quantile), with the load average, since other work on the machine moves both.
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STAMP = re.compile(rb"t=(\d+)")
PAUSE = 0.002


def event(kind, data):
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    events = 500

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = {
            "type": "message_start",
            "message": {"id": "msg_bench", "type": "message", "role": "assistant",
                        "model": "bench", "content": [],
                        "usage": {"input_tokens": 1, "output_tokens": 1}},
        }
        block = {"type": "content_block_start", "index": 0,
                 "content_block": {"type": "text", "text": ""}}
        self.chunk(event("message_start", start) + event("content_block_start", block))
        for _ in range(self.events):
            time.sleep(PAUSE)
            text = f"t={time.monotonic_ns()} "
            delta = {"type": "content_block_delta", "index": 0,
                     "delta": {"type": "text_delta", "text": text}}
            self.chunk(event("content_block_delta", delta))
        end = event("content_block_stop", {"type": "content_block_stop", "index": 0})
        end += event("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": "end_turn"},
                                        "usage": {"output_tokens": self.events}})
        end += event("message_stop", {"type": "message_stop"})
        self.chunk(end)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def chunk(self, data):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def latencies(port):
    """One answer's chunk latencies, in microseconds."""
    body = b'{"model":"bench","max_tokens":1,"stream":true,"messages":[{"role":"user","content":"go"}]}'
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.sendall(b"POST /v1/messages HTTP/1.1\r\nhost: bench\r\ncontent-type: application/json\r\n"
                 b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body))
    found = []
    pending = b""
    while True:
        data = sock.recv(65536)
        now = time.monotonic_ns()
        if not data:
            break
        pending += data
        for stamp in STAMP.findall(pending):
            found.append((now - int(stamp)) / 1000)
        # Keep only what may hold a stamp cut in two.
        cut = pending.rfind(b"t=")
        pending = pending[cut:] if cut >= 0 and not STAMP.match(pending[cut:] + b" ") else b""
    sock.close()
    return found


def quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main():
    axt = sys.argv[1]
    Upstream.events = int(sys.argv[2]) if len(sys.argv) > 2 else 500
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    upstream = server.server_address[1]
    out = tempfile.mkdtemp(prefix="axt-proxy-bench-")
    proxy = subprocess.Popen(
        [axt, "proxy", "--listen", "127.0.0.1:0", "--upstream", f"http://127.0.0.1:{upstream}",
         "--out", out, "--quiet"],
        stdout=subprocess.PIPE)
    line = proxy.stdout.readline().decode()
    proxied = int(line.rsplit(":", 1)[1])
    direct_all, proxied_all = [], []
    try:
        for _ in range(rounds):
            direct_all += latencies(upstream)
            proxied_all += latencies(proxied)
    finally:
        proxy.terminate()
        proxy.wait()
    runs = [name for name in os.listdir(out) if name.endswith(".jsonl")]
    assert len(runs) == rounds, runs
    print(f"load average {os.getloadavg()[0]:.1f}; {rounds} rounds x {Upstream.events} chunks "
          f"each way, interleaved; {len(runs)} runs recorded")
    marks = (("median", 0.5), ("p90", 0.9), ("p99", 0.99))
    print(f"{'':<22}" + "".join(f"{name:>10}" for name, _ in marks)
          + "  (microseconds, chunk written -> read)")
    for name, values in (("direct", direct_all), ("through axt proxy", proxied_all)):
        print(f"{name:<22}" + "".join(f"{quantile(values, q):>10.0f}" for _, q in marks))
    print(f"{'added by the proxy':<22}" + "".join(
        f"{quantile(proxied_all, q) - quantile(direct_all, q):>10.0f}" for _, q in marks))


if __name__ == "__main__":
    main()
