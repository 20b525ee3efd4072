"""pyspider.libs.url_join.Joiner gives urljoin's answer for every base and URL."""
import random
import unittest
from urllib.parse import urljoin

from pyspider.libs.url_join import Joiner

BASES = [
    "http://example.com/", "http://example.com", "https://example.com/a/b.html",
    "http://example.com/a/b/", "http://example.com:8080/x?q=1#f", "https://user:pw@h.example/p/",
    "http://[::1]:80/a/b", "http://127.0.0.1/dir/page.php;params?x", "ftp://example.com/a/",
    "file:///tmp/a/b", "data:,on_start", "http://example.com/a/./b/../c", "https://h/%7Euser/",
    "http://example.com/a b/c", "HTTP://EXAMPLE.COM/A/", "http:/relative/base", "",
]

URLS = [
    "", "/", "//", "///x", "//other.example/p", "p.html", "./p", "../p", "../../../p", ".", "..",
    "a/./b", "a/../b", "?q=2", "#frag", "p?x#y", ";p", "/p;q", "http://other.example/",
    "https://other.example/x", "http:p", "https:/p", "http://", "mailto:a@b.c", "javascript:void(0)",
    "data:text/plain,hi", " p.html", "p.html ", "p\\q", "[::1]", "/é", "é.html", "\x7f", "p\tq",
    "HTTP://EXAMPLE.COM/", "http://example.com", "http://example.com/./a", "/a/b/c/", "a:b",
    "../p/./1.html?v=1#f", "/P/../p/1.html", "/..", "/../x", "a/b/..", "a/b/.", "./", "x?",
    "x#",
    "x?#f", "x#f?g", "x?q#", "x?q#f", "/a//../b", "a?b/../c", "a#b/./c", "../../a/../b/./",
    "http://example.com/a?x#y", "http://example.com?x", "//h/a/../b?x",
]

ALPHABET = "ab/.:?#;[]\\ %é~-_=&@\t"


def random_url(rng):
    if rng.random() < 0.5:
        url = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 12)))
    else:
        url = rng.choice(URLS) + "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 4)))
    if rng.random() < 0.2:
        url = rng.choice(["http://", "https://", "//", "/"]) + url
    return url


def outcome(join, base, url):
    """What a join gives: its URL, or the error it raises (urljoin refuses bad IPv6 brackets)."""
    try:
        return join(base, url)
    except ValueError as e:
        return "ValueError: %s" % e


class JoinerTest(unittest.TestCase):
    def assert_same(self, base, url):
        self.assertEqual(outcome(lambda b, u: Joiner(b)(u), base, url), outcome(urljoin, base, url),
                         "base %r, url %r" % (base, url))

    def test_every_listed_url_against_every_listed_base(self):
        for base in BASES:
            for url in URLS:
                self.assert_same(base, url)

    def test_random_urls_against_random_bases(self):
        rng = random.Random(20261203)
        for _ in range(40000):
            base = rng.choice(BASES)
            if rng.random() < 0.3:
                try:
                    base = urljoin("http://example.com/", random_url(rng))
                except ValueError:
                    pass
            self.assert_same(base, random_url(rng))

    def test_a_joiner_answers_many_urls_of_one_base_alike(self):
        join = Joiner("https://example.com/a/b/c.html")
        self.assertEqual(join("d.html"), "https://example.com/a/b/d.html")
        self.assertEqual(join("/d.html"), "https://example.com/d.html")
        self.assertEqual(join("https://x.example/y"), "https://x.example/y")
        self.assertEqual(join("../d.html"), "https://example.com/a/d.html")


if __name__ == "__main__":
    unittest.main()
