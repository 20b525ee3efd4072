#!/usr/bin/env python3
"""The crawl suite, scale part: squall's peak RSS once a crawl has seen 1,000,000 URLs.

A site written here: an index linking to --pages pages, each carrying --links links to distinct
URLs under /x/ that do not exist (nginx answers them 404 at once). Crawled breadth first, the
pages come first and between them name pages * links URLs; --max-pages stops the crawl just
after them, so the crawl sees the million URLs while fetching only the pages. nginx is pinned to
core 1 and squall to core 0, concurrency 64, robots.txt off, SQLite state and JSON lines on.
The URL count is read back from the state file (`select count(*) from urls`), and the case is
reported only when it reaches --want URLs.

Run by scripts/bench.py (`make bench SUITE=crawl`) as
    python3 bench/crawl_million_bench.py --build build/release
which prints the JSON list bench.py expects on stdout and progress on stderr.
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import sys
import tempfile

sys.dont_write_bytecode = True  # importing the suite's main script leaves no __pycache__ behind
import crawl_bench  # noqa: E402
from crawl_bench import BenchError, Run, log, start_nginx, stop  # noqa: E402


def write_site(site, pages, links):
    os.makedirs(os.path.join(site, "p"))
    with open(os.path.join(site, "index.html"), "w") as f:
        f.write("<!DOCTYPE html><html><head><title>many URLs</title></head><body>\n")
        f.writelines(f'<a href="/p/{i}.html">{i}</a>\n' for i in range(pages))
        f.write("</body></html>\n")
    for i in range(pages):
        with open(os.path.join(site, "p", f"{i}.html"), "w") as f:
            f.write(f"<!DOCTYPE html><html><head><title>Page {i}</title></head><body>\n")
            f.writelines(f'<a href="/x/{i}/{k}.html">{k}</a>\n' for k in range(links))
            f.write("</body></html>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release", help="the release build tree")
    ap.add_argument("--pages", type=int, default=2_000)
    ap.add_argument("--links", type=int, default=500, help="distinct missing URLs per page")
    ap.add_argument("--want", type=int, default=1_000_000, help="URLs the crawl must see")
    args = ap.parse_args()

    squall = os.path.abspath(os.path.join(args.build, "squall"))
    if not os.path.exists(squall):
        sys.exit(f"crawl bench: {squall} is missing; build the squall_command target")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("crawl bench: terminated"))
    work = tempfile.mkdtemp(prefix="squall-crawl-million-", dir=crawl_bench.scratch_dir())
    nginx = None
    try:
        site = os.path.join(work, "site")
        log(f"writing {args.pages} pages of {args.links} links each")
        write_site(site, args.pages, args.links)
        port = crawl_bench.free_port()
        nginx = start_nginx(work, site, port)
        state = os.path.join(work, "crawl.db")
        log("crawling with squall until every page is fetched")
        run = Run("squall-million",
                  [squall, "crawl", f"http://127.0.0.1:{port}/", "--concurrency", "64",
                   "--per-host", "64", "--ignore-robots", "--state", state,
                   "--jsonl", os.path.join(work, "out.jsonl"), "--quiet",
                   "--max-pages", str(args.pages + 1)], work, limit=180)
        if run.status != 0:
            raise BenchError(f"squall crawl exited with {run.status}:\n{run.stderr[-2000:]}")
        with sqlite3.connect(state) as db:
            seen = db.execute("select count(*) from urls").fetchone()[0]
        with open(os.path.join(work, "out.jsonl")) as f:
            pages = sum(1 for line in f if json.loads(line)["status"] == 200)
        log(f"squall: {seen} URLs seen, {pages} pages fetched with status 200, "
            f"peak RSS {run.rss_mib:.1f} MiB, {run.seconds:.1f} s")
        if seen < args.want:
            raise BenchError(f"the crawl saw {seen} URLs, fewer than {args.want}")
    except BenchError as e:
        sys.exit(f"crawl bench: {e}")
    finally:
        if nginx is not None:
            stop(nginx)
        shutil.rmtree(work, ignore_errors=True)

    print(json.dumps([{"case": f"{args.want:,} URLs seen in one crawl", "unit": "peak RSS MiB",
                       "higher_is_better": False,
                       "values": {"squall": round(run.rss_mib, 1)}}], indent=1))


if __name__ == "__main__":
    main()
