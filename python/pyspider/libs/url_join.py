"""urljoin(base, url) for the many URLs of one page: the same answers, most without parsing.

    join = Joiner(response.url)
    join("/p/2.html"), join("3.html"), join("../p/./4.html?v=1#top"), join("http://example.com/")

A URL of printable ASCII whose part before its query or fragment has no parameters, brackets,
backslash or space joins to a string urljoin would build from the base's parts without changing
the URL's own text, but for its dot segments: an absolute http(s) URL of the base's scheme to
itself, a path to the base's origin followed by it, a relative path to the base's folder
followed by it, the dot segments of either path removed as urljoin removes them, and the query
and fragment kept as they are. Every other URL goes to urljoin: an empty query or fragment
(which urljoin drops), a query or fragment alone, another scheme, a host without a scheme.
"""
import re
from urllib.parse import urljoin

# A URL the fast paths may take, in one match: printable ASCII, split into the part before its
# first "?" or "#" (one character at least, no space, bracket, backslash or semicolon) and the
# rest.
_PARTS = re.compile(r"([!\"$-:<->@-Z^-~]+)([?#][ -~]*)?")


def _without_dots(path):
    """`path` (absolute, no empty segment but maybe the last) with its "." and ".." segments
    resolved as urljoin resolves them: ".." above the root is dropped, and a path that ends in
    one ends in "/"."""
    segments = path.split("/")
    kept = []
    for segment in segments:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    if segments[-1] in (".", ".."):
        kept.append("")
    joined = "/".join(kept)
    return joined if joined.startswith("/") else "/" + joined


def _kept_as_is(rest):
    """True when urljoin keeps `rest` (a URL's text from its first "?" or "#" on) unchanged:
    neither the query nor the fragment it has is empty."""
    if rest[0] == "#":
        return len(rest) > 1
    hash_at = rest.find("#")
    if hash_at < 0:
        return len(rest) > 1
    return 1 < hash_at < len(rest) - 1


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
                    folder.endswith("/a") and origin.startswith(base[:host]) and \
                    folder.startswith(origin) and "//" not in folder[len(origin):]:
                self.scheme = base[:host]
                self.origin = origin[:-1]
                self.folder = folder[:-1]
                self.folder_path = self.folder[len(self.origin):]

    def __call__(self, url):
        if self.scheme is not None:
            parts = _PARTS.fullmatch(url)
            if parts is not None:
                path, rest = parts.groups()
                if rest is None:
                    rest = ""
                elif not _kept_as_is(rest):
                    return urljoin(self.base, url)
                dots = "/." in path or path[0] == "."
                if path.startswith(self.scheme):
                    if len(path) > len(self.scheme) and path[len(self.scheme)] != "/" and \
                            not dots:
                        return url
                elif path[0] == "/":
                    if path[1:2] != "/":
                        return self.origin + (_without_dots(path) if dots else path) + rest
                elif ":" not in path and "//" not in path:
                    path = self.folder_path + path
                    return self.origin + (_without_dots(path) if dots else path) + rest
        return urljoin(self.base, url)
