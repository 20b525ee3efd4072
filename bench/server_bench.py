#!/usr/bin/env python3
"""The server suite: squall's HttpServer beside nginx, h2o and Tornado, driven by wrk.

One server worker pinned to core 0, wrk with one thread and 64 connections pinned to core 1:
  GET /api/noblock → "abc": squall (examples/noblock), nginx (`return 200 'abc'`), h2o 2.2
    (a three-byte file: h2o without mruby has no handler that returns a literal) and Tornado
    (a RequestHandler awaiting a coroutine, on asyncio); requests/s and the server's CPU
    microseconds per request (utime+stime from /proc before and after the run);
  GET of a 1 KiB file: squall (ServerResponse::send_file) beside nginx and h2o;
  10,000 idle keep-alive connections, each after one request: the server's RSS in MiB.
Requests/s and CPU are the medians of --rounds alternating rounds (each round runs every server).
Run as `python3 bench/server_bench.py --build build/release`; the JSON goes to stdout.
"""
import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
from peerlib import free_port, medians, nginx_conf, stop, wait_for_port  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
PYTHON = "/usr/bin/python3"  # Debian's, with tornado
DURATION = "5s"


def progress(*args):
    print(*args, file=sys.stderr, flush=True)


def tree(pid):
    """pid and all its descendants."""
    pids = [pid]
    for p in pids:
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    pids.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    return pids


def cpu_seconds(pid):
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
        except OSError:
            pass
    return total / TICKS


def rss_mib(pid):
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def start(argv, port, what, cwd=None):
    proc = subprocess.Popen(["taskset", "-c", "0"] + argv, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(port, proc, what)
    return proc


def wrk(port, path, pid, expect_body):
    url = f"http://127.0.0.1:{port}{path}"
    # One check request, so a misconfigured peer cannot win with error pages.
    body = subprocess.run(["curl", "-sS", "--max-time", "5", url], capture_output=True).stdout
    if body != expect_body:
        raise RuntimeError(f"{url} answered {body[:80]!r}")
    subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c64", "-d1s", url], check=True,
                   capture_output=True)  # warm-up
    before = cpu_seconds(pid)
    out = subprocess.run(["taskset", "-c", "1", "wrk", "-t1", "-c64", "-d" + DURATION, url],
                         check=True, capture_output=True, text=True).stdout
    after = cpu_seconds(pid)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    total = int(re.search(r"(\d+) requests in", out).group(1))
    if "Non-2xx" in out or "Socket errors" in out:
        progress(f"  wrk reported errors for {url}:\n{out}")
    return rps, (after - before) * 1e6 / max(total, 1)


async def hold_idle(port, count):
    """Opens `count` connections, makes one request on each, keeps them open."""
    request = b"GET /api/noblock HTTP/1.1\r\nHost: bench\r\n\r\n"
    conns = []

    async def one():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request)
        await reader.readuntil(b"abc")
        conns.append(writer)

    for i in range(0, count, 500):
        await asyncio.gather(*(one() for _ in range(min(500, count - i))))
    return conns


def idle_rss(port, pid, count=10000):
    async def run():
        conns = await hold_idle(port, count)
        await asyncio.sleep(0.5)
        rss = rss_mib(pid)
        for w in conns:
            w.close()
        return rss, len(conns)
    rss, held = asyncio.run(run())
    if held != count:
        raise RuntimeError(f"held only {held} connections")
    return rss


NGINX_SERVER = """root {dir}/docroot;
    location = /api/noblock {{ return 200 'abc'; }}"""

H2O_CONF = """{user}listen:
  host: 127.0.0.1
  port: {port}
num-threads: 1
pid-file: {dir}/h2o.pid
error-log: {dir}/h2o.err
http1-request-timeout: 300
hosts:
  default:
    paths:
      /:
        file.dir: {dir}/docroot
"""

