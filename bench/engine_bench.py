#!/usr/bin/env python3
"""The engine suite: the task store at scale, and a handler project beside a Scrapy spider.

build/<tree>/bench/engine_scale inserts --tasks active tasks into one project through the
scheduler (batches of 10,000, a commit after each), dispatches --dispatch of them to a fetcher
that answers at once (select, then an ok outcome for each), and reopens the store to time a
restart's first dispatch. Reported: inserts/s, dispatches/s, RSS after the inserts and after the
dispatches, and the seconds to the first dispatch after the restart. pyspider's scheduler, the
peer these figures answer (8 GB at 13 M tasks, hours to restart), does not run on Python 3.11,
so the cases carry squall's figure alone.

The project part generates the crawl suite's site (scripts/gensite.py, --site-pages pages) and
serves it with nginx pinned to core 1, then runs, pinned to core 0, concurrency 64 each:
  squall    build/<tree>/bench/engine_project: a Handler whose callback extracts the title
            (css "title::text") and the links (css "a", resolved) and follows those beneath the
            site's root, with the engine's SQLite store and JSON lines export
  scrapy    bench/engine_scrapy.py: a Spider doing the same with response.css, exporting its
            items as JSON lines (capped at --scrapy-pages, about 50 pages/s)
Reported per crawler: pages/s, CPU microseconds (user + system) per page, peak RSS, each the
median of --rounds alternating rounds (3 by default) of the two. Both select
on a libxml2 tree (parsel through lxml), but squall builds that tree from its own tokenizer for
UTF-8 pages (src/crawl/html_tree_builder.h) in about a fifth of libxml2's parse, so the parse is
no floor: the engine's per-task work and the selection are most of squall's CPU a page.

The python part serves the same site and runs, pinned to core 0 as the others (the loop and the
interpreter's thread share it), concurrency 64, robots.txt ignored as Scrapy does:
  squall run           a pyspider script whose callback builds response.doc (PyQuery), takes the
                       title and five fields by CSS selector and follows the links beneath the
                       root, each a result; it catches status code errors, as the spider takes
                       every response (else the site's 404s would fail ten tasks in a row and
                       pause the project for five minutes, pyspider's rule)
  squall run (no-op)   a script whose on_start asks for every page of the site and whose
                       callbacks touch nothing: the engine plus the Python boundary
  scrapy               bench/engine_scrapy.py as in the project part
Reported as the project part is.

Run by scripts/bench.py (`make bench SUITE=engine`) as
    python3 bench/engine_bench.py --build build/release [--tasks N] [--only scale,project,python]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # importing crawl_bench leaves no __pycache__ in bench/
import crawl_bench  # noqa: E402
from peerlib import BenchError, stop  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def log(message):
    print(f"engine bench: {message}", file=sys.stderr, flush=True)


def crawl_scrapy(base, work, scrapy_pages):
    """bench/engine_scrapy.py over the site at `base`, capped at `scrapy_pages`: its figures."""
    run = crawl_bench.Run("scrapy", [crawl_bench.DEBIAN_PYTHON,
                                     os.path.join(HERE, "engine_scrapy.py"), base,
                                     "--jsonl", os.path.join(work, "s.jsonl"),
                                     "--concurrency", "64", "--max-pages", str(scrapy_pages)],
                          work, limit=600)
    if run.status != 0:
        raise BenchError(f"engine_scrapy.py exited with {run.status}:\n{run.stderr[-2000:]}")
    figures = crawl_bench.figures(run, run.last_json()["responses"])
    log(f"scrapy: {json.dumps(figures)}")
    return figures


def project_part(build, pages, scrapy_pages, rounds):
    """The handler project and the Scrapy spider on one generated site, in `rounds` alternating
    rounds: {name: the median of its rounds' figures}."""
    tool = os.path.abspath(os.path.join(build, "bench", "engine_project"))
    if not os.path.exists(tool):
        sys.exit(f"engine bench: {tool} is missing; build the engine_project target")
    work = tempfile.mkdtemp(prefix="squall-engine-bench-", dir=crawl_bench.scratch_dir())
    nginx = None
    runs = {"squall": [], "scrapy": []}
    try:
        base, nginx, _ = crawl_bench.serve_site(work, pages)
        for r in range(rounds):
            log(f"round {r + 1} of {rounds}: crawling with squall's handler project")
            run = crawl_bench.Run("squall", [tool, base, "--store", os.path.join(work, "p.db"),
                                             "--jsonl", os.path.join(work, "p.jsonl"),
                                             "--concurrency", "64"], work, limit=600)
            if run.status != 0:
                raise BenchError(f"engine_project exited with {run.status}:\n{run.stderr[-2000:]}")
            runs["squall"].append(crawl_bench.figures(run, run.last_json()["pages"]))
            log(f"squall: {json.dumps(runs['squall'][-1])}")
            log(f"round {r + 1} of {rounds}: crawling with Scrapy")
            runs["scrapy"].append(crawl_scrapy(base, work, scrapy_pages))
    except BenchError as e:
        sys.exit(f"engine bench: {e}")
    finally:
        if nginx is not None:
            stop(nginx)
        shutil.rmtree(work, ignore_errors=True)
    return {name: crawl_bench.median_figures(figures) for name, figures in runs.items()}


PYQUERY_PROJECT = """
from pyspider.libs.base_handler import *

BASE = "{base}"


class Handler(BaseHandler):
    def on_start(self):
        self.crawl(BASE, callback=self.page, retries=0)

    @catch_status_code_error
    def page(self, response):
        doc = response.doc
        for each in doc("a[href]").items():
            url = each.attr.href.split("#")[0]
            if url.startswith(BASE):
                self.crawl(url, callback=self.page, retries=0)
        return {{
            "url": response.url,
            "title": doc("title").text(),
            "h1": doc("h1").text(),
            "first_link": doc("a").eq(0).text(),
            "links": len(doc("a")),
            "charset": doc("meta[charset]").attr("charset"),
            "x_links": len(doc("a.x")),
        }}
"""

NOOP_PROJECT = """
from pyspider.libs.base_handler import *


class Handler(BaseHandler):
    def on_start(self):
        for i in range({pages}):
            self.crawl("{base}p/%d.html" % i, callback=self.page, retries=0)

    def page(self, response):
        pass
"""


def stored_successes(db):
    import sqlite3
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM tasks WHERE status = 2 AND url LIKE 'http%'") \
            .fetchone()[0]


def python_part(build, pages, scrapy_pages):
    """pyspider scripts under `squall run` and the Scrapy spider on one site: {name: figures}."""
    squall = os.path.abspath(os.path.join(build, "squall"))
    if not os.path.exists(squall):
        sys.exit(f"engine bench: {squall} is missing; build the squall_command target")
    work = tempfile.mkdtemp(prefix="squall-engine-bench-", dir=crawl_bench.scratch_dir())
    nginx = None
    results = {}
    try:
        base, nginx, _ = crawl_bench.serve_site(work, pages)
        for name, script in (("squall run", PYQUERY_PROJECT), ("squall run (no-op)", NOOP_PROJECT)):
            stem = "noop_project" if "no-op" in name else "doc_project"
            with open(os.path.join(work, stem + ".py"), "w") as f:
                f.write(script.format(base=base, pages=pages))
            log(f"crawling with {name}")
            run = crawl_bench.Run(stem, [squall, "run", stem + ".py", "--results", stem + ".jsonl",
                                         "--concurrency", "64", "--per-host", "64",
                                         "--ignore-robots", "-q"], work, limit=1200)
            if run.status != 0:
                raise BenchError(f"squall run exited with {run.status}:\n{run.stderr[-2000:]}")
            results[name] = crawl_bench.figures(run, stored_successes(
                os.path.join(work, stem + ".db")))
            log(f"{name}: {json.dumps(results[name])}")
        log("crawling with Scrapy")
        results["scrapy"] = crawl_scrapy(base, work, scrapy_pages)
    except BenchError as e:
        sys.exit(f"engine bench: {e}")
    finally:
        if nginx is not None:
            stop(nginx)
        shutil.rmtree(work, ignore_errors=True)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release", help="the release build tree")
    ap.add_argument("--tasks", type=int, default=10_000_000)
    ap.add_argument("--dispatch", type=int, default=1_000_000)
    ap.add_argument("--site-pages", type=int, default=20_000,
                    help="pages in the project part's generated site")
    ap.add_argument("--scrapy-pages", type=int, default=2_000, help="Scrapy's cap")
    ap.add_argument("--only", default="scale,project,python", help="the parts to run")
    ap.add_argument("--rounds", type=int, default=3,
                    help="the project part's alternating rounds; each figure is their median")
    args = ap.parse_args()
    parts = set(args.only.split(","))
    cases = []
    if "project" in parts:
        results = project_part(args.build, args.site_pages, args.scrapy_pages, args.rounds)
        cases += crawl_bench.crawl_cases(
            f"handler project extracting title and links with selectors, "
            f"{args.site_pages}-page site, concurrency 64", results)
    if "python" in parts:
        results = python_part(args.build, args.site_pages, args.scrapy_pages)
        cases += crawl_bench.crawl_cases(
            f"pyspider project: response.doc, title and five CSS fields, follows, "
            f"{args.site_pages}-page site, concurrency 64", results)
    if "scale" not in parts:
        print(json.dumps(cases, indent=1))
        return
    tool = os.path.abspath(os.path.join(args.build, "bench", "engine_scale"))
    if not os.path.exists(tool):
        sys.exit(f"engine bench: {tool} is missing; build the engine_scale target")
    with tempfile.TemporaryDirectory(prefix="squall-engine-") as work:
        print(f"engine bench: {args.tasks:,} tasks into a store in {work}", file=sys.stderr)
        out = subprocess.run([tool, "--store", os.path.join(work, "tasks.db"), "--tasks",
                              str(args.tasks), "--dispatch", str(args.dispatch)],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
    r = json.loads(out)
    n = f"{args.tasks / 1e6:g} M active tasks"
    print(json.dumps(cases + [
        {"case": f"task store, {n}: inserts (batched)", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["insert_per_s"]}},
        {"case": f"task store, {n}: dispatch to an instant fetcher", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["dispatch_per_s"]}},
        {"case": f"task store, {n}: inserts per CPU second", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["insert_per_cpu_s"]}},
        {"case": f"task store, {n}: dispatches per CPU second", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["dispatch_per_cpu_s"]}},
        {"case": f"task store, {n}: RSS after the inserts", "unit": "MiB",
         "values": {"squall": r["rss_mib_inserted"]}},
        {"case": f"task store, {n}: RSS after the dispatches", "unit": "MiB",
         "values": {"squall": r["rss_mib_dispatched"]}},
        {"case": f"task store, {n}: first dispatch after a restart", "unit": "s",
         "values": {"squall": r["first_dispatch_s"]}},
    ], indent=1))


if __name__ == "__main__":
    main()
