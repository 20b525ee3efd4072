"""The site `squall run`'s tests crawl: Python's http.server on loopback, logging each request.

    python3 run_peer.py PORT LOG [HOST]  # LOG: a JSON line per request (time, in_flight, client,
                                         # method, path, headers, body); HOST: 127.0.0.1

/page/NAME?links=a,b    HTML titled NAME with links to /page/a and /page/b
/chain/N?to=M           HTML titled chain N, linking to /chain/N*10+1 .. N*10+10 below M
/chain/N?to=M&hold=K    the same (its links carry hold=K), but when N >= K only once a file
                        named "open" is beside LOG
/flaky/KEY?fail=N       500 for the first N requests of KEY, then a page
/etag                   a page with an ETag and a Last-Modified; 304 when the request has them
/latin1                 an ISO-8859-1 page that says so only in its <meta>
/status/CODE            that status
/login (POST)           sets the cookie session=s3cret, answers JSON
/items (POST)           JSON: the form fields and the cookies it got
/echo (POST)            the request's body, byte for byte (application/octet-stream)

Each logged request also has `body_hex`, the body's bytes in hexadecimal.
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LOCK = threading.Lock()
IN_FLIGHT = 0  # requests being answered, this one included, as each is logged
FAILS = {}
ETAG = '"v1"'
LAST_MODIFIED = "Wed, 01 Jan 2025 00:00:00 GMT"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, body, content_type="text/html", headers=()):
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def record(self, body):
        global IN_FLIGHT
        with LOCK:
            IN_FLIGHT += 1
            in_flight = IN_FLIGHT
        entry = {"time": time.time(), "in_flight": in_flight,
                 "client": self.client_address[0], "method": self.command,
                 "path": self.path,
                 "headers": {k.lower(): v for k, v in self.headers.items()},
                 "body": body.decode("utf-8", "replace"), "body_hex": body.hex()}
        with LOCK, open(sys.argv[2], "a") as log:
            log.write(json.dumps(entry) + "\n")

    def do_GET(self):
        self.handle_any(b"")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.handle_any(self.rfile.read(length))

    def handle_any(self, body):
        global IN_FLIGHT
        self.record(body)
        try:
            self.answer(body)
        finally:
            with LOCK:
                IN_FLIGHT -= 1

    def answer(self, body):
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        if parts[0] == "page":
            links = [x for x in query.get("links", [""])[0].split(",") if x]
            html = "<html><head><title>%s</title></head><body>" % parts[1]
            html += "".join('<a href="/page/%s">%s</a>' % (x, x) for x in links)
            self.send(200, html + "</body></html>")
        elif parts[0] == "chain":
            n, to = int(parts[1]), int(query.get("to", ["0"])[0])
            hold = query.get("hold", [""])[0]
            if hold and n >= int(hold):
                gate = os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), "open")
                while not os.path.exists(gate):
                    time.sleep(0.02)
            carried = "&hold=" + hold if hold else ""
            html = "<html><head><title>chain %d</title></head><body>" % n
            for k in range(n * 10 + 1, n * 10 + 11):
                if k < to:
                    html += '<a href="/chain/%d?to=%d%s">%d</a>' % (k, to, carried, k)
            self.send(200, html + "</body></html>")
        elif parts[0] == "flaky":
            with LOCK:
                FAILS[parts[1]] = FAILS.get(parts[1], 0) + 1
                count = FAILS[parts[1]]
            if count <= int(query.get("fail", ["1"])[0]):
                self.send(500, "try again")
            else:
                self.send(200, "<html><head><title>recovered</title></head></html>")
        elif parts[0] == "etag":
            if (self.headers.get("If-None-Match") == ETAG
                    or self.headers.get("If-Modified-Since") == LAST_MODIFIED):
                self.send_response(304)
                self.send_header("ETag", ETAG)
                self.send_header("Last-Modified", LAST_MODIFIED)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send(200, "<html><head><title>tagged</title></head></html>",
                          headers=[("ETag", ETAG), ("Last-Modified", LAST_MODIFIED)])
        elif parts[0] == "latin1":
            html = ('<html><head><meta charset="iso-8859-1"><title>Caf\xe9 cr\xe8me</title></head>'
                    '<body><p>d\xe9j\xe0 vu</p><a href="/page/na\xefve">next</a></body></html>')
            self.send(200, html.encode("iso-8859-1"))
        elif parts[0] == "status":
            self.send(int(parts[1]), "<html><head><title>status %s</title></head></html>" % parts[1])
        elif parts[0] == "login" and self.command == "POST":
            self.send(200, json.dumps({"ok": True}), "application/json",
                      [("Set-Cookie", "session=s3cret; Path=/")])
        elif parts[0] == "items" and self.command == "POST":
            fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8")).items()}
            self.send(200, json.dumps({"form": fields, "cookie": self.headers.get("Cookie", "")}),
                      "application/json")
        elif parts[0] == "echo" and self.command == "POST":
            self.send(200, body, "application/octet-stream")
        else:
            self.send(404, "not found")


if __name__ == "__main__":
    host = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1"
    server = ThreadingHTTPServer((host, int(sys.argv[1])), Handler)
    server.daemon_threads = True
    server.serve_forever()
