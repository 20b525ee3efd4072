"""urljoin(base, url) for the many URLs of one page: the same answers, most without parsing.

    join = Joiner(response.url)
    join("/p/2.html"), join("3.html"), join("http://example.com/")

A URL made only of printable ASCII, with no query, fragment, parameters, brackets, backslash,
space or dot segment, joins to a string urljoin would build from the base's parts without
changing the URL's own text: an absolute http(s) URL of the base's scheme to itself, a path to
the base's origin followed by it, a relative path to the base's folder followed by it. Every
other URL goes to urljoin.
"""
from urllib.parse import urljoin

_UNSAFE = frozenset(" []\\;?#")


def _simple(url):
    return url.isascii() and url.isprintable() and _UNSAFE.isdisjoint(url) and \
        "/." not in url and not url.startswith(".")


class Joiner:
    def __init__(self, base):
        self.base = base
        self.scheme = None  # "http://" or "https://" when the fast paths apply
        self.origin = self.folder = None
        if base.startswith(("http://", "https://")):
            host = base.index(":") + 3
            origin = urljoin(base, "/")
            folder = urljoin(base, "a")
            if len(base) > host and base[host] != "/" and origin.endswith("/") and \
                    folder.endswith("/a") and origin.startswith(base[:host]):
                self.scheme = base[:host]
                self.origin = origin[:-1]
                self.folder = folder[:-1]

    def __call__(self, url):
        if self.scheme is not None and url and _simple(url):
            if url.startswith(self.scheme):
                if len(url) > len(self.scheme) and url[len(self.scheme)] != "/":
                    return url
            elif url.startswith("/"):
                if not url.startswith("//"):
                    return self.origin + url
            elif ":" not in url and "//" not in url:
                return self.folder + url
        return urljoin(self.base, url)
