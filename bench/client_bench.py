#!/usr/bin/env python3
"""The client suite: GET a 1 KiB static file from nginx over keep-alive on loopback.

nginx (one worker) is pinned to core 1 and each client in turn to core 0, for a fixed number of
requests at concurrency 64 and at concurrency 10 (Tornado's default max_clients):
  squall          examples/loadgen over HttpClient (max_clients = concurrency)
  libcurl-multi   bench/client_curl.cpp, compiled here, curl_multi with as many connections
  tornado         bench/client_tornado.py, AsyncHTTPClient (Debian's python3-tornado)
  wrk             wrk -t1 -c<concurrency> for a fixed time: the ceiling nginx allows
Each client runs once per round, for --rounds alternating rounds, and the medians are reported.
Reported per concurrency: requests/s (higher is better), the client process's CPU time
(user + system, from wait4) per request in microseconds, and its user-space part alone (lower is
better for both).

Run by scripts/bench.py (`make bench SUITE=client`) as
    python3 bench/client_bench.py --build build/release
which prints the JSON list bench.py expects on stdout and progress on stderr.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
from peerlib import free_port, medians, start_nginx as start_peer_nginx, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEBIAN_PYTHON = "/usr/bin/python3"
CLIENT_CORE, SERVER_CORE = "0", "1"


def log(message):
    print(f"client bench: {message}", file=sys.stderr, flush=True)


def start_nginx(root, port):
    """nginx serving a 1 KiB file at /1k.bin from `root`, pinned to SERVER_CORE."""
    with open(os.path.join(root, "1k.bin"), "wb") as f:
        f.write(os.urandom(1024))
    return start_peer_nginx(root, port, f"root {root};", SERVER_CORE)


def run_pinned(argv):
    """Runs argv on the client core; returns (stdout, (user, system) CPU seconds of the process,
    exit status)."""
    process = subprocess.Popen(["taskset", "-c", CLIENT_CORE] + argv, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    out, err = process.stdout.read(), None
    # taskset execs the client, so this pid is the client and wait4 gives its own rusage.
    _, status, usage = os.wait4(process.pid, 0)
    err = process.stderr.read()
    process.returncode = os.waitstatus_to_exitcode(status)
    if err:
        sys.stderr.write(err.decode(errors="replace"))
    return out.decode(), (usage.ru_utime, usage.ru_stime), process.returncode


def per_request(cpu, requests):
    """(all, user) CPU microseconds per request from (user, system) seconds."""
    requests = max(requests, 1)
    return round(sum(cpu) * 1e6 / requests, 2), round(cpu[0] * 1e6 / requests, 2)


def json_client(name, argv):
    out, cpu, code = run_pinned(argv)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"client bench: {name} printed no result (exit {code})")
    result = json.loads(lines[-1])
    if result["errors"]:
        log(f"{name}: {result['errors']} of {result['requests']} requests failed")
    return result["requests_per_second"], per_request(cpu, result["requests"])


def wrk_client(url, concurrency, seconds):
    out, cpu, code = run_pinned(["wrk", "-t1", f"-c{concurrency}", f"-d{seconds}s", url])
    total = re.search(r"(\d+) requests in", out)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if code != 0 or not total or not rate:
        sys.exit(f"client bench: wrk failed (exit {code}):\n{out}")
    return float(rate.group(1)), per_request(cpu, int(total.group(1)))


def build_curl_client(build):
    source = os.path.join(HERE, "client_curl.cpp")
    binary = os.path.join(build, "bench", "client_curl")
    if not os.path.exists(binary) or os.path.getmtime(binary) < os.path.getmtime(source):
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        log("compiling client_curl")
        subprocess.run(["g++", "-std=c++20", "-O2", source, "-o", binary, "-lcurl"], check=True)
    return binary


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release", help="the release build tree")
    parser.add_argument("--requests", type=int, default=200_000,
                        help="requests per run for squall and libcurl")
    parser.add_argument("--tornado-requests", type=int, default=10_000,
                        help="requests per run for Tornado (about 20x slower)")
    parser.add_argument("--wrk-seconds", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds over all clients; medians are reported")
    args = parser.parse_args()

    loadgen = os.path.join(args.build, "examples", "loadgen")
    if not os.path.exists(loadgen):
        sys.exit(f"client bench: {loadgen} is missing; build the example_loadgen target")
    curl_client = build_curl_client(args.build)
    tornado_client = os.path.join(HERE, "client_tornado.py")
    if shutil.which("wrk") is None:
        sys.exit("client bench: wrk is missing (scripts/bootstrap installs it)")

    root = tempfile.mkdtemp(prefix="squall-client-bench-")
    port = free_port()
    nginx = start_nginx(root, port)
    url = f"http://127.0.0.1:{port}/1k.bin"
    cases = []
    try:
        json_client("warm-up", [loadgen, url, "2000", "8"])
        for concurrency in (64, 10):
            c = str(concurrency)
            clients = {
                "squall": lambda: json_client("squall", [loadgen, url, str(args.requests), c]),
                "libcurl-multi": lambda: json_client(
                    "libcurl-multi", [curl_client, url, str(args.requests), c]),
                "tornado": lambda: json_client(
                    "tornado",
                    [DEBIAN_PYTHON, tornado_client, url, str(args.tornado_requests), c]),
                "wrk": lambda: wrk_client(url, concurrency, args.wrk_seconds),
            }
            rates, cpu, user = ({name: [] for name in clients} for _ in range(3))
            for round_ in range(1, args.rounds + 1):
                for name, run in clients.items():
                    log(f"concurrency {c}, round {round_}/{args.rounds}: {name}")
                    rate, (all_cpu, user_cpu) = run()
                    log(f"  {rate:.0f} requests/s, CPU {all_cpu:.1f} us/request "
                        f"({user_cpu:.1f} in user space)")
                    rates[name].append(rate)
                    cpu[name].append(all_cpu)
                    user[name].append(user_cpu)
            title = f"GET 1 KiB keep-alive from nginx, concurrency {concurrency}"
            cases.append({"case": title, "unit": "requests/s", "higher_is_better": True,
                          "values": medians(rates)})
            # The system share is mostly the kernel's loopback TCP work for the one send and
            # the one receive each request needs, the same for every client; the user share is
            # the client library's own.
            cases.append({"case": title + ", client CPU", "unit": "us/request",
                          "higher_is_better": False, "values": medians(cpu)})
            cases.append({"case": title + ", client CPU in user space", "unit": "us/request",
                          "higher_is_better": False, "values": medians(user)})
    finally:
        stop(nginx)
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
