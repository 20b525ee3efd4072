#!/usr/bin/env python3
"""The crawl suite: crawl a generated 20,000-page site on loopback with squall and its peers.

scripts/gensite.py writes the site (pages of 8-16 KiB, 20-40 links of every form) into a
temporary directory and nginx (one worker, no access log, unbounded keep-alive) serves it pinned
to core 1. Each crawler in turn runs pinned to core 0 from the site's root, concurrency 64,
robots.txt and politeness off:
  squall    squall crawl with its SQLite state and JSON lines on, as a user runs it
  wget2     wget2 -r (Debian's 1.99), 64 threads, saving the pages to a temporary directory
  tornado   bench/crawl_tornado.py, Tornado's demo crawler (Debian's python3-tornado)
  scrapy    bench/crawl_scrapy.py, a CrawlSpider (Debian's python3-scrapy)
Tornado and Scrapy are capped (--tornado-pages, --scrapy-pages) so that the suite ends in a few
minutes; their rates are over the pages they fetched. Pages are counted from each crawler's own
account: squall's JSON lines, wget2's saved files, Tornado's fetched set, Scrapy's
response_received_count. Reported per crawler: pages/s over the process's wall-clock time, CPU
microseconds (user + system, from wait4) per page, and peak RSS (ru_maxrss) in MiB. On a shared
machine the wall clock moves with whatever else runs on the crawler's core; CPU per page does
not, so read the two together.

The crawlers run in --rounds alternating rounds (3 by default), and each figure reported is the
median of a crawler's rounds: the machines these suites run on are shared, and a neighbour's load
comes and goes over minutes.

squall's crawl is checked against the site's expected.json: the URLs it reports must be exactly
the set reachable without robots.txt; a difference is reported on stderr.

Run by scripts/bench.py (`make bench SUITE=crawl`) as
    python3 bench/crawl_bench.py --build build/release
which prints the JSON list bench.py expects on stdout and progress on stderr.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
import peerlib  # noqa: E402
from peerlib import BenchError, free_port, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GENSITE = os.path.join(HERE, "..", "scripts", "gensite.py")
DEBIAN_PYTHON = "/usr/bin/python3"
CRAWLER_CORE, SERVER_CORE = "0", "1"
IMPLS = ("squall", "wget2", "tornado", "scrapy")


def log(message):
    print(f"crawl bench: {message}", file=sys.stderr, flush=True)


def start_nginx(work, site, port):
    """nginx serving `site` on 127.0.0.1:port from core SERVER_CORE; its files live in `work`."""
    return peerlib.start_nginx(work, port, f"root {site};", SERVER_CORE)


class Run:
    """One pinned crawler process: its output, wall-clock and CPU seconds, peak RSS, status."""

    def __init__(self, name, argv, work, limit):
        out_path = os.path.join(work, f"{name}.stdout")
        err_path = os.path.join(work, f"{name}.stderr")
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            # taskset execs the crawler, so this pid is the crawler and wait4 gives its rusage.
            process = subprocess.Popen(["taskset", "-c", CRAWLER_CORE] + argv, stdout=out,
                                       stderr=err, cwd=work, start_new_session=True)
            try:
                status, usage = wait_with_limit(process, limit)
            except BaseException:
                kill_group(process)
                reap(process)
                raise
            self.seconds = time.monotonic() - start
        self.status = os.waitstatus_to_exitcode(status)
        self.cpu = usage.ru_utime + usage.ru_stime
        self.rss_mib = usage.ru_maxrss / 1024
        with open(out_path, errors="replace") as f:
            self.stdout = f.read()
        with open(err_path, errors="replace") as f:
            self.stderr = f.read()

    def last_json(self):
        lines = [line for line in self.stdout.splitlines() if line.startswith("{")]
        return json.loads(lines[-1]) if lines else None


def wait_with_limit(process, limit):
    """wait4 for the process; past `limit` seconds its process group is killed (BenchError)."""
    timer = threading.Timer(limit, kill_group, args=(process,))
    timer.start()
    try:
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        raise BenchError(f"{process.args[3]} ran past {limit:.0f} s and was killed")
    return status, usage


def kill_group(process):
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def reap(process):
    try:
        os.waitpid(process.pid, 0)
    except ChildProcessError:
        pass


def scratch_dir(need=3 << 30):
    """Where the site and the crawlers' output go: /dev/shm when it has room, since the site
    (about 420 MB at 20,000 pages) and wget2's copy of it are written and read in one run, and
    a shared disk would make the suite slow and measure the disk rather than the crawlers."""
    shm = "/dev/shm"
    try:
        if shutil.disk_usage(shm).free >= need:
            return shm
    except OSError:
        pass
    return None


def figures(run, pages):
    if pages <= 0:
        raise BenchError(f"a crawler fetched no pages (exit {run.status}):\n{run.stderr[-2000:]}")
    return {"pages": pages, "seconds": round(run.seconds, 2),
            "pages/s": round(pages / run.seconds, 1),
            "cpu us/page": round(run.cpu * 1e6 / pages, 1), "rss": round(run.rss_mib, 1)}


def crawl_squall(squall, base, work, expected):
    out = os.path.join(work, "squall")
    os.makedirs(out)
    jsonl = os.path.join(out, "out.jsonl")
    run = Run("squall", [squall, "crawl", base, "--concurrency", "64", "--per-host", "64",
                         "--ignore-robots", "--state", os.path.join(out, "crawl.db"),
                         "--jsonl", jsonl, "--quiet"], work, limit=120)
    if run.status != 0:
        raise BenchError(f"squall crawl exited with {run.status}:\n{run.stderr[-2000:]}")
    urls = []
    with open(jsonl) as f:
        for line in f:
            if line.strip():
                urls.append(json.loads(line)["url"])
    check_reachable(urls, expected)
    return figures(run, len(urls))


def serve_site(work, pages):
    """Generates a `pages`-page site in `work` and serves it with nginx on a free port:
    (base URL, the nginx process, the site's expected.json)."""
    site = os.path.join(work, "site")
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    log(f"generating a {pages}-page site")
    subprocess.run([sys.executable, GENSITE, "--out", site, "--origin", base.rstrip("/"),
                    "--pages", str(pages)], check=True)
    with open(os.path.join(site, "expected.json")) as f:
        expected = json.load(f)
    return base, start_nginx(work, site, port), expected


def median_figures(runs):
    """The median of each of figures()'s values over several runs of one crawler."""
    medians = peerlib.medians({key: [run[key] for run in runs] for key in runs[0]})
    return {key: round(value, 1) for key, value in medians.items()}


def crawl_cases(title, results):
    """The cases bench.py prints for crawlers' figures (figures()): pages/s, CPU, memory."""
    return [
        {"case": title, "unit": "pages/s", "higher_is_better": True,
         "values": {k: v["pages/s"] for k, v in results.items()}},
        {"case": title + ", CPU", "unit": "CPU us per page", "higher_is_better": False,
         "values": {k: v["cpu us/page"] for k, v in results.items()}},
        {"case": title + ", memory", "unit": "peak RSS MiB", "higher_is_better": False,
         "values": {k: v["rss"] for k, v in results.items()}},
    ]


def check_reachable(urls, expected):
    want, got = set(expected), set(urls)
    if len(urls) != len(got):
        log(f"squall: {len(urls) - len(got)} URLs reported more than once")
    missing, extra = sorted(want - got), sorted(got - want)
    if not missing and not extra:
        log(f"squall: fetched exactly the {len(want)} reachable URLs")
        return
    log(f"squall: {len(got)} URLs against {len(want)} reachable; {len(missing)} missing "
        f"(e.g. {missing[:3]}), {len(extra)} not expected (e.g. {extra[:3]})")


def crawl_wget2(base, work):
    out = os.path.join(work, "wget2")
    os.makedirs(out)
    run = Run("wget2", ["wget2", "--no-config", "-r", "--level=inf", "-np", "--robots=off",
                        "--max-threads=64", "-P", out, "-q", base], work, limit=120)
    # wget2 exits 8 when some fetch had an error status (the site's deliberate 404s).
    if run.status not in (0, 8):
        raise BenchError(f"wget2 exited with {run.status}:\n{run.stderr[-2000:]}")
    saved = sum(len(files) for _, _, files in os.walk(out))
    return figures(run, saved)


def crawl_tornado(base, work, max_pages):
    run = Run("tornado", [DEBIAN_PYTHON, os.path.join(HERE, "crawl_tornado.py"), base,
                          "--concurrency", "64", "--max-pages", str(max_pages)], work,
              limit=180)
    result = run.last_json()
    if run.status != 0 or result is None:
        raise BenchError(f"crawl_tornado.py exited with {run.status}:\n{run.stderr[-2000:]}")
    return figures(run, result["fetched"])


def crawl_scrapy(base, work, max_pages):
    run = Run("scrapy", [DEBIAN_PYTHON, os.path.join(HERE, "crawl_scrapy.py"), base,
                         "--concurrency", "64", "--max-pages", str(max_pages)], work, limit=180)
    result = run.last_json()
    if run.status != 0 or result is None:
        raise BenchError(f"crawl_scrapy.py exited with {run.status}:\n{run.stderr[-2000:]}")
    return figures(run, result["responses"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release", help="the release build tree")
    ap.add_argument("--pages", type=int, default=20_000, help="pages in the generated site")
    ap.add_argument("--tornado-pages", type=int, default=10_000,
                    help="Tornado's cap (about 600 pages/s)")
    ap.add_argument("--scrapy-pages", type=int, default=2_000,
                    help="Scrapy's cap (about 100 pages/s)")
    ap.add_argument("--only", default=",".join(IMPLS), help="comma-separated crawlers to run")
    ap.add_argument("--rounds", type=int, default=3,
                    help="alternating rounds of every crawler; each figure is their median")
    args = ap.parse_args()

    only = [name for name in args.only.split(",") if name]
    unknown = set(only) - set(IMPLS)
    if unknown:
        sys.exit(f"crawl bench: unknown crawlers {sorted(unknown)}; known: {', '.join(IMPLS)}")
    squall = os.path.abspath(os.path.join(args.build, "squall"))
    if "squall" in only and not os.path.exists(squall):
        sys.exit(f"crawl bench: {squall} is missing; build the squall_command target")
    if "wget2" in only and shutil.which("wget2") is None:
        sys.exit("crawl bench: wget2 is missing (scripts/bootstrap installs it)")

    # A SIGTERM unwinds like an error, so that nginx is stopped and the temporary files removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("crawl bench: terminated"))
    work = tempfile.mkdtemp(prefix="squall-crawl-bench-", dir=scratch_dir())
    nginx = None
    results = {}
    try:
        base, nginx, site = serve_site(work, args.pages)
        expected = site["without_robots"]
        log(f"{len(expected)} URLs reachable from {base}")
        rounds = {name: [] for name in only}
        for r in range(args.rounds):
            for name in only:
                log(f"round {r + 1} of {args.rounds}: crawling with {name}")
                # Each run in a directory of its own, removed after it (wget2 saves every page).
                run_dir = os.path.join(work, f"{name}-{r}")
                os.makedirs(run_dir)
                if name == "squall":
                    run_figures = crawl_squall(squall, base, run_dir, expected)
                elif name == "wget2":
                    run_figures = crawl_wget2(base, run_dir)
                elif name == "tornado":
                    run_figures = crawl_tornado(base, run_dir, args.tornado_pages)
                else:
                    run_figures = crawl_scrapy(base, run_dir, args.scrapy_pages)
                shutil.rmtree(run_dir, ignore_errors=True)
                rounds[name].append(run_figures)
                log(f"{name}: {json.dumps(run_figures)}")
        results = {name: median_figures(runs) for name, runs in rounds.items()}
    except BenchError as e:
        sys.exit(f"crawl bench: {e}")
    finally:
        if nginx is not None:
            stop(nginx)
        shutil.rmtree(work, ignore_errors=True)

    cases = crawl_cases(f"crawl a {args.pages}-page site on loopback, concurrency 64", results)
    print(json.dumps(cases, indent=1))


if __name__ == "__main__":
    main()
