#!/usr/bin/env python3
"""The control suite: what `squall crawl --port` serves, measured.

  POST /api/fetch of a 1 KiB page from nginx, wrk with 16 connections: requests/s (each a fetch
    through the crawl's own HTTP client, with --concurrency 16 --per-host 16);
  a crawl of a generated site (scripts/gensite.py, --pages) from nginx, in pages/s over the
    crawl's wall-clock time, with the dashboard watched (a client of the /api/live feed that
    also loads / and reads /api/projects, /api/hosts and /api/errors as the page does) against
    with nobody watching ("dashboard closed", the peer: a ratio of 1 means watching costs
    nothing).
squall runs pinned to core 0, nginx, wrk and the watcher to core 1. Figures are the medians of
--rounds alternating rounds. Run as `python3 bench/control_bench.py --build build/release`; the
JSON goes to stdout.
"""
import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
from peerlib import free_port, medians, start_nginx, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GENSITE = os.path.join(HERE, "..", "scripts", "gensite.py")
SQUALL_CORE, PEER_CORE = "0", "1"


def progress(*args):
    print(*args, file=sys.stderr, flush=True)


def start_crawl(squall, work, url, extra):
    """`squall crawl URL --port 0 ...` pinned to the squall core; (process, stderr path, port)."""
    err = os.path.join(work, "crawl.err")
    state = os.path.join(work, "crawl.db")
    with open(err, "w") as e:
        proc = subprocess.Popen(["taskset", "-c", SQUALL_CORE, squall, "crawl", url, "--port", "0",
                                 "--state", state, "--fresh"] + extra,
                                stdout=subprocess.DEVNULL, stderr=e, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        m = re.search(r"Dashboard: http://127\.0\.0\.1:(\d+)/", open(err).read())
        if m:
            return proc, err, int(m.group(1))
        if proc.poll() is not None:
            raise RuntimeError("squall crawl ended: " + open(err).read())
        time.sleep(0.01)
    raise RuntimeError("squall crawl printed no dashboard URL")


def wait_for(path, text, limit=120):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if text in open(path).read():
            return
        time.sleep(0.02)
    raise RuntimeError(f"no '{text}' in {path}")


def fetch_api_rate(squall, work, nginx_port):
    page = f"http://127.0.0.1:{nginx_port}/1k.html"
    proc, err, port = start_crawl(squall, work, page,
                                  ["--concurrency", "16", "--per-host", "16", "--ignore-robots"])
    try:
        wait_for(err, "until Ctrl-C")
        script = os.path.join(work, "post.lua")
        with open(script, "w") as f:
            f.write('wrk.method = "POST"\n'
                    f"wrk.body = '{json.dumps({'url': page})}'\n"
                    'wrk.headers["Content-Type"] = "application/json"\n')
        out = subprocess.run(["taskset", "-c", PEER_CORE, "wrk", "-t1", "-c16", "-d5s", "-s", script,
                              f"http://127.0.0.1:{port}/api/fetch"],
                             check=True, capture_output=True, text=True).stdout
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        if non2xx:
            raise RuntimeError("wrk saw failures:\n" + out)
        return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    finally:
        stop(proc)


async def watch(port, done):
    """What an open dashboard asks for: the page, the projects, the live feed every second, the
    hosts every second update and the errors every fifth."""
    import websockets
    base = f"http://127.0.0.1:{port}"
    loop = asyncio.get_running_loop()
    get = lambda path: loop.run_in_executor(None, lambda: urllib.request.urlopen(base + path).read())
    await get("/")
    await get("/api/projects")
    async with websockets.connect(f"ws://127.0.0.1:{port}/api/live") as ws:
        n = 0
        while not done():
            try:
                await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            n += 1
            if n % 2 == 1:
                await get("/api/hosts")
            if n % 5 == 1:
                await get("/api/errors")


def crawl_rate(squall, work, base, watched):
    proc, err, port = start_crawl(squall, work, base + "/index.html",
                                  ["--exit-when-done", "--concurrency", "16", "--per-host", "16"])
    started = time.monotonic()
    try:
        if watched:
            watcher = subprocess.Popen(
                ["taskset", "-c", PEER_CORE, sys.executable, "-c",
                 "import asyncio,sys; sys.path.insert(0, %r); import control_bench as c; "
                 "asyncio.run(c.watch(%d, lambda: False))" % (HERE, port)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.wait(timeout=600)
        seconds = time.monotonic() - started
        if watched:
            stop(watcher)
        m = re.search(r"fetched (\d+) URLs", open(err).read())
        return int(m.group(1)) / seconds
    finally:
        stop(proc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--pages", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    squall = os.path.abspath(os.path.join(args.build, "squall"))
    work = tempfile.mkdtemp(prefix="squall-control-bench-")
    try:
        site = os.path.join(work, "site")
        nginx_port = free_port()
        base = f"http://127.0.0.1:{nginx_port}"
        subprocess.run([sys.executable, GENSITE, "--out", site, "--origin", base, "--pages",
                        str(args.pages)], check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(site, "1k.html"), "w") as f:
            f.write("<html><body>" + "x" * (1024 - 26) + "</body></html>")
        os.makedirs(os.path.join(work, "nginx"))
        nginx = start_nginx(os.path.join(work, "nginx"), nginx_port, f"root {site};",
                            PEER_CORE)
        try:
            samples = {"fetch": [], "open": [], "closed": []}
            for r in range(args.rounds):
                progress(f"control: round {r + 1}/{args.rounds}")
                samples["fetch"].append(fetch_api_rate(squall, work, nginx_port))
                samples["closed"].append(crawl_rate(squall, work, base, False))
                samples["open"].append(crawl_rate(squall, work, base, True))
                progress(f"  /api/fetch {samples['fetch'][-1]:.0f}/s, crawl "
                         f"{samples['closed'][-1]:.0f} pages/s closed, "
                         f"{samples['open'][-1]:.0f} open")
            m = medians(samples)
        finally:
            stop(nginx)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps([
        {"case": "POST /api/fetch of a 1 KiB page, 16 connections", "unit": "requests/s",
         "higher_is_better": True, "values": {"squall": m["fetch"]}},
        {"case": f"crawl of {args.pages} pages with the dashboard open", "unit": "pages/s",
         "higher_is_better": True,
         "values": {"squall": m["open"], "dashboard closed": m["closed"]}},
    ]))


if __name__ == "__main__":
    main()
