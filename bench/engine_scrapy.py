#!/usr/bin/python3
"""The engine suite's Scrapy peer: a spider that extracts each page's title and links with
response.css, as bench/engine_project.cpp's handler does.

Every <a href> is joined with the page's base URL (response.urljoin honours <base href>), its
fragment dropped, and followed when it starts with the base; each page yields {url, title}
(title from "title::text"), exported as JSON lines as squall's result worker does. robots.txt
ignored, no retries (squall's project gives its tasks none), CONCURRENT_REQUESTS and
CONCURRENT_REQUESTS_PER_DOMAIN set to the concurrency, no delay, no AutoThrottle. --max-pages
becomes CLOSESPIDER_PAGECOUNT. Prints one JSON line: {"responses", "items", "seconds"}. Needs
Debian's python3-scrapy: run it with /usr/bin/python3.

    /usr/bin/python3 bench/engine_scrapy.py http://127.0.0.1:8080/ --jsonl items.jsonl
"""
import argparse
import json
import sys

sys.dont_write_bytecode = True  # importing crawl_scrapy leaves no __pycache__ in bench/
import crawl_scrapy  # noqa: E402

import scrapy  # noqa: E402
from scrapy.http import HtmlResponse  # noqa: E402


class TitleSpider(scrapy.Spider):
    name = "titles"

    def __init__(self, base, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.base = base
        self.start_urls = [base]

    def parse(self, response):
        if not isinstance(response, HtmlResponse):
            return
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href.strip()).split("#", 1)[0]
            if url.startswith(self.base):
                yield scrapy.Request(url, callback=self.parse)
        yield {"url": response.url, "title": response.css("title::text").get()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the root URL; only links beneath it are followed")
    ap.add_argument("--jsonl", required=True, help="where the items go, as JSON lines")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--max-pages", type=int, default=0, help="0: no limit")
    args = ap.parse_args()

    seconds, stats = crawl_scrapy.run(
        TitleSpider, {**crawl_scrapy.settings(args.concurrency, args.max_pages),
                      "RETRY_ENABLED": False, "FEEDS": {args.jsonl: {"format": "jsonlines"}}},
        args.base)
    print(json.dumps({"responses": stats.get("response_received_count", 0),
                      "items": stats.get("item_scraped_count", 0),
                      "seconds": round(seconds, 3)}))


if __name__ == "__main__":
    main()
