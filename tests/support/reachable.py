#!/usr/bin/env python3
"""The URLs a crawl from a start URL must fetch, found by walking the site over HTTP.

The crawler tests compare what squall fetched against this set, so it is computed with nothing
of squall's: Python's html.parser finds the links, urllib.parse resolves them, urllib.request
fetches the pages. It follows the rules squall's crawler documents (crawler.h, links.h):
- links are a[href], area[href], iframe[src], frame[src], and link[href] whose rel has a token
  and no subresource token (stylesheet, icon, ...); the first <base href> sets the base URL;
- rel=nofollow and <meta name=robots content=nofollow|none> links are not followed;
- only 2xx responses that are HTML (Content-Type text/html or application/xhtml+xml, or
  application/octet-stream or none with an HTML signature at the start) are read for links;
- redirects are followed and the page's links resolve against where it ended;
- URLs are compared without their fragment, in the URL Standard's serialization, and kept when
  they start with the start URL (prefix scope); robots.txt is not consulted.

Writes a JSON object to --out: "urls" (every reachable URL, the start included, sorted) and
"redirect_targets" (URLs some reachable URL redirected to: a crawler that fetched the redirect
knows such a page already, so whether it fetches it again under its own URL depends on the
order links were found).
"""
import argparse
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

# The crawler's subresource rels (links.h): a <link> with one of these is not a page.
RESOURCE_RELS = {
    "stylesheet", "icon", "shortcut", "apple-touch-icon", "apple-touch-icon-precomposed",
    "mask-icon", "preload", "prefetch", "preconnect", "dns-prefetch", "modulepreload",
    "prerender", "manifest", "pingback", "expect", "compression-dictionary",
}
DEFAULT_PORTS = {"http": 80, "https": 443}
# The URL Standard's percent-encode sets for special URLs' paths and queries, beyond C0
# controls, space and non-ASCII bytes.
PATH_ESCAPED = set(b'"#<>?`{}')
QUERY_ESCAPED = set(b"\"#<>'")
# The MIME Sniffing Standard's HTML signatures: after leading whitespace, one of these
# (ASCII case-insensitive) followed by a space or '>'.
HTML_SIGNATURES = (b"<!doctype html", b"<html", b"<head", b"<script", b"<iframe", b"<h1",
                   b"<div", b"<font", b"<table", b"<a", b"<style", b"<title", b"<b", b"<body",
                   b"<br", b"<p", b"<!--")


def percent_encode(text, escaped):
    out = []
    for b in text.encode("utf-8"):
        if b <= 0x20 or b >= 0x7F or b in escaped:
            out.append(f"%{b:02X}")
        else:
            out.append(chr(b))
    return "".join(out)


def remove_dot_segments(path):
    """RFC 3986 section 5.2.4 (the URL Standard's path parsing agrees for these inputs)."""
    out = []
    segments = path.split("/")[1:]
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg in (".", "%2e", "%2E"):
            if last:
                out.append("")
        elif seg.lower() in ("..", ".%2e", "%2e.", "%2e%2e"):
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(seg)
    return "/" + "/".join(out)


def canonical(url):
    """The URL as the URL Standard serializes an http(s) URL, without its fragment; None when it
    is not http(s) or has no host."""
    url = url.strip("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
                    "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
    url = url.replace("\t", "").replace("\n", "").replace("\r", "")
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        return None
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = remove_dot_segments(percent_encode(parts.path.replace("\\", "/") or "/", PATH_ESCAPED))
    query = "?" + percent_encode(parts.query, QUERY_ESCAPED) if "?" in url.split("#")[0] else ""
    return f"{scheme}://{netloc}{path}{query}"


def resolve(base, href):
    href = href.strip(" \t\n\f\r").replace("\\", "/")
    return canonical(urllib.parse.urljoin(base, href))


class Links(HTMLParser):
    """The followable links of one page, as raw attribute values, and its <base href>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.base = None
        self.found = []  # (raw, nofollow)
        self.meta_nofollow = False

    def handle_starttag(self, tag, attrs):
        first = {}
        for name, value in attrs:
            first.setdefault(name, value if value is not None else "")
        rel = first.get("rel", "")
        tokens = {t.lower() for t in rel.replace(",", " ").split()}
        nofollow = "nofollow" in tokens
        if tag == "base" and self.base is None and "href" in first:
            self.base = first["href"].strip(" \t\n\f\r")
        elif tag in ("a", "area") and "href" in first:
            self.found.append((first["href"], nofollow))
        elif tag == "link" and "href" in first:
            if tokens and not tokens & RESOURCE_RELS:
                self.found.append((first["href"], nofollow))
        elif tag in ("iframe", "frame") and "src" in first:
            self.found.append((first["src"], nofollow))
        elif tag == "meta" and first.get("name", "").lower() == "robots":
            words = {w.strip().lower() for w in first.get("content", "").split(",")}
            if words & {"nofollow", "none"}:
                self.meta_nofollow = True

    handle_startendtag = handle_starttag


def is_html(content_type, body):
    essence = (content_type or "").split(";")[0].strip().lower()
    if essence in ("text/html", "application/xhtml+xml"):
        return True
    if essence not in ("", "application/octet-stream"):
        return False
    head = body[:1445].lstrip(b"\t\n\x0c\r ").lower()
    return any(head.startswith(sig) and head[len(sig):len(sig) + 1] in (b" ", b">")
               for sig in HTML_SIGNATURES)


def fetch(url, user_agent):
    """(final URL, status, Content-Type, body); status 0 when no response came."""
    request = urllib.request.Request(url, headers={"User-Agent": user_agent})
    try:
        with urllib.request.urlopen(request, timeout=60) as r:
            return r.geturl(), r.status, r.headers.get("Content-Type"), r.read()
    except urllib.error.HTTPError as e:
        return e.geturl(), e.code, e.headers.get("Content-Type"), e.read()
    except (urllib.error.URLError, OSError):
        return url, 0, None, b""


def walk(start, user_agent):
    start = canonical(start)
    seen = {start}
    todo = [start]
    redirect_targets = set()
    while todo:
        url = todo.pop()
        final, status, content_type, body = fetch(url, user_agent)
        final = canonical(final) or url
        if final != url:
            redirect_targets.add(final)
        if not 200 <= status < 300 or not is_html(content_type, body):
            continue
        parser = Links()
        parser.feed(body.decode("utf-8", errors="replace"))
        parser.close()
        base = final
        if parser.base is not None:
            base = resolve(final, parser.base) or final
        for raw, nofollow in parser.found:
            if nofollow or parser.meta_nofollow:
                continue
            # Most links of a documentation page point into itself ("#section"): the base URL.
            link = base if raw.lstrip(" \t\n\f\r").startswith("#") else resolve(base, raw)
            if link and link.startswith(start) and link not in seen:
                seen.add(link)
                todo.append(link)
    return sorted(seen), sorted(redirect_targets)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("start", help="the start URL; its text is also the scope prefix")
    ap.add_argument("--out", required=True, help="the JSON file to write")
    ap.add_argument("--user-agent", default="reachable.py")
    args = ap.parse_args()
    urls, redirect_targets = walk(args.start, args.user_agent)
    with open(args.out, "w") as f:
        json.dump({"urls": urls, "redirect_targets": redirect_targets}, f)
    print(f"{len(urls)} URLs reachable from {args.start}", file=sys.stderr)


if __name__ == "__main__":
    main()
