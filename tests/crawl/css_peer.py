"""The peer of tests/crawl/css_test.cpp: what lxml selects through cssselect (and parsel).

Usage: css_peer.py REQUEST ANSWER. Reads the JSON request in the file REQUEST:
  {"documents": [file, ...], "selectors": [css, ...], "pseudo_selectors": [css, ...]}
parses each file with lxml's HTML parser (libxml2, as squall does) and answers, for each
document, each selector with one of:
  {"paths": [getpath() of each node matched, in document order]}   (cssselect's HTMLTranslator)
  {"values": [each string matched]}       (pseudo_selectors: parsel's translator, for ::text and
                                           ::attr(), which cssselect lacks)
  {"error": "what cssselect said"}
and writes the list of those lists (one per document) as JSON to the file ANSWER. Run by
Debian's /usr/bin/python3, which has python3-cssselect, python3-lxml and python3-parsel.
"""
import json
import sys

import lxml.etree
from cssselect import HTMLTranslator, SelectorError
from parsel.csstranslator import HTMLTranslator as ParselTranslator


def answer(root, translator, selector, pseudo):
    try:
        found = root.xpath(translator.css_to_xpath(selector))
    except (SelectorError, lxml.etree.XPathError) as e:
        # XPathError: cssselect translated it (a namespace prefix), but lxml cannot evaluate it.
        return {"error": "%s: %s" % (type(e).__name__, e)}
    if pseudo:
        return {"values": [str(v) for v in found]}
    tree = root.getroottree()
    return {"paths": [tree.getpath(node) for node in found]}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    css, parsel = HTMLTranslator(), ParselTranslator()
    out = []
    for path in request["documents"]:
        with open(path, "rb") as f:
            root = lxml.etree.fromstring(f.read(), lxml.etree.HTMLParser())
        answers = [answer(root, css, s, False) for s in request["selectors"]]
        answers += [answer(root, parsel, s, True) for s in request["pseudo_selectors"]]
        out.append(answers)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
