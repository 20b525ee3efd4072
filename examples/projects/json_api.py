# A JSON API behind a login: a POST that sets a session cookie, then POSTs that send it.
#   squall run examples/projects/json_api.py --results results.jsonl
# SITE names the API's origin (the tests point it at a local one).
import json
import os

from pyspider.libs.base_handler import *
from pyspider.libs.utils import md5string

SITE = os.environ.get("SITE", "http://127.0.0.1:8000")


class Handler(BaseHandler):
    def get_taskid(self, task):
        # One URL, many requests: the form data tells them apart.
        return md5string(task["url"] + json.dumps(task["fetch"].get("data", "")))

    def on_start(self):
        self.crawl(SITE + "/login", method="POST", data={"user": "demo"}, callback=self.logged_in)

    def logged_in(self, response):
        if not response.json.get("ok"):
            raise ValueError("login refused: %s" % response.text)
        for page in range(1, 4):
            self.crawl(SITE + "/items", data={"page": page}, cookies=response.cookies,
                       save={"page": page}, callback=self.items)

    def items(self, response):
        return {"page": response.save["page"], "answer": response.json}
