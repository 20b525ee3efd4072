#!/usr/bin/env python3
"""The browser suite: render a 1,000-page site whose links only JavaScript writes.

Each page's links (to pages 2i and 2i+1, a binary tree over 1,000 pages) are written by an
inline script, so a crawler finds the site only by rendering it. nginx (one worker) serves it
pinned to core 1; each crawler in turn, with 4 pages rendered at once, on Debian's Chromium:
  squall    squall crawl --render --browsers 4 --concurrency 4 --per-host 4 (robots.txt and
            sitemaps off), its state in SQLite and JSON lines on, as a user runs it
  crawlee   Crawlee's PuppeteerCrawler (npm's crawlee and puppeteer-core, which
            scripts/bootstrap installs into .cache/crawlee) at a concurrency of 4
Both wait for each page until the network is idle (500 ms without a request).
Reported per crawler: rendered pages/s over the process's wall-clock time, and the peak memory
of the crawler and its browsers (the sum of the proportional set sizes of every process it
started, sampled every 250 ms, so a page shared between processes is counted once). For squall
the memory at every 100 pages is printed on stderr (the curve: flat when the last sample is
within 10% of the one after warm-up, the 200th page; the 1,000th is left out, being taken as
the browsers close).

Run by scripts/bench.py (`make bench SUITE=browser`) as
    python3 bench/browser_bench.py --build build/release
which prints the JSON list bench.py expects on stdout and progress on stderr.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # importing peerlib leaves no __pycache__ in bench/
import peerlib  # noqa: E402
from peerlib import BenchError, free_port, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CRAWLEE = os.path.join(HERE, "..", ".cache", "crawlee")
SERVER_CORE = "1"
PAGES = 1000
CONCURRENCY = 4


def log(message):
    print(f"browser bench: {message}", file=sys.stderr, flush=True)


def chromium():
    for name in ("chromium-headless-shell", "chromium"):
        found = shutil.which(name)
        if found:
            # puppeteer needs the binary itself, not Debian's wrapper script
            real = os.path.join("/usr/lib/chromium", name)
            return real if os.path.exists(real) else found
    raise BenchError("no Chromium: apt-get install chromium-headless-shell")


def write_site(root):
    for i in range(1, PAGES + 1):
        children = [c for c in (2 * i, 2 * i + 1) if c <= PAGES]
        links = ",".join(f"'/p{c}.html'" for c in children)
        with open(os.path.join(root, f"p{i}.html"), "w") as f:
            f.write(f"<!doctype html><title>page {i}</title><body><p>page {i}</p><script>"
                    f"for (const h of [{links}]) {{ const a = document.createElement('a');"
                    f" a.href = h; a.textContent = h; document.body.append(a); }}"
                    f"</script></body>\n")


def descendants(root):
    """root and every process below it (by parent pid)."""
    parents = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        parents.setdefault(int(fields[1]), []).append(int(name))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(parents.get(p, []))
    return out


def pss_mib(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total / 1024


class Sampler(threading.Thread):
    """The memory of a process tree every 250 ms, with a count of pages done at that time."""

    def __init__(self, pid, pages_done):
        super().__init__(daemon=True)
        self.pid, self.pages_done, self.samples, self.done = pid, pages_done, [], False

    def run(self):
        while not self.done:
            self.samples.append((self.pages_done(), pss_mib(descendants(self.pid))))
            time.sleep(0.25)


def count_lines(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def run_squall(build, start, work):
    jsonl = os.path.join(work, "pages.jsonl")
    argv = [os.path.join(os.path.abspath(build), "squall"), "crawl", start, "--render", "--browsers",
            str(CONCURRENCY), "--concurrency", str(CONCURRENCY), "--per-host", str(CONCURRENCY),
            "--ignore-robots", "--no-sitemaps", "--scope", "host", "--state",
            os.path.join(work, "state.db"), "--jsonl", jsonl, "-q", "--timeout", "1800"]
    began = time.monotonic()
    process = subprocess.Popen(argv, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    sampler = Sampler(process.pid, lambda: count_lines(jsonl))
    sampler.start()
    _, err = process.communicate()
    seconds = time.monotonic() - began
    sampler.done = True
    sampler.join()
    if process.returncode != 0:
        raise BenchError(f"squall crawl exited {process.returncode}: {err.decode()[-2000:]}")
    return count_lines(jsonl), seconds, sampler.samples


def run_crawlee(start, work):
    node = shutil.which("node")
    if not node or not os.path.exists(os.path.join(CRAWLEE, "node_modules", "crawlee")):
        log("crawlee is not installed (scripts/bootstrap puts it in .cache/crawlee); skipped")
        return None
    argv = [node, os.path.join(HERE, "browser_crawlee.mjs"), os.path.abspath(CRAWLEE),
            chromium(), start, str(CONCURRENCY)]
    env = dict(os.environ, CRAWLEE_STORAGE_DIR=os.path.join(work, "storage"),
               CRAWLEE_LOG_LEVEL="WARNING")
    began = time.monotonic()
    process = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    sampler = Sampler(process.pid, lambda: 0)
    sampler.start()
    out, err = process.communicate()
    seconds = time.monotonic() - began
    sampler.done = True
    sampler.join()
    if process.returncode != 0:
        raise BenchError(f"crawlee exited {process.returncode}: {err.decode()[-2000:]}")
    pages = json.loads(out.decode().strip().splitlines()[-1])["pages"]
    return pages, seconds, sampler.samples


def curve(samples):
    """The memory when the page count first reached each multiple of 100."""
    points, want = [], 100
    for pages, mib in samples:
        while pages >= want:
            points.append((want, mib))
            want += 100
    return points


def main():
    global PAGES
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release")
    parser.add_argument("--pages", type=int, default=1000, help="the site's size")
    args = parser.parse_args()
    PAGES = args.pages
    work = tempfile.mkdtemp(prefix="squall-browser-bench-")
    site = os.path.join(work, "site")
    os.makedirs(site)
    write_site(site)
    port = free_port()
    nginx = peerlib.start_nginx(os.path.join(work), port, f"root {site};", SERVER_CORE)
    start = f"http://127.0.0.1:{port}/p1.html"
    results = {}
    try:
        log(f"squall crawl --render, {PAGES} pages, {CONCURRENCY} browsers")
        os.makedirs(os.path.join(work, "squall"))
        pages, seconds, samples = run_squall(args.build, start, os.path.join(work, "squall"))
        points = curve(samples)
        log(f"squall: {pages} pages in {seconds:.1f} s; memory (MiB) at every 100 pages: " +
            ", ".join(f"{p}: {m:.0f}" for p, m in points))
        # The last hundred is counted as the crawl ends and its browsers close: not a sample
        # of a crawl under way.
        running = [p for p in points if p[0] < pages]
        if len(running) >= 3:
            warm, last = running[1][1], running[-1][1]
            log(f"squall: last sample {last:.0f} MiB vs {warm:.0f} MiB after warm-up "
                f"({(last / warm - 1) * 100:+.1f}%)")
        results["squall"] = (pages / seconds, max(m for _, m in samples))
        log("crawlee PuppeteerCrawler")
        os.makedirs(os.path.join(work, "crawlee"))
        crawlee = run_crawlee(start, os.path.join(work, "crawlee"))
        if crawlee:
            pages, seconds, samples = crawlee
            log(f"crawlee: {pages} pages in {seconds:.1f} s")
            results["crawlee"] = (pages / seconds, max(m for _, m in samples))
    finally:
        stop(nginx)
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps([
        {"case": f"render {PAGES} JS pages, {CONCURRENCY} at once", "unit": "pages/s",
         "higher_is_better": True, "values": {k: v[0] for k, v in results.items()}},
        {"case": f"render {PAGES} JS pages: peak memory of crawler + browsers", "unit": "MiB PSS",
         "higher_is_better": False, "values": {k: v[1] for k, v in results.items()}},
    ]))


if __name__ == "__main__":
    try:
        main()
    except BenchError as e:
        sys.exit(f"browser bench: {e}")
