# A page watched for changes: every minute it is asked for again; `age` keeps it from being
# fetched more than once an hour, and a new `itag` (here, the day) fetches it whatever its age.
#   squall run examples/projects/recrawl.py --results results.jsonl   # runs until Ctrl-C
# SITE names the site to watch (the tests point it at a local one).
import os
import time

from pyspider.libs.base_handler import *

SITE = os.environ.get("SITE", "http://127.0.0.1:8000")
EVERY = int(os.environ.get("EVERY_SECONDS", "60"))


class Handler(BaseHandler):
    @every(seconds=EVERY)
    def on_start(self):
        self.crawl(SITE + "/page/news", callback=self.news, age=60 * 60)
        self.crawl(SITE + "/page/today", callback=self.news, age=24 * 60 * 60,
                   itag=time.strftime("%Y-%m-%d"))
        self.crawl(SITE + "/etag", callback=self.news, age=0)

    def news(self, response):
        return {"url": response.url, "title": response.doc("title").text(),
                "fetched": response.time}