TORNADO_APP = """
import sys
import tornado.ioloop
import tornado.web

async def service_method():
    return "abc"

class NoBlockHandler(tornado.web.RequestHandler):
    async def get(self):
        self.write(await service_method())

tornado.web.Application([(r"/api/noblock", NoBlockHandler)]).listen(int(sys.argv[1]), "127.0.0.1")
tornado.ioloop.IOLoop.current().start()
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds over all servers; medians are reported")
    args = parser.parse_args()
    noblock = os.path.join(args.build, "examples", "noblock")
    if not os.path.exists(noblock):
        raise SystemExit(f"{noblock} is missing: build the examples first")

    work = tempfile.mkdtemp(prefix="squall-server-bench-")
    try:
        os.makedirs(f"{work}/docroot/api")
        os.makedirs(f"{work}/tmp")
        with open(f"{work}/docroot/api/noblock", "wb") as f:
            f.write(b"abc")
        static = os.urandom(1024)
        with open(f"{work}/docroot/static", "wb") as f:
            f.write(static)

        servers = {
            "squall": lambda port: [noblock, "--port", str(port), "--static",
                                    f"{work}/docroot/static"],
            "nginx": lambda port: ["/usr/sbin/nginx", "-p", work, "-c",
                                   write(f"{work}/nginx.conf",
                                         nginx_conf(work, port, NGINX_SERVER.format(dir=work),
                                                    connections=20000))],
            "h2o": lambda port: ["h2o", "-c", write(f"{work}/h2o.conf",
                                                    H2O_CONF.format(
                                                        dir=work, port=port,
                                                        user="user: root\n" if os.geteuid() == 0
                                                        else ""))],
            "tornado": lambda port: [PYTHON, "-c", TORNADO_APP, str(port)],
        }
        if not shutil.which("h2o"):
            progress("h2o is not installed: skipped")
            del servers["h2o"]
        rps, cpu, static_rps, static_cpu = ({name: [] for name in servers} for _ in range(4))
        rss = {}
        for round_ in range(1, args.rounds + 1):
            for name, argv in servers.items():
                port = free_port()
                proc = start(argv(port), port, name)
                try:
                    progress(f"round {round_}/{args.rounds}, {name}: GET /api/noblock")
                    r, c = wrk(port, "/api/noblock", proc.pid, b"abc")
                    rps[name].append(r)
                    cpu[name].append(c)
                    progress(f"  {r:.0f} requests/s, {c:.2f} CPU us/request")
                    if name in ("squall", "nginx", "h2o"):
                        progress(f"round {round_}/{args.rounds}, {name}: GET /static (1 KiB)")
                        r, c = wrk(port, "/static", proc.pid, static)
                        static_rps[name].append(r)
                        static_cpu[name].append(c)
                        progress(f"  {r:.0f} requests/s, {c:.2f} CPU us/request")
                    if name in ("squall", "nginx") and round_ == 1:
                        progress(f"{name}: 10,000 idle keep-alive connections")
                        rss[name] = idle_rss(port, proc.pid)
                        progress(f"  {rss[name]:.1f} MiB RSS")
                finally:
                    stop(proc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rps, cpu = medians(rps), medians(cpu)
    static_rps = medians({k: v for k, v in static_rps.items() if v})
    static_cpu = medians({k: v for k, v in static_cpu.items() if v})

    print(json.dumps([
        {"case": "GET /api/noblock (wrk -t1 -c64)", "unit": "requests/s",
         "higher_is_better": True, "values": rps},
        {"case": "GET /api/noblock server CPU", "unit": "us/request",
         "higher_is_better": False, "values": cpu},
        {"case": "GET 1 KiB static file (wrk -t1 -c64)", "unit": "requests/s",
         "higher_is_better": True, "values": static_rps},
        {"case": "GET 1 KiB static file server CPU", "unit": "us/request",
         "higher_is_better": False, "values": static_cpu},
        {"case": "10,000 idle keep-alive connections", "unit": "MiB RSS",
         "higher_is_better": False, "values": rss},
    ], indent=1))


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


if __name__ == "__main__":
    main()
