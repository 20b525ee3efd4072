#!/usr/bin/python3
"""The crawl benchmark's Tornado peer: Tornado's demo crawler, minus its per-URL printing.

The logic is the demo's: one tornado.queues.Queue of URLs, N workers, one AsyncHTTPClient with
max_clients = N, links taken from the href of every <a> by html.parser, made absolute with
urljoin after urldefrag drops the fragment, kept when they start with the base URL; a URL is
skipped when it is already being fetched (the "fetching" set) and recorded in "fetched" once its
links are out, and the crawl ends when q.join() returns. Like the demo, every in-scope link is
put on the queue and duplicates are dropped only when a worker takes them.

--max-pages caps the crawl for the benchmark: once that many fetches have started, workers drain
the queue without fetching. Prints one JSON line: {"fetched", "errors", "seconds", "timed_out"}.
Needs Debian's python3-tornado: run it with /usr/bin/python3.

    /usr/bin/python3 bench/crawl_tornado.py http://127.0.0.1:8080/ --concurrency 64
"""
import argparse
import asyncio
import json
import sys
import time
from datetime import timedelta
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin

from tornado import httpclient, ioloop, queues
from tornado.util import TimeoutError


class AnchorHrefs(HTMLParser):
    """Collects the href of each <a> start tag, as the demo's parser does, and <base href>."""

    def __init__(self):
        super().__init__()
        self.hrefs = []
        self.base = None

    def handle_starttag(self, tag, attrs):
        if tag not in ("a", "base"):
            return
        href = dict(attrs).get("href")
        if not href:
            return
        if tag == "a":
            self.hrefs.append(href)
        elif self.base is None:
            self.base = href


def links_in(url, body):
    parser = AnchorHrefs()
    parser.feed(body.decode(errors="replace"))
    # The one departure from the demo: relative links resolve against <base href> when the
    # page has one (the generated site's index does), as every browser and crawler does.
    base = urljoin(url, parser.base) if parser.base else url
    return [urljoin(base, urldefrag(href)[0]) for href in parser.hrefs]


async def crawl(base, concurrency, max_pages, timeout):
    client = httpclient.AsyncHTTPClient(force_instance=True, max_clients=concurrency)
    q = queues.Queue()
    fetching, fetched = set(), set()
    tally = {"errors": 0}

    async def links_of(url):
        # The demo logs a failed fetch and carries on with no links from that page.
        try:
            response = await client.fetch(url)
        except Exception:
            tally["errors"] += 1
            return []
        return links_in(url, response.body)

    async def take_one():
        url = await q.get()
        try:
            if url in fetching or len(fetching) >= max_pages:
                return
            fetching.add(url)
            links = await links_of(url)
            fetched.add(url)
            for link in links:
                if link.startswith(base):
                    await q.put(link)
        finally:
            q.task_done()

    async def worker():
        while True:
            await take_one()

    start = time.monotonic()
    await q.put(base)
    workers = [asyncio.ensure_future(worker()) for _ in range(concurrency)]
    timed_out = False
    try:
        await q.join(timeout=timedelta(seconds=timeout))
    except TimeoutError:
        timed_out = True
    seconds = time.monotonic() - start
    for w in workers:
        w.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    # The demo's check: at the end of a finished crawl, every URL taken into work was finished.
    assert timed_out or fetching == fetched
    client.close()
    return {"fetched": len(fetched), "errors": tally["errors"], "seconds": round(seconds, 3),
            "timed_out": timed_out}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the root URL; only links beneath it are followed")
    ap.add_argument("--concurrency", type=int, default=10)
    ap.add_argument("--max-pages", type=int, default=sys.maxsize)
    ap.add_argument("--timeout", type=float, default=300, help="seconds for the whole crawl")
    args = ap.parse_args()
    result = ioloop.IOLoop.current().run_sync(
        lambda: crawl(args.base, args.concurrency, args.max_pages, args.timeout))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
