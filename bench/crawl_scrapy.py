#!/usr/bin/python3
"""The crawl benchmark's Scrapy peer: a CrawlSpider that follows every link beneath a base URL.

One Rule with a LinkExtractor allowing only URLs that start with the base (the same prefix scope
as the other crawlers), no callback and no item pipeline: Scrapy fetches, extracts and follows,
nothing more. robots.txt ignored, CONCURRENT_REQUESTS and CONCURRENT_REQUESTS_PER_DOMAIN set to
the concurrency, no download delay, no AutoThrottle. --max-pages becomes CLOSESPIDER_PAGECOUNT
(Scrapy finishes the requests in flight when it closes, so a few more may be counted).
Prints one JSON line: {"responses", "seconds", "finish_reason"}, responses being Scrapy's own
response_received_count stat. Needs Debian's python3-scrapy: run it with /usr/bin/python3.

    /usr/bin/python3 bench/crawl_scrapy.py http://127.0.0.1:8080/ --concurrency 64
"""
import argparse
import json
import re
import time

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class SiteSpider(CrawlSpider):
    name = "site"

    def __init__(self, base, *args, **kwargs):
        self.start_urls = [base]
        # CrawlSpider compiles its rules in __init__, so they are set before it runs.
        self.rules = (Rule(LinkExtractor(allow=("^" + re.escape(base),)), follow=True),)
        super().__init__(*args, **kwargs)


def settings(concurrency, max_pages):
    """The settings both Scrapy peers run with: no robots.txt, `concurrency` requests in flight
    to one site, no delay or throttling, CLOSESPIDER_PAGECOUNT `max_pages` (0: none), quiet."""
    return {
        "ROBOTSTXT_OBEY": False,
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": concurrency,
        "CONCURRENT_REQUESTS_PER_IP": 0,
        "DOWNLOAD_DELAY": 0,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "CLOSESPIDER_PAGECOUNT": max_pages,
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
        "ITEM_PIPELINES": {},
    }


def run(spider, settings, base):
    """Crawls from `base` with `spider` to its end: (seconds, Scrapy's stats)."""
    process = CrawlerProcess(settings=settings)
    crawler = process.create_crawler(spider)
    start = time.monotonic()
    process.crawl(crawler, base=base)
    process.start()
    return time.monotonic() - start, crawler.stats.get_stats()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the root URL; only links beneath it are followed")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--max-pages", type=int, default=0, help="0: no limit")
    args = ap.parse_args()

    seconds, stats = run(SiteSpider, settings(args.concurrency, args.max_pages), args.base)
    print(json.dumps({"responses": stats.get("response_received_count", 0),
                      "seconds": round(seconds, 3),
                      "finish_reason": stats.get("finish_reason")}))


if __name__ == "__main__":
    main()
