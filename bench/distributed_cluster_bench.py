#!/usr/bin/env python3
"""The distributed suite's crawls: the engine split into processes over Redis and PostgreSQL.

Starts, on free loopback ports, a redis-server (no persistence) and a scratch PostgreSQL 15
cluster (Debian's, its defaults but for the port and socket directory; as root the cluster is the
postgres user's, as initdb refuses root). The project is a pyspider script whose on_start asks for
every page of a generated site and whose callback returns {url, length}: the same script runs
  embedded    `squall run` in one process, its store an SQLite file
  cluster     `squall scheduler`, one `squall fetcher`, `squall processor` and
              `squall result-worker`, the task and result stores in PostgreSQL
on the crawl suite's site (scripts/gensite.py, --site-pages pages, 20,000 as the crawl suite's,
served by nginx), concurrency 64, robots.txt ignored. (At 5,000 pages the cluster's run took
about 1.5 s, of which its start-up and drain were a large share.) Reported: pages/s of each (from the first process' start to the last
one's exit), and for the cluster Redis' CPU per page (INFO's used_cpu_sys + used_cpu_user) and
the Redis commands its clients sent per page (MONITOR, in a second, smaller run: commands run by
Lua scripts are left out, so this counts round trips), by command and script (its first key).
Logged besides: each process' CPU per page (user + sys, from wait4) and PostgreSQL's (/proc),
which other programs' load changes less than pages/s, when each process ended, and how many of the machine's cores
were busy meanwhile (/proc/stat: every program on it) against the cores these processes used.

Then scaling: a site whose every answer waits 20 ms (a small asyncio server of this script, on
core 1), crawled by the cluster with 1, 2 and 4 fetcher processes of 4 fetches each (per host 64,
which holds across the fetchers together): the site, not the CPU, is the limit, so N fetchers
should reach about N times one. Reported both from the first process' start to the last one's
exit, and as the fetchers' own rate, from the site's first request to its last answer. The first
leaves in a constant of about 0.85 s a run: 0.6 s from the start to the site's first request
(the processes connect, on_start's task goes through fetcher, processor and scheduler, whose
follows are stored before the first page is dispatched) and 0.25 s from the last answer to the
last exit (the components see the crawl marked done after their blocking read of 200 ms ends
empty). --scaling-pages (6,000) keeps that constant a tenth of the 4-fetcher run. --timeline logs
each scaling run's events (Redis MONITOR, with each client's name): where the constant goes.

Run by scripts/bench.py (`make bench SUITE=distributed`) as
    python3 bench/distributed_cluster_bench.py --build build/release [--site-pages N]
"""
import argparse
import asyncio
import collections
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.dont_write_bytecode = True
import crawl_bench  # noqa: E402
from peerlib import BenchError, free_port, stop, wait_for_port  # noqa: E402

PG_BIN = "/usr/lib/postgresql/15/bin"

PROJECT = """
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        for i in range({pages}):
            self.crawl("{base}p/%d.html" % i, callback=self.page, retries=0)

    def page(self, response):
        return {{"url": response.url, "length": len(response.content)}}
"""


def log(message):
    print(f"distributed bench: {message}", file=sys.stderr, flush=True)


class Redis:
    def __init__(self, work):
        self.port = free_port()
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for_port(self.port, self.process, "redis-server")
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def cli(self, *args):
        return subprocess.run(["redis-cli", "-p", str(self.port)] + list(args), check=True,
                              stdout=subprocess.PIPE, text=True).stdout

    def cpu(self):
        info = dict(line.split(":", 1) for line in self.cli("INFO", "cpu").splitlines()
                    if ":" in line)
        return float(info["used_cpu_sys"]) + float(info["used_cpu_user"])


