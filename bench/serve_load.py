#!/usr/bin/env python3
"""Loopback load on `canitrun serve`: requests per second and p50 / p99 latency for the model
API and the model page, beside two baselines measured in the same run: a small embedded file
of the same server (what the HTTP layer and the worker pool cost, no answer planned), and the
CLI's time per process for the same question. Bounded in count and time: each load sends at
most --requests requests or runs for at most --seconds, whichever ends first.

The clients share the machine with the server. With --client (bench/serve_client.cpp, built
with CANITRUN_BUILD_BENCH) they are C++ threads on cpp-httplib, a few percent of a core;
without it, python3 threads, which on 2 cores take a good part of the CPU the server would use:
the figures are then a floor.

Each question's req/s and p99 are also given as ratios to the baseline's in the same run ("x
base": req/s over the baseline's; "p99 / base": p99 over the baseline's), and the baseline
always runs first: on a shared machine the other processes slow the baseline and the answers
alike, so the ratios move far less than the raw figures do, and a loaded run's ratio times an
idle machine's baseline says what that machine would answer. The last line says whether the
uncached model answers ("API, new") met issue #36's target, 2,000 a second with p99 under
20 ms, in this run.

To show the target on 2 cores (bench/RESULTS.md): an idle machine with at least 2 cores,
nothing else running, the server, the clients and the CLI pinned to the same 2 with
`taskset -c 0,1 bench/serve_load.py build/canitrun --client build/bench/serve_client
--only "API, new"` (a 2-core machine needs no taskset).

Usage: bench/serve_load.py build/canitrun [--client build/bench/serve_client] [--requests 4000]
       [--seconds 20] [--clients 4] [--threads 4] [--only NAME]
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
# (target, "{n}" a number new to each request; the CLI's arguments for the same question, or
# None for a baseline). The server keeps the answers it gave (src/serve/answer_cache.hpp):
# "API, new" asks a context not asked before on every request, so each is planned afresh.
QUESTIONS = {
    "baseline": ("/assets/site.css", None),
    "model API": (f"/api/v1/models/{MODEL}?quant=Q4_K_M&ctx=32k&gpu=RTX+4090",
                  [MODEL, "--quant", "Q4_K_M", "--ctx", "32k", "--gpu", "RTX 4090", "--json"]),
    "API, new": (f"/api/v1/models/{MODEL}?quant=Q4_K_M&ctx={{n}}&gpu=RTX+4090",
                 [MODEL, "--quant", "Q4_K_M", "--ctx", "4097", "--gpu", "RTX 4090", "--json"]),
    "model page": (f"/models/{MODEL}", [MODEL, "--format", "html"]),
}
# Contexts the warm-up and the loads ask, apart: every "new" question is new to the server.
WARM_FIRST, LOAD_FIRST = 4097, 8192
# Issue #36's target for an uncached model answer ("API, new") on 2 cores.
TARGET_PER_S, TARGET_P99_MS = 2000, 20.0


def cpu_s(pid):
    """The server's CPU seconds so far (user + system, /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def load(port, pattern, requests, seconds, clients, first):
    """Python clients: the same load as serve_client's."""
    latencies = []
    lock = threading.Lock()
    sent = [0]
    deadline = time.monotonic() + seconds

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        mine = []
        while time.monotonic() < deadline:
            with lock:
                if sent[0] == requests:
                    break
                n = first + sent[0]
                sent[0] += 1
            target = pattern.replace("{n}", str(n))
            start = time.perf_counter()
            conn.request("GET", target)
            r = conn.getresponse()
            r.read()
            mine.append(time.perf_counter() - start)
            if r.status != 200:
                raise RuntimeError(f"{target}: status {r.status}")
            if r.getheader("Connection", "").lower() == "close":
                conn.close()
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


def load_cpp(client, port, pattern, requests, seconds, clients, first):
    out = subprocess.run([client, str(port), pattern, str(requests), str(seconds), str(clients),
                          str(first)], capture_output=True, text=True, check=False)
    fields = out.stdout.split()
    if len(fields) != 6 or fields[5] != "0":
        raise RuntimeError(f"{pattern}: {out.stdout.strip()} {out.stderr.strip()}")
    return {"count": int(fields[0]), "per_s": float(fields[2]), "p50_ms": float(fields[3]),
            "p99_ms": float(fields[4])}


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
    ap.add_argument("--client", help="bench/serve_client's binary (else python3 clients)")
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--threads", type=int, default=4, help="the server's worker pool")
    ap.add_argument("--only", action="append", choices=list(QUESTIONS),
                    help="run this question (again for several); the default: all")
    a = ap.parse_args()

    def run_load(pattern, requests, seconds, clients, first):
        if a.client:
            return load_cpp(a.client, server.port, pattern, requests, seconds, clients, first)
        return load(server.port, pattern, requests, seconds, clients, first)

    server = Server(a.binary, "--quiet", "--threads", str(a.threads))
    try:
        print(f"clients: {'C++ (serve_client)' if a.client else 'python3'} x {a.clients}, "
              f"server: {a.threads} workers, {len(os.sched_getaffinity(0))} CPUs")
        print(f"{'question':<12} {'requests':>8} {'req/s':>8} {'x base':>7} {'p50 ms':>7} "
              f"{'p99 ms':>7} {'p99 / base':>10} {'CPU ms/req':>10} {'CLI ms/process':>15} "
              f"{'ratio':>6}")
        base = None
        results = {}
        for name, (pattern, args) in QUESTIONS.items():
            # The baseline runs whatever --only says: the other rows are given against it.
            if a.only and name not in a.only and name != "baseline":
                continue
            run_load(pattern, 50, 5, 1, WARM_FIRST)  # warm up
            cpu = cpu_s(server.proc.pid)
            r = run_load(pattern, a.requests, a.seconds, a.clients, LOAD_FIRST)
            results[name] = r
            base = base or r
            # The server's own CPU time per answer: what the load costs it, whatever else
            # (the clients, other processes) shares the cores.
            cpu_ms = 1000 * (cpu_s(server.proc.pid) - cpu) / max(r["count"], 1)
            line = (f"{name:<12} {r['count']:>8} {r['per_s']:>8.0f} "
                    f"{r['per_s'] / base['per_s']:>7.3f} {r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} "
                    f"{r['p99_ms'] / base['p99_ms']:>10.2f} {cpu_ms:>10.3f}")
            if args:
                per_process = cli_ms(a.binary, args)
                # How many CLI processes one second of the server is worth.
                ratio = r["per_s"] * per_process / 1000
                line += f" {per_process:>15.1f} {ratio:>5.1f}x"
            print(line, flush=True)
        new = results.get("API, new")
        if new:
            met = new["per_s"] >= TARGET_PER_S and new["p99_ms"] < TARGET_P99_MS
            print(f"target (API, new: {TARGET_PER_S:,} a second, p99 under {TARGET_P99_MS:.0f} ms): "
                  f"{'met' if met else 'not met'} in this run ({new['per_s']:,.0f} a second, p99 "
                  f"{new['p99_ms']:.2f} ms; {len(os.sched_getaffinity(0))} CPUs, load average "
                  f"{os.getloadavg()[0]:.1f})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
