"""pyspider.libs.document.Document answers as PyQuery does, and response.doc is one."""
import unittest

import lxml.html
from pyquery import PyQuery

from pyspider.libs.document import Document, translator
from pyspider.libs.response import Response

PAGE = b"""<!DOCTYPE html><html><head><meta charset=utf-8><title>T  i t l e</title>
<link rel=stylesheet href="/s.css"></head><body>
<h1 id=top>Head <b>one</b></h1>
<p class="x y">first <a class=x href="/a.html#f">A</a> and <a href='b.html?q=1'>B</a></p>
<p><a href="../c/./d.html">C</a><a name=anchor>no href</a><img src=i.png></p>
<form action=/post><input name=q value=v><select name=s><option value=1 selected>1</option>
</select><textarea name=t>text</textarea><label for=q>L</label></form>
<!-- a comment --><ul><li>1</li><li>2</li><li class=last>3</li></ul>
</body></html>"""

SELECTORS = ["a", "a[href]", "a.x", "p a", "title", "h1", "meta[charset]", "li:last", "li:first",
             "li:eq(1)", "p:first", "input[name=q]", "form", "ul > li", "a, img", "nothing",
             "li.last", "*"]


def documents():
    root = lxml.html.fromstring(PAGE)
    return Document(root, css_translator=translator()), PyQuery(lxml.html.fromstring(PAGE))


def shape(value):
    """What a PyQuery answer shows: its elements (by identity in their tree), else itself."""
    if isinstance(value, PyQuery):
        return ("pq", [lxml.html.tostring(e) if hasattr(e, "tag") else e for e in value])
    return value


class DocumentTest(unittest.TestCase):
    def assert_same(self, action):
        fast, slow = documents()
        self.assertEqual(shape(action(fast)), shape(action(slow)))
        self.assertEqual(lxml.html.tostring(fast[0]), lxml.html.tostring(slow[0]))

    def test_selectors_find_the_same_elements(self):
        for selector in SELECTORS:
            self.assert_same(lambda d: d(selector))
            self.assert_same(lambda d: d("body")(selector))
            self.assert_same(lambda d: d("p").find(selector))
            self.assert_same(lambda d: d("*").filter(selector))
            self.assert_same(lambda d: [shape(e) for e in d.items(selector)])

    def test_items_attr_text_and_traversal_answer_alike(self):
        for action in [
                lambda d: [e.attr.href for e in d("a").items()],
                lambda d: [e.attr["href"] for e in d("a").items()],
                lambda d: [e.attr("class") for e in d("a").items()],
                lambda d: d("a").attr("class_"), lambda d: d("nothing").attr("href"),
                lambda d: d("title").text(), lambda d: d("h1").text(), lambda d: d("p").text(),
                lambda d: d("a").eq(0).text(), lambda d: d("a").eq(9), lambda d: len(d("a")),
                lambda d: d("li").eq(-1).text(), lambda d: d("p").children(),
                lambda d: d("a").parent(), lambda d: d("a").parents("p"), lambda d: d("li").next(),
                lambda d: d("li").siblings(), lambda d: d("a").closest("p"),
                lambda d: d("a").not_(".x"), lambda d: d("a").is_(".x"), lambda d: d("p").html(),
                lambda d: d("input").val(), lambda d: d("select").val(),
                lambda d: d("textarea").val(),
                lambda d: d("a") + d("img"), lambda d: d("h1").contents(), lambda d: d("ul").end(),
                lambda d: d("a").map(lambda i, e: PyQuery(e).attr("href")),
                lambda d: d("p").eq(0).items("a").__next__().text(), lambda d: d(""),
                lambda d: d("<b>new</b>"), lambda d: d("a").attr.href, lambda d: repr(d("a").attr),
        ]:
            self.assert_same(action)

    def test_writes_through_attr_change_the_tree_alike(self):
        def write(d):
            each = d("a").eq(0)
            each.attr.href = "/set"
            each.attr["title"] = "t"
            del each.attr.class_
            d("img").attr("alt", "x")
            d("a").eq(1).attr(rel="nofollow")
            return d("a").attr("href")
        self.assert_same(write)

    def test_derived_objects_are_documents_with_the_same_state(self):
        fast, slow = documents()
        pairs = ((fast("a"), slow("a")), (next(fast("a").items()), next(slow("a").items())),
                 (fast("a").eq(0), slow("a").eq(0)))
        for f, s in pairs:
            self.assertIsInstance(f, Document)
            self.assertEqual(f._parent is not None, s._parent is not None)
            self.assertEqual((f.parser, f._base_url, f.namespaces),
                             (s.parser, s._base_url, s.namespaces))

    def test_response_doc_is_a_document_with_absolute_links(self):
        r = Response(200, "http://example.com/x/y.html", content=PAGE,
                     headers=[["Content-Type", "text/html"]])
        doc = r.doc
        self.assertIsInstance(doc, Document)
        self.assertEqual([e.attr.href for e in doc("a[href]").items()],
                         ["http://example.com/a.html#f", "http://example.com/x/b.html?q=1",
                          "http://example.com/c/d.html"])
        self.assertEqual(doc("img").attr("src"), "http://example.com/x/i.png")
        self.assertEqual(doc("link").attr("href"), "http://example.com/s.css")
        self.assertIs(r.doc, doc)

    def test_the_parser_hands_out_lxml_html_classes(self):
        r = Response(200, "http://example.com/", content=PAGE)
        ours = [(type(e), e.tag) for e in r.etree.iter()]
        theirs = [(type(e), e.tag) for e in lxml.html.fromstring(PAGE).iter()]
        self.assertEqual(ours, theirs)


if __name__ == "__main__":
    unittest.main()
