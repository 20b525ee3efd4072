"""What the script suites share: loopback ports, waiting for a server, stopping it, nginx.

Imported by bench/*_bench.py (run as scripts, so this folder is on sys.path); each sets
sys.dont_write_bytecode first so that no __pycache__ is left in bench/.
"""
import os
import signal
import socket
import subprocess
import time

NGINX = "/usr/sbin/nginx"


class BenchError(RuntimeError):
    """A peer or a measured program did not behave; the suite stops with this message."""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process=None, what="server", limit=15.0):
    """Returns once 127.0.0.1:port accepts connections; BenchError if `process` exits first."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise BenchError(f"{what} exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise BenchError(f"{what} did not listen on port {port}")


def stop(process):
    """SIGTERM (to its whole group when it leads one), SIGKILL after 10 s, then reap."""
    if process.poll() is not None:
        return
    try:
        group = os.getpgid(process.pid) == process.pid
    except ProcessLookupError:
        group = False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
        except ProcessLookupError:
            pass
        try:
            process.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


def nginx_conf(work, port, server_body, connections=4096):
    """One nginx worker in the foreground, its files in `work`, no access log, keep-alive
    without limits, listening on 127.0.0.1:port with `server_body` in its server block."""
    os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
    return f"""daemon off;
master_process off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections {connections}; }}
http {{
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  log_not_found off;
  client_body_temp_path {work}/tmp;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  server {{
    listen 127.0.0.1:{port} backlog=4096;
    {server_body}
  }}
}}
"""


def start_nginx(work, port, server_body, core, connections=4096):
    """nginx with nginx_conf(...) pinned to `core`; returns once it accepts connections."""
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as f:
        f.write(nginx_conf(work, port, server_body, connections))
    process = subprocess.Popen(["taskset", "-c", str(core), NGINX, "-p", work, "-e",
                                f"{work}/error.log", "-c", conf],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process, "nginx")
    except BaseException:
        stop(process)
        raise
    return process


def medians(samples):
    """{name: [values...]} -> {name: median}. The machines these suites run on are shared: a
    neighbour's load comes and goes over minutes, so each suite measures every implementation
    in several alternating rounds and reports the median of each."""
    out = {}
    for name, values in samples.items():
        ordered = sorted(values)
        middle = len(ordered) // 2
        out[name] = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return out