class Postgres:
    def __init__(self, work):
        self.dir = tempfile.mkdtemp(prefix="pg-", dir=work)
        self.owner = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.owner = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
                          "--clear-groups"]
        data = os.path.join(self.dir, "data")
        subprocess.run(self.owner + [os.path.join(PG_BIN, "initdb"), "-D", data, "-U", "bench",
                                     "--auth=trust"], check=True, stdout=subprocess.DEVNULL)
        self.port = free_port()
        self.process = subprocess.Popen(
            self.owner + [os.path.join(PG_BIN, "postgres"), "-D", data, "-p", str(self.port),
                          "-k", self.dir, "-c", "listen_addresses=127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for_port(self.port, self.process, "postgres")
        self.url = f"postgresql://bench@127.0.0.1:{self.port}/postgres"

    def cpu(self):
        """CPU seconds the server used so far: the postmaster's, its live processes' and (in
        the postmaster's children's times) those of the sessions that ended."""
        tick = os.sysconf("SC_CLK_TCK")

        def times(pid, children):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                return 0.0, None
            # After the name: state ppid ... utime(12) stime(13) cutime(14) cstime(15).
            used = int(fields[11]) + int(fields[12])
            if children:
                used += int(fields[13]) + int(fields[14])
            return used / tick, int(fields[1])
        root = self.process.pid
        total = times(root, True)[0]
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != root:
                used, parent = times(int(entry), False)
                if parent == root:
                    total += used
        return total


def machine_ticks():
    """(busy, all) clock ticks of every core since boot, from /proc/stat's first line."""
    with open("/proc/stat") as f:
        ticks = [int(t) for t in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return sum(ticks) - idle, sum(ticks)


def timed(argvs, work, limit=900, record=None):
    """Starts every argv at once; waits for all. (seconds, [CPU seconds of each, user + sys]).
    `record`, a dict, is given the start's wall and monotonic times ("wall", "monotonic") and
    when each process ended ("ended", seconds after the start).
    Logs how busy the machine's cores were meanwhile, by every program on it, against what these
    processes used: a figure taken on cores that others kept busy is the machine's limit, not
    the engine's."""
    busy0, all0 = machine_ticks()
    start = time.monotonic()
    if record is not None:
        record.update(wall=time.time(), monotonic=start)
    procs = []
    for i, argv in enumerate(argvs):
        err = open(os.path.join(work, f"p{i}.stderr"), "w")
        procs.append((subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=err,
                                       start_new_session=True), err))
    deadline = start + limit
    cpu = [0.0] * len(procs)
    ended = [0.0] * len(procs)
    left = {p.pid: i for i, (p, _) in enumerate(procs)}
    try:
        while left:
            for pid, i in list(left.items()):
                # wait4 for each process' own rusage; Popen is told the status it reaped.
                got, status, usage = os.wait4(pid, os.WNOHANG)
                if got == 0:
                    continue
                procs[i][0].returncode = os.waitstatus_to_exitcode(status)
                cpu[i] = usage.ru_utime + usage.ru_stime
                ended[i] = time.monotonic() - start
                del left[pid]
            if left and time.monotonic() > deadline:
                for q, _ in procs:
                    stop(q)
                raise BenchError(f"{' '.join(argvs[0][:3])}... did not end in {limit} s")
            time.sleep(0.01)
    finally:
        for _, err in procs:
            err.close()
    seconds = time.monotonic() - start
    busy1, all1 = machine_ticks()
    cores = os.cpu_count() or 1
    machine = (busy1 - busy0) / max(1, all1 - all0) * cores
    log(f"machine: {machine:.2f} of {cores} cores busy over {seconds:.2f} s (every program), "
        f"{sum(cpu) / seconds:.2f} by these processes")
    if len(procs) > 1:
        log("processes ended at " + ", ".join(f"{e:.2f}" for e in ended) + " s")
    if record is not None:
        record["ended"] = ended
    for i, (p, _) in enumerate(procs):
        if p.returncode != 0:
            with open(os.path.join(work, f"p{i}.stderr")) as f:
                raise BenchError(f"{' '.join(argvs[i][:3])} exited {p.returncode}: {f.read()[-2000:]}")
    return seconds, cpu


def cluster_argvs(squall, redis, pg, ns, fetchers, concurrency, per_host):
    common = ["--redis", redis.url, "--namespace", ns]
    argvs = [[squall, "scheduler", "project.py", "--taskdb", pg.url, "--fresh"] + common]
    for _ in range(fetchers):
        argvs.append([squall, "fetcher", "-c", str(concurrency), "--per-host", str(per_host),
                      "--ignore-robots"] + common)
    argvs.append([squall, "processor", "project.py"] + common)
    argvs.append([squall, "result-worker", "--taskdb", pg.url] + common)
    return argvs


def cluster_names(fetchers):
    return ["scheduler"] + ["fetcher"] * fetchers + ["processor", "result-worker"]


def command_name(words):
    """What a command is, by its words: its name, and for a script call (EVALSHA) its first key
    too, which tells the scripts apart (the namespace's prefix left out)."""
    name = words[0].upper()
    if name in ("EVALSHA", "EVAL") and len(words) > 3 and words[2] != "0":
        key = words[3].split(":", 2)[-1]
        return f"{name} {key.split(':')[0]}:{key.split(':')[-1]}" if ":" in key else f"{name} {key}"
    return name


def count_commands(redis, run):
    """Runs `run` under MONITOR: the commands clients sent (Lua's own left out), by name."""
    _, commands = monitored(redis, run)
    return collections.Counter(command_name(words) for _, _, words in commands)


def monitored(redis, run, name_clients=False):
    """Runs `run` under MONITOR: (what it returned, [(wall time, client, [words])] of the
    commands clients sent, Lua's own left out). With `name_clients`, each client is named as its
    connection named itself (MONITOR hides HELLO, so CLIENT LIST is read meanwhile, and left
    out), else by its address."""
    monitor = subprocess.Popen(["redis-cli", "-p", str(redis.port), "MONITOR"],
                               stdout=subprocess.PIPE, text=True)
    lines, names = [], {}
    running = threading.Event()
    running.set()

    def read():
        for line in monitor.stdout:
            if '"' in line and "[" in line and " lua]" not in line:
                lines.append(line)

    def name():
        while running.is_set():
            for client in redis.cli("CLIENT", "LIST").splitlines():
                fields = dict(f.split("=", 1) for f in client.split() if "=" in f)
                if fields.get("name"):
                    names[fields["addr"]] = fields["name"]
            time.sleep(0.05)
    threads = [threading.Thread(target=read, daemon=True)]
    if name_clients:
        threads.append(threading.Thread(target=name, daemon=True))
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    try:
        returned = run()
    finally:
        time.sleep(0.3)
        running.clear()
        monitor.terminate()
        for thread in threads:
            thread.join(5)
    commands = []
    for line in lines:
        at, rest = line.split(" ", 1)
        client = rest[rest.index("[") + 1:rest.index("]")].split(" ")[-1]
        words = [w.strip().strip('"') for w in rest[rest.index("]") + 1:].split('" "')]
        if name_clients and [w.upper() for w in words[:2]] == ["CLIENT", "LIST"]:
            continue
        commands.append((float(at), names.get(client, client), words))
    return returned, commands


def timeline(commands, began, seconds, ended, names, stats, began_monotonic):
    """The run's events, in seconds from the first process' start: when each component's first
    and last Redis command came (by the name its connection gave in HELLO), when the scheduler
    first pushed to the fetch stream and marked the crawl done, the site's first request and
    last answer, and each process' exit: where a run's time goes that is not fetching."""
    first, last = {}, {}
    pushed = done = None
    for at, client, words in commands:
        who = client.removeprefix("squall-")
        first.setdefault(who, at - began)
        last[who] = at - began
        if words[0].upper() == "SET" and len(words) > 1 and words[1].endswith(":done"):
            done = at - began
        if (pushed is None and who == "scheduler" and words[0].upper() == "EVALSHA"
                and len(words) > 3 and words[3].endswith(":fetch")):
            pushed = at - began
    events = [(f"{who} connected", t) for who, t in first.items()]
    events += [(f"{who}'s last command", t) for who, t in last.items()]
    if pushed is not None:
        events.append(("first dispatch pushed", pushed))
    if done is not None:
        events.append(("crawl marked done", done))
    if stats["first"] is not None:
        events.append(("site's first request", stats["first"] - began_monotonic))
        events.append(("site's last answer", stats["last"] - began_monotonic))
    events += [(f"{n} exited", e) for n, e in zip(names, ended)]
    events.append(("all ended", seconds))
    return ", ".join(f"{what} {t:.2f}" for what, t in sorted(events, key=lambda e: e[1]))


def per_page_cpu(names, cpu, pages):
    """'scheduler 120, fetcher 80, ...': each process' CPU in us per page."""
    return ", ".join(f"{n} {c * 1e6 / pages:.0f}" for n, c in zip(names, cpu))


def crawl_part(squall, work, pages):
    base, nginx, _ = crawl_bench.serve_site(work, pages)
    redis = pg = None
    try:
        redis = Redis(work)
        pg = Postgres(work)
        with open(os.path.join(work, "project.py"), "w") as f:
            f.write(PROJECT.format(base=base, pages=pages))
        log(f"embedded: squall run over {pages} pages")
        embedded, embedded_cpu = timed([[squall, "run", "project.py", "--concurrency", "64",
                                         "--per-host", "64", "--ignore-robots", "-q"]], work)
        log(f"embedded: {pages / embedded:.1f} pages/s, CPU us/page: "
            f"{per_page_cpu(['squall run'], embedded_cpu, pages)}")
        log("cluster: scheduler, 1 fetcher, processor, result worker")
        cpu, pg_cpu = redis.cpu(), pg.cpu()
        cluster, cluster_cpu = timed(cluster_argvs(squall, redis, pg, "one", 1, 64, 64), work)
        redis_cpu, pg_cpu = redis.cpu() - cpu, pg.cpu() - pg_cpu
        log(f"cluster: {pages / cluster:.1f} pages/s ({pages / cluster / (pages / embedded):.2f}x "
            f"embedded), Redis CPU {redis_cpu * 1e6 / pages:.1f} us/page, PostgreSQL CPU "
            f"{pg_cpu * 1e6 / pages:.1f} us/page")
        log(f"cluster: CPU us/page: {per_page_cpu(cluster_names(1), cluster_cpu, pages)}, "
            f"all {sum(cluster_cpu) * 1e6 / pages:.0f}")
        small = min(pages, 1000)
        with open(os.path.join(work, "project.py"), "w") as f:
            f.write(PROJECT.format(base=base, pages=small))
        counted = count_commands(redis, lambda: timed(
            cluster_argvs(squall, redis, pg, "count", 1, 64, 64), work))
        commands = sum(counted.values())
        log(f"cluster: {commands / small:.2f} Redis commands per page ({commands} for {small}): " +
            ", ".join(f"{name} {n / small:.2f}" for name, n in counted.most_common()))
        return [
            {"case": f"pyspider project, {pages}-page site: embedded vs 1 fetcher over Redis "
                     "and PostgreSQL", "unit": "pages/s", "higher_is_better": True,
             "values": {"squall": round(pages / cluster, 1),
                        "embedded": round(pages / embedded, 1)}},
            {"case": "cluster: Redis CPU per page", "unit": "us/page", "higher_is_better": False,
             "values": {"squall": round(redis_cpu * 1e6 / pages, 1)}},
            {"case": "cluster: Redis commands (round trips) per page", "unit": "commands/page",
             "higher_is_better": False, "values": {"squall": round(commands / small, 2)}},
        ]
    finally:
        for p in (redis, pg):
            if p is not None:
                stop(p.process)
        stop(nginx)


async def slow_site(port, delay):
    """An HTTP/1.1 server answering every GET after `delay` seconds, keep-alive. GET /stats
    answers at once with {"requests", "first", "last"}: the pages asked for since the last
    /stats and the monotonic times (the system's clock, which the bench reads too) the first
    one came and the last one was answered."""
    stats = {"requests": 0, "first": None, "last": None}

    async def serve(reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                path = head.split(b" ", 2)[1].decode()
                if path == "/stats":
                    body = json.dumps(stats).encode()
                    stats.update(requests=0, first=None, last=None)
                else:
                    if stats["first"] is None:
                        stats["first"] = time.monotonic()
                    await asyncio.sleep(delay)
                    body = f"<title>{path}</title>".encode()
                    stats["requests"] += 1
                    stats["last"] = time.monotonic()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
                             + str(len(body)).encode() + b"\r\n\r\n" + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, IndexError):
            writer.close()
    server = await asyncio.start_server(serve, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()


def site_stats(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats", timeout=10) as r:
        return json.load(r)


def scaling_part(squall, work, pages, with_timeline=False):
    port = free_port()
    site = subprocess.Popen(["taskset", "-c", "1", sys.executable, "-c",
                             "import asyncio, sys; sys.path.insert(0, %r); "
                             "import distributed_cluster_bench as b; "
                             "asyncio.run(b.slow_site(%d, 0.02))" % (os.path.dirname(
                                 os.path.abspath(__file__)), port)],
                            start_new_session=True)
    redis = pg = None
    try:
        wait_for_port(port, site, "the slow site")
        redis = Redis(work)
        pg = Postgres(work)
        with open(os.path.join(work, "project.py"), "w") as f:
            f.write(PROJECT.format(base=f"http://127.0.0.1:{port}/", pages=pages))
        rates, fetching = {}, {}
        for n in (1, 2, 4):
            site_stats(port)
            redis_cpu = redis.cpu()
            record = {}
            # --per-host holds across the fetchers together: high enough not to be the limit.
            argvs = cluster_argvs(squall, redis, pg, f"scale{n}", n, 4, 64)
            if with_timeline:
                (seconds, cpu), commands = monitored(
                    redis, lambda: timed(argvs, work, record=record), name_clients=True)
            else:
                seconds, cpu = timed(argvs, work, record=record)
            began = record["monotonic"]
            rates[n] = pages / seconds
            # The fetchers' own rate, from the site's first request to its last answer: what
            # the processes' start and their noticing the end (a constant) leave out.
            stats = site_stats(port)
            redis_cpu = redis.cpu() - redis_cpu
            fetching[n] = stats["requests"] / (stats["last"] - stats["first"])
            log(f"scaling: {n} fetcher(s) of 4: {rates[n]:.1f} pages/s "
                f"({rates[n] / rates[1]:.2f}x one), fetching {fetching[n]:.1f} pages/s "
                f"({fetching[n] / fetching[1]:.2f}x one) over {stats['last'] - stats['first']:.2f}"
                f" of {seconds:.2f} s (first request at {stats['first'] - began:.2f} s, last answer "
                f"{began + seconds - stats['last']:.2f} s before the end); CPU us/page: {per_page_cpu(cluster_names(n), cpu, pages)}, "
                f"Redis {redis_cpu * 1e6 / pages:.0f}")
            if with_timeline:
                log(f"scaling: {n} fetcher(s), timeline (s): " + timeline(
                    commands, record["wall"], seconds, record["ended"], cluster_names(n), stats,
                    began))
        cases = []
        for n in (1, 2, 4):
            cases.append({"case": f"cluster, site answering in 20 ms, {pages} pages: {n} fetcher "
                                  "processes of 4 fetches against 1", "unit": "pages/s",
                          "higher_is_better": True,
                          "values": {"squall": round(rates[n], 1),
                                     "1 fetcher": round(rates[1], 1)}})
            cases.append({"case": f"cluster, site answering in 20 ms, {pages} pages: {n} fetcher "
                                  "processes of 4 fetches against 1, from the site's first "
                                  "request to its last answer", "unit": "pages/s",
                          "higher_is_better": True,
                          "values": {"squall": round(fetching[n], 1),
                                     "1 fetcher": round(fetching[1], 1)}})
        return cases
    finally:
        for p in (redis, pg):
            if p is not None:
                stop(p.process)
        stop(site)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release", help="the release build tree")
    ap.add_argument("--site-pages", type=int, default=20_000)
    ap.add_argument("--scaling-pages", type=int, default=6000)
    ap.add_argument("--only", default="crawl,scaling")
    ap.add_argument("--timeline", action="store_true",
                    help="log each scaling run's events (Redis MONITOR, which costs some CPU)")
    args = ap.parse_args()
    squall = os.path.abspath(os.path.join(args.build, "squall"))
    if not os.path.exists(squall):
        sys.exit(f"distributed bench: {squall} is missing; build the squall_command target")
    parts = set(args.only.split(","))
    cases = []
    work = tempfile.mkdtemp(prefix="squall-cluster-bench-", dir=crawl_bench.scratch_dir())
    try:
        if os.geteuid() == 0:
            os.chmod(work, 0o755)
        if "crawl" in parts:
            cases += crawl_part(squall, work, args.site_pages)
        if "scaling" in parts:
            cases += scaling_part(squall, work, args.scaling_pages, args.timeline)
    except BenchError as e:
        sys.exit(f"distributed bench: {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
