#!/usr/bin/env python3
"""The websocket suite: squall's WebSocketHandler beside Tornado, Node's ws and websockets.

Every server is an echo server on ws://127.0.0.1:PORT/echo, without compression, pinned to
core 0 of this 2-core machine; one load generator for all, bench/websocket_load.cpp (raw frames
over squall's loop, one process), pinned to core 1:
  squall       examples/ws_echo --port P (a WebSocketHandler on one HttpWorkers thread)
  tornado      a tornado.websocket.WebSocketHandler (Debian's python3-tornado)
  ws           npm's ws WebSocketServer on node (.cache/ws, from scripts/bootstrap)
  websockets   websockets.serve (Debian's python3-websockets)
Cases: echo of 64-byte and of 64 KiB binary messages over 64 connections (each sends one and
waits for its echo), in messages/s and MB/s of echoed payload, and the server's CPU time per
message (utime + stime from /proc/PID/stat over the measured window) in microseconds, and its
user-space part alone (utime: the kernel's loopback TCP, the same for every server, is most of
what a small echo costs squall): wall-clock rates on a shared 2-core machine are noisy, CPU per
message is the figure to compare. Then
10,000 idle WebSockets (handshake done, then silence): the server's VmRSS in MiB.
Rates and CPU are the medians of --rounds alternating rounds (each round runs every server).

Run by scripts/bench.py (`make bench SUITE=websocket`) as
    python3 bench/websocket_bench.py --build build/release
which prints the JSON list bench.py expects on stdout and progress on stderr.
"""
import argparse
import json
import os
import resource
import subprocess
import sys

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
from peerlib import BenchError, free_port, medians, stop, wait_for_port  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = "/usr/bin/python3"  # Debian's, with tornado and websockets
NODE = "/usr/bin/node"
SERVER_CORE, CLIENT_CORE = "0", "1"
CONNECTIONS = 64
IDLE = 10_000
SIZES = [("64 B", 64), ("64 KiB", 64 * 1024)]

TORNADO_SERVER = """
import sys
import tornado.ioloop
import tornado.web
import tornado.websocket

class Echo(tornado.websocket.WebSocketHandler):
    async def on_message(self, message):
        await self.write_message(message, binary=isinstance(message, bytes))

tornado.web.Application([(r"/echo", Echo)]).listen(int(sys.argv[1]), "127.0.0.1", backlog=1024)
tornado.ioloop.IOLoop.current().start()
"""

WEBSOCKETS_SERVER = """
import asyncio
import sys
import websockets

async def echo(ws, path=None):
    async for message in ws:
        await ws.send(message)

async def main():
    async with websockets.serve(echo, "127.0.0.1", int(sys.argv[1]), compression=None,
                                ping_interval=None, max_size=None, backlog=1024):
        await asyncio.Future()

asyncio.run(main())
"""

WS_SERVER = """
const { createRequire } = require("node:module");
const path = require("node:path");
const require_ws = createRequire(path.join(process.argv[1], "node_modules/"));
const { WebSocketServer } = require_ws("ws");
const wss = new WebSocketServer({ host: "127.0.0.1", port: Number(process.argv[2]),
                                  backlog: 1024, perMessageDeflate: false });
wss.on("connection", (ws) => {
  ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
});
"""


def log(message):
    print(f"websocket bench: {message}", file=sys.stderr, flush=True)


def more_descriptors():
    """Runs in each child before exec: as many descriptors as the hard limit allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start(argv, port, name):
    process = subprocess.Popen(["taskset", "-c", SERVER_CORE] + argv, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, preexec_fn=more_descriptors)
    try:
        wait_for_port(port, process, name)
    except BaseException:
        stop(process)
        raise
    return process


def load(tool, port, pid, *flags):
    """Runs the load generator on the client core; its JSON answer."""
    r = subprocess.run(["taskset", "-c", CLIENT_CORE, tool, "--port", str(port), "--server-pid",
                        str(pid)] + [str(f) for f in flags], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, preexec_fn=more_descriptors)
    if r.returncode != 0:
        raise BenchError(f"websocket_load failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds over all servers; medians are reported")
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per run")
    args = parser.parse_args()
    tool = os.path.abspath(os.path.join(args.build, "bench", "websocket_load"))
    ws_echo = os.path.abspath(os.path.join(args.build, "examples", "ws_echo"))
    for path in (tool, ws_echo):
        if not os.path.exists(path):
            sys.exit(f"websocket bench: {path} is missing; build websocket_load and the examples")
    ws_package = os.path.join(HERE, "..", ".cache", "ws")

    servers = {
        "squall": lambda port: [ws_echo, "--port", str(port)],
        "tornado": lambda port: [PYTHON, "-c", TORNADO_SERVER, str(port)],
        "ws": lambda port: [NODE, "-e", WS_SERVER, ws_package, str(port)],
        "websockets": lambda port: [PYTHON, "-c", WEBSOCKETS_SERVER, str(port)],
    }
    if not os.path.exists(os.path.join(ws_package, "node_modules", "ws", "package.json")):
        log("npm's ws is not in .cache/ws (scripts/bootstrap installs it): skipped")
        del servers["ws"]

    rate = {size: {name: [] for name in servers} for size, _ in SIZES}
    cpu = {size: {name: [] for name in servers} for size, _ in SIZES}
    user = {size: {name: [] for name in servers} for size, _ in SIZES}
    rss = {}
    for round_ in range(1, args.rounds + 1):
        for name, argv in servers.items():
            port = free_port()
            process = start(argv(port), port, name)
            try:
                for size, nbytes in SIZES:
                    r = load(tool, port, process.pid, "--connections", CONNECTIONS, "--size",
                             nbytes, "--seconds", args.seconds)
                    per_s = r["messages"] / r["seconds"]
                    us = r["server_cpu_s"] * 1e6 / max(r["messages"], 1)
                    client = r["client_cpu_s"] / r["seconds"]
                    rate[size][name].append(per_s)
                    cpu[size][name].append(us)
                    user[size][name].append(r["server_user_s"] * 1e6 / max(r["messages"], 1))
                    log(f"round {round_}/{args.rounds}, {name}, {size}: {per_s:.0f} messages/s, "
                        f"{us:.2f} server CPU us/message ({user[size][name][-1]:.2f} in user "
                        f"space; client core {client:.0%} busy)")
                if round_ == 1:
                    r = load(tool, port, process.pid, "--idle", IDLE)
                    if r["connections"] != IDLE:
                        raise BenchError(f"{name} held {r['connections']} of {IDLE}")
                    rss[name] = r["rss_mib"]
                    log(f"{name}: {IDLE:,} idle WebSockets, {rss[name]:.1f} MiB RSS")
            finally:
                stop(process)

    cases = []
    for size, nbytes in SIZES:
        per_s = medians(rate[size])
        what = f"echo {size} messages, {CONNECTIONS} connections"
        cases.append({"case": what, "unit": "messages/s", "higher_is_better": True,
                      "values": per_s})
        cases.append({"case": f"{what}: payload", "unit": "MB/s", "higher_is_better": True,
                      "values": {k: v * nbytes / 1e6 for k, v in per_s.items()}})
        cases.append({"case": f"{what}: server CPU", "unit": "us/message",
                      "higher_is_better": False, "values": medians(cpu[size])})
        cases.append({"case": f"{what}: server CPU in user space", "unit": "us/message",
                      "higher_is_better": False, "values": medians(user[size])})
    cases.append({"case": f"{IDLE:,} idle WebSockets", "unit": "MiB RSS",
                  "higher_is_better": False, "values": rss})
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
