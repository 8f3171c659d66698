#!/usr/bin/env python3
"""Loopback load on `canitrun serve`: requests per second and p50 / p99 latency for the model
API and the model page, against the CLI's time per process for the same question in the same
run. Bounded in count and time: each load sends at most --requests requests or runs for at
most --seconds, whichever ends first. The clients are python3 threads with keep-alive
connections on the same machine, so on 2 cores they take part of the CPU the server would use:
the figures are a floor.

Usage: bench/serve_load.py build/canitrun [--requests 4000] [--seconds 20] [--clients 4]
"""
import argparse
import http.client
import os
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/tests/serve")
from serve_support import Server  # noqa: E402

MODEL = "qwen3.5-35b-a3b"
# (target for the n-th request, the CLI's arguments for the same question). The server keeps
# the answers it gave (src/serve/answer_cache.hpp): "new" asks a context not asked before on
# every request, so each is planned afresh.
QUESTIONS = {
    "model API": (lambda n: f"/api/v1/models/{MODEL}?quant=Q4_K_M&ctx=32k&gpu=RTX+4090",
                  [MODEL, "--quant", "Q4_K_M", "--ctx", "32k", "--gpu", "RTX 4090", "--json"]),
    "API, new": (lambda n: f"/api/v1/models/{MODEL}?quant=Q4_K_M&ctx={4096 + n}&gpu=RTX+4090",
                 [MODEL, "--quant", "Q4_K_M", "--ctx", "4097", "--gpu", "RTX 4090", "--json"]),
    "model page": (lambda n: f"/models/{MODEL}", [MODEL, "--format", "html"]),
}


def cpu_s(pid):
    """The server's CPU seconds so far (user + system, /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(port, target, requests, seconds, clients):
    latencies = []
    lock = threading.Lock()
    left = [requests]
    deadline = time.monotonic() + seconds

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine = []
        while time.monotonic() < deadline:
            with lock:
                if left[0] == 0:
                    break
                left[0] -= 1
                n = left[0]
            start = time.perf_counter()
            conn.request("GET", target(n))
            r = conn.getresponse()
            r.read()
            mine.append(time.perf_counter() - start)
            if r.status != 200:
                raise RuntimeError(f"{target(n)}: status {r.status}")
        conn.close()
        with lock:
            latencies.extend(mine)

    start = time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    latencies.sort()
    return {"count": len(latencies), "per_s": len(latencies) / wall,
            "p50_ms": 1000 * latencies[len(latencies) // 2],
            "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]}


def cli_ms(binary, args, runs=30):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([binary, *args], stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--threads", type=int, default=4, help="the server's worker pool")
    ap.add_argument("--only", choices=list(QUESTIONS), help="run this question alone")
    a = ap.parse_args()
    server = Server(a.binary, "--quiet", "--threads", str(a.threads))
    try:
        print(f"{'question':<12} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} "
              f"{'CPU ms/req':>10} {'CLI ms/process':>15} {'ratio':>6}")
        for name, (target, args) in QUESTIONS.items():
            if a.only and name != a.only:
                continue
            load(server.port, lambda n: target(n + a.requests), 50, 5, 1)  # warm up
            cpu = cpu_s(server.proc.pid)
            r = load(server.port, target, a.requests, a.seconds, a.clients)
            # The server's own CPU time per answer: what the load costs it, whatever else
            # (the clients, other processes) shares the cores.
            cpu_ms = 1000 * (cpu_s(server.proc.pid) - cpu) / max(r["count"], 1)
            per_process = cli_ms(a.binary, args)
            # How many CLI processes one second of the server is worth.
            ratio = r["per_s"] * per_process / 1000
            print(f"{name:<12} {r['count']:>8} {r['per_s']:>8.0f} {r['p50_ms']:>7.2f} "
                  f"{r['p99_ms']:>7.2f} {cpu_ms:>10.2f} {per_process:>15.1f} {ratio:>5.1f}x")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
