# An index page and its detail pages, in pyspider's tutorial style:
#   squall run examples/projects/index_detail.py --results results.jsonl
# SITE names the site to crawl (the tests point it at a local one).
import os

from pyspider.libs.base_handler import *

SITE = os.environ.get("SITE", "http://127.0.0.1:8000")


class Handler(BaseHandler):
    crawl_config = {"headers": {"Accept-Language": "en"}}

    def on_start(self):
        self.crawl(SITE + "/page/index?links=first,second,third", callback=self.index_page)

    @config(age=10 * 24 * 60 * 60)
    def index_page(self, response):
        for each in response.doc('a[href^="http"]').items():
            self.crawl(each.attr.href, callback=self.detail_page)

    @config(priority=2)
    def detail_page(self, response):
        return {
            "url": response.url,
            "title": response.doc("title").text(),
        }
