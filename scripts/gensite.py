#!/usr/bin/env python3
"""Generates a static web site for crawling: squall's demo, crawler tests and crawl benchmark.

Pages /p/<n>.html of 8-16 KiB each carry 20-40 links in every form a crawler must get right
(absolute and relative paths, dot segments, full URLs with the origin, queries, fragments,
character references, unquoted and single-quoted attributes, <area>, <iframe>, <base href>),
and links it must not follow (rel=nofollow, mailto:, javascript:, other hosts, links inside
comments and scripts, stylesheets). There are redirects (a link to the directory /d/<n>
without its trailing slash, which static servers answer with a redirect to /d/<n>/), missing
pages, plain-text files, and a robots.txt that disallows /private/.

Beside the site it writes expected.json: the URLs a crawl from /index.html reaches, with and
without robots.txt obeyed, computed from the links as generated (not by parsing the pages).
Deterministic for a given --seed.
"""
import argparse
import json
import os
import random

WORDS = ("asynchronous coroutine event loop socket stream buffer resolver crawler frontier "
         "politeness robots archive scheduler fetcher processor queue worker timeout future "
         "handler request response header chunk redirect keep-alive connection").split()


def text(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory to write the site into")
    ap.add_argument("--origin", required=True, help="the site's origin, e.g. http://127.0.0.1:8000")
    ap.add_argument("--pages", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    origin = args.origin.rstrip("/")
    n = args.pages
    os.makedirs(os.path.join(args.out, "p"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "private"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "files"), exist_ok=True)

    dirs = set()  # the /d/<n>/ directories linked to
    # Followable edges as canonical URLs (what a correct crawler queues), per page URL.
    edges = {}

    def page_url(i, query=""):
        return f"{origin}/p/{i}.html{query}"

    def link_forms(i, j):
        """(markup, followed URL or None) for a link from page i to page j, in a random form."""
        form = rng.randrange(16)
        u = page_url(j)
        if form == 0:
            return f'<a href="/p/{j}.html">{j}</a>', u
        if form == 1:
            return f'<a href="{j}.html">{j}</a>', u
        if form == 2:
            return f'<a href="../p/./{j}.html">{j}</a>', u
        if form == 3:
            return f'<a href="{origin}/p/{j}.html">{j}</a>', u
        if form == 4:
            return f"<a href='{j}.html#part-{rng.randrange(9)}'>{j}</a>", u
        if form == 5:
            return f"<a class=x href=/p/{j}.html>{j}</a>", u
        if form == 6:
            return f'<a href="&#47;p&#x2F;{j}.html">{j}</a>', u
        if form == 7:
            q = f"?v={j % 3}"
            return f'<a href="/p/{j}.html{q}">{j}</a>', page_url(j, q)
        if form == 8:
            return f'<a href="/p/{j}.html" rel="nofollow">{j}</a>', None
        if form == 9:
            return f'<map name=m{j}><area href="/p/{j}.html" alt=""></map>', u
        if form == 10:
            return f'<iframe src="/p/{j}.html"></iframe>', u
        if form == 11:
            dirs.add(j)
            return f'<a href="/d/{j}">{j}</a>', f"{origin}/d/{j}"
        if form == 12:
            return f'<!-- <a href="/p/{j}.html">commented out</a> -->', None
        if form == 13:
            return f'<script>var s = "<a href=\\"/p/{j}.html\\">";</script>', None
        if form == 14:
            return f'<a href="  /p/{j}.html\n">{j}</a>', u
        return f'<A HREF="/P/../p/{j}.html">{j}</A>', u

    extra_dead = ['<a href="mailto:someone@example.com">mail</a>',
                  '<a href="javascript:void(0)">js</a>',
                  '<a href="https://elsewhere.example/">elsewhere</a>',
                  '<link rel="stylesheet" href="/style.css">']

    for i in range(n):
        url = page_url(i)
        out = []
        body = [f"<!DOCTYPE html><html><head><meta charset=utf-8><title>Page {i}</title>",
                '<link rel="stylesheet" href="/style.css"></head><body>',
                f"<h1>Page {i}</h1>"]
        targets = [rng.randrange(n) for _ in range(rng.randrange(20, 41))]
        if i + 1 < n:
            targets.append(i + 1)  # a chain through every page keeps them all reachable
        for j in targets:
            markup, followed = link_forms(i, j)
            body.append(f"<p>{text(rng, 12)} {markup}</p>")
            if followed:
                out.append(followed)
        if i % 50 == 0:
            body.append(f'<p><a href="/missing/{i}.html">a missing page</a></p>')
            out.append(f"{origin}/missing/{i}.html")
            body.append(f'<p><a href="/files/notes-{i}.txt">notes</a></p>')
            out.append(f"{origin}/files/notes-{i}.txt")
            with open(os.path.join(args.out, "files", f"notes-{i}.txt"), "w") as f:
                f.write(f'Plain text, not HTML: <a href="/p/{(i + 7) % n}.html">not a link</a>\n')
        if i % 40 == 0:
            body.append(f'<p><a href="/private/{i}.html">private</a></p>')
            out.append(f"{origin}/private/{i}.html")
            with open(os.path.join(args.out, "private", f"{i}.html"), "w") as f:
                f.write(f'<html><body><a href="/private/secret-{i}.html">deeper</a></body></html>')
        body.append(rng.choice(extra_dead))
        page = "\n".join(body)
        pad = rng.randrange(8 * 1024, 16 * 1024) - len(page)
        while pad > 0:
            chunk = f"<p>{text(rng, 30)}</p>\n"
            page += chunk
            pad -= len(chunk)
        page += "</body></html>\n"
        with open(os.path.join(args.out, "p", f"{i}.html"), "w") as f:
            f.write(page)
        edges[url] = out

    # Redirects and private pages lead on: /d/j redirects to /d/j/, whose index links to page
    # j; /private/k links deeper.
    for j in dirs:
        os.makedirs(os.path.join(args.out, "d", str(j)), exist_ok=True)
        with open(os.path.join(args.out, "d", str(j), "index.html"), "w") as f:
            f.write(f'<html><body><a href="/p/{j}.html">page {j}</a></body></html>\n')
        edges[f"{origin}/d/{j}"] = [page_url(j)]
        edges[f"{origin}/d/{j}/"] = [page_url(j)]
    for i in range(0, n, 40):
        edges[f"{origin}/private/{i}.html"] = [f"{origin}/private/secret-{i}.html"]
    # Query variants serve the same page, so they have the same links.
    for i in range(n):
        for v in range(3):
            edges[page_url(i, f"?v={v}")] = edges[page_url(i)]

    index = ['<!DOCTYPE html><html><head><title>squall demo site</title>',
             f'<base href="{origin}/p/"></head><body><h1>squall demo site</h1>']
    index_links = []
    for j in range(min(n, 10)):
        index.append(f'<a href="{j}.html">page {j}</a>')
        index_links.append(page_url(j))
    index.append("</body></html>\n")
    with open(os.path.join(args.out, "index.html"), "w") as f:
        f.write("\n".join(index))
    edges[f"{origin}/"] = index_links
    with open(os.path.join(args.out, "robots.txt"), "w") as f:
        f.write("User-agent: *\nDisallow: /private/\n")
    with open(os.path.join(args.out, "style.css"), "w") as f:
        f.write("body { font-family: sans-serif; }\n")

    def reachable(obey_robots):
        seen = {f"{origin}/"}
        todo = [f"{origin}/"]
        while todo:
            u = todo.pop()
            for v in edges.get(u, []):
                if obey_robots and v.startswith(f"{origin}/private/"):
                    continue
                if v not in seen:
                    seen.add(v)
                    todo.append(v)
        return sorted(seen)

    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump({"origin": origin, "pages": n, "with_robots": reachable(True),
                   "without_robots": reachable(False)}, f)


if __name__ == "__main__":
    main()
