#!/usr/bin/env python3
"""Hostile requests to `canitrun serve`: path traversal (plain and %-encoded), encoded slashes,
NUL, a 100 KB header, 10,000 parameters, invalid UTF-8, absurd numbers, methods other than GET,
a slow client, clients that trickle a request a byte at a time (its headers, its request line,
a body). Each gets an error status (or, where the request line never ends, a closed connection)
in bounded time, no trickler holds a worker past the request deadline (8 s, whatever the
pace), and the server keeps answering, its memory stays bounded and its threads stay the
fixed pool's.

Usage: serve_hostile_test.py CANITRUN_BINARY
"""
import json
import os
import socket
import sys
import threading
import time

from serve_support import Failures, Server

binary = sys.argv[1]
LIMIT_S = 10  # every answer within this; the server's read timeout is 5 s
DEADLINE_S = 8  # a whole request arrives within this (src/serve/request_deadline.hpp)


def trickle(port, head, tail, pace=0.5):
    """Sends `head` at once, then `tail` a byte every `pace` s until the server answers or
    closes; (status or None, seconds from the first trickled byte)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=LIMIT_S + DEADLINE_S)
    s.sendall(head)
    start = time.monotonic()
    s.settimeout(pace)
    reply = b""
    for byte in tail:
        try:
            s.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            break
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            break
        reply += chunk
        if not chunk or b"\r\n\r\n" in reply:
            break
    seconds = time.monotonic() - start
    s.close()
    return (int(reply[9:12]) if reply.startswith(b"HTTP/1.1 ") else None), seconds


def raw(port, data, timeout=LIMIT_S):
    """Sends bytes, reads until the server closes; (status or None, body, seconds)."""
    start = time.monotonic()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
            head, sep, body = reply.partition(b"\r\n\r\n")
            length = [int(line.split(b":")[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")]
            if sep and length and len(body) >= length[0]:
                break
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    status = None
    if reply.startswith(b"HTTP/1.1 "):
        status = int(reply[9:12])
    return status, reply.partition(b"\r\n\r\n")[2], time.monotonic() - start


def get(target):
    return b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


f = Failures()
# Under AddressSanitizer (CI's sanitizer build) freed memory is held in a quarantine of 256 MB
# by default; a small one keeps the memory bound below meaningful there too.
asan = os.environ.get("ASAN_OPTIONS", "")
server = Server(binary, "--quiet",
                env={"ASAN_OPTIONS": (asan + ":" if asan else "") + "quarantine_size_mb=16"})
port = server.port
HOSTILE = [
    ("traversal", get(b"/../../etc/passwd")),
    ("traversal under assets", get(b"/assets/../../etc/passwd")),
    ("encoded traversal", get(b"/%2e%2e/%2e%2e/etc/passwd")),
    ("encoded traversal, upper case", get(b"/assets/%2E%2E/%2E%2E/etc/passwd")),
    ("encoded slash", get(b"/assets/..%2F..%2Fetc%2Fpasswd")),
    ("encoded slash in a model", get(b"/api/v1/models/..%2f..%2fetc%2fpasswd")),
    ("encoded backslash", get(b"/assets/..%5C..%5Cetc")),
    ("encoded NUL", get(b"/api/v1/models/llama-3.1-8b%00.html")),
    ("NUL in the request line", get(b"/index.html\x00.png")),
    ("a model file path", get(b"/api/v1/models/%2Fetc%2Fpasswd")),
    ("a model as a flag", get(b"/api/v1/models/--data")),
    ("a value as a flag", get(b"/api/v1/models/llama-3.1-8b?quant=--data=/etc")),
    ("invalid UTF-8 in the query", get(b"/api/v1/models/llama-3.1-8b?quant=%C3%28")),
    ("raw bytes over 0x7f in the path", get(b"/models/\xff\xfe")),
    ("invalid UTF-8 in a model", get(b"/api/v1/models/%ff%ff")),
    ("a broken escape", get(b"/api/v1/models/llama-3.1-8b?ctx=%zz")),
    ("10,000 parameters", get(b"/api/v1/fit?" + b"&".join(b"p%d=1" % i for i in range(10000)))),
    ("40 short parameters", get(b"/api/v1/fit?" + b"&".join(b"p%d=1" % i for i in range(40)))),
    ("a parameter twice", get(b"/api/v1/fit?gpu=RTX+4090&gpu=H100")),
    ("a 1,000-byte value", get(b"/api/v1/fit?gpu=" + b"A" * 1000)),
    ("ctx=1e30", get(b"/api/v1/models/llama-3.1-8b?ctx=1e30")),
    ("ctx past 64 bits", get(b"/api/v1/models/llama-3.1-8b?ctx=99999999999999999999999")),
    ("ram=1e308", get(b"/api/v1/models/llama-3.1-8b?ram=1e308&gpu=RTX+4090")),
    ("a billion GPUs", get(b"/api/v1/models/llama-3.1-8b?gpu=1000000000x4090")),
    ("parallel=-1", get(b"/api/v1/models/llama-3.1-8b?parallel=-1")),
    ("ngl=NaN", get(b"/api/v1/models/llama-3.1-8b?ngl=nan&gpu=RTX+4090")),
    ("vram=inf", get(b"/api/v1/models/llama-3.1-8b?vram=inf")),
    ("a 100 KB header", b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"),
    ("1,000 header lines", b"GET / HTTP/1.1\r\n" + b"".join(b"X-H%d: 1\r\n" % i
                                                           for i in range(1000)) + b"\r\n"),
    ("a 100 KB request line", get(b"/" + b"a" * 100_000)),
    ("POST", b"POST /api/v1/fit HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"),
    ("DELETE", b"DELETE /api/v1/models HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("a 1 GB body announced", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n"),
    ("not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64 + b"\r\n\r\n"),
    ("unknown page", get(b"/etc/passwd")),
]
try:
    for name, data in HOSTILE:
        status, body, seconds = raw(port, data)
        f.check(status is not None and 400 <= status < 500,
                f"{name}: an error status (got {status})")
        f.check(seconds < LIMIT_S, f"{name}: answered in {seconds:.1f} s")
        if status is not None and body.startswith(b"{"):
            doc = json.loads(body)
            f.check(doc["error"]["status"] == status, f"{name}: the JSON error names {status}")
        f.check(b"root:" not in body, f"{name}: no file of the server's disk in the reply")

    # A slow client: the request line, then nothing. The server drops it after its read
    # timeout, and answers others meanwhile.
    start = time.monotonic()
    slow = socket.create_connection(("127.0.0.1", port), timeout=LIMIT_S)
    slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    status, _, seconds = raw(port, get(b"/api/v1/quants"))
    f.check(status == 200 and seconds < 3, "another client is answered while one is slow")
    closed = False
    try:
        closed = slow.recv(1024) is not None
    except (socket.timeout, ConnectionResetError):
        closed = False
    waited = time.monotonic() - start
    f.check(closed and waited < LIMIT_S, f"the slow client is dropped ({waited:.1f} s)")
    slow.close()

    # Clients that trickle, a byte every half second, one per worker (the pool is 4): a header
    # line that never ends gets 408 at the deadline, a request line that never ends is closed
    # (httplib answers nothing to a request it cannot read the line of), and a body is refused
    # before it is read. Every worker is free again after the deadline, not after the pace
    # times the 8 KB a header line may hold (an hour).
    endless = b"a" * 200
    tricklers = [
        ("a header line", b"GET / HTTP/1.1\r\nHost: x\r\n", b"X-Slow: " + endless, 408),
        ("headers, a line at a time", b"GET / HTTP/1.1\r\n",
         b"".join(b"X-%d: 1\r\n" % i for i in range(60)), 408),
        ("a request line", b"GET /", endless, None),
        ("the target of a request line", b"GET /api/v1/models/", endless, None),
    ]
    results = {}

    def run_trickler(name, head, tail):
        results[name] = trickle(port, head, tail)

    threads = [threading.Thread(target=run_trickler, args=t[:3]) for t in tricklers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, _, _, want in tricklers:
        status, seconds = results[name]
        f.check(status == want, f"trickled {name}: status {want} (got {status})")
        # The deadline runs from the first byte of the request; the last read waits at most
        # the read timeout (5 s) for the next byte, and the pace is 0.5 s.
        f.check(DEADLINE_S - 1 < seconds < DEADLINE_S + 3,
                f"trickled {name}: cut at the deadline ({seconds:.1f} s)")
    for name, head, tail in [
        ("a GET's body", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n",
         b"b" * 100),
        ("a POST's body", b"POST /api/v1/models HTTP/1.1\r\nHost: x\r\nContent-Length: 100"
         b"\r\n\r\n", b"b" * 100),
    ]:
        status, seconds = trickle(port, head, tail)
        f.check(status is not None and 400 <= status < 500 and seconds < 3,
                f"trickled {name}: refused before it is read ({status}, {seconds:.1f} s)")
    start = time.monotonic()
    status, _, _ = raw(port, get(b"/api/v1/quants"))
    f.check(status == 200 and time.monotonic() - start < 3,
            "every worker answers again once the tricklers are cut")

    # Still answering, and its memory did not grow with what it was sent.
    status, _, _ = raw(port, get(b"/api/v1/models/llama-3.1-8b"))
    f.check(status == 200, "the server still answers")
    with open(f"/proc/{server.proc.pid}/status") as s:
        status_lines = s.readlines()
    rss_kb = int(next(line for line in status_lines if line.startswith("VmRSS")).split()[1])
    f.check(rss_kb < 300_000, f"resident memory {rss_kb} kB under 300 MB")
    # A fixed pool: after every connection above (the tricklers held all 4 workers at once), the
    # threads are the 4 workers, the listening thread and the signal thread, none per client.
    threads = int(next(line for line in status_lines if line.startswith("Threads")).split()[1])
    f.check(threads <= 4 + 2, f"a fixed worker pool: {threads} threads")
finally:
    code, _ = server.stop()
f.check(code == 0, "SIGTERM stops it")
sys.exit(1 if f.count else 0)
