// libxml2's HTML tree built from squall's own tokenizer, for pages libxml2's parser is slow on:
// HtmlDocument's tree, and the tree lxml adopts for a project script's response.doc.
//
// htmlReadMemory spends most of a page's parse decoding its input a character at a time and
// checking each character; a crawl handler parses every page it selects from, so that cost is the
// larger part of a page's CPU. build_html_tree reads the page's bytes in runs instead and creates
// the same libxml2 nodes the parser's SAX handler would, so XPath, CSS and serialization work on
// the result unchanged.
//
// "The same" is libxml2's tree, not the HTML Standard's: its recovery rules are mirrored as
// libxml2 2.9 applies them in recovery mode (HTML_PARSE_RECOVER | NOERROR | NOWARNING | NONET):
// - which open element a start tag closes (a new <p> closes an open <p>, <li> an <li>, <td> a <td>
//   or an <a>...), and which elements an end tag may close (an end tag does not close an open
//   <div> or table part unless it ranks at least as high, or it is ignored);
// - the implied <html>, <head> and <body>, and the head's end when a body element starts;
// - the void elements of HTML 4 (<br>, <img>, <meta>...; not HTML5's <source> or <wbr>), "/>"
//   ending any element, <script> and <style> content as one CDATA node;
// - HTML 4's named character references (only with their ';'), numeric ones with or without it;
// - whitespace kept wherever an element is open, text nodes merged across ignored end tags;
// - the default HTML 4.0 Transitional doctype when the page has none.
// Where a page does something whose libxml2 outcome is not mirrored (text before <body> that
// would imply a paragraph, a second <body>, content after </html>, "<!" that is not a comment or
// doctype, bytes that are not valid UTF-8 or XML characters, a character reference libxml2
// rejects...), build_html_tree gives up and the caller parses with libxml2: the result is then
// libxml2's own. html_tree_builder_test.cpp compares both on a corpus.
#pragma once

#include <libxml/HTMLparser.h>

#include <string_view>

#include "squall/crawl/tree_arena.h"

namespace squall {

// The tree of `html` as htmlReadMemory would give it with `encoding` and `url` (the document's
// URL; null for none); null when the page needs libxml2's own parser. `encoding` is a UTF-8
// label, kept as the document's encoding, or null: then the page's first <meta> charset, if any,
// must be a UTF-8 label too and becomes the document's encoding. Any other encoding gives null. The
// caller frees the document with xmlFreeDoc. Node and attribute names are shared, through a
// dictionary, with the other documents this thread builds (bounded: a new dictionary is started
// past a few thousand names).
xmlDocPtr build_html_tree(std::string_view html, const char* encoding, const char* url);

// build_html_tree's tree with its nodes, attributes and their text made in `arena` instead of
// one libxml2 allocation each (the document itself, its doctype, strings and ID table stay
// libxml2's; names still come from the thread's dictionary). Its nodes are libxml2's types with
// every field libxml2's constructors set, so XPath, serialization and reading functions work on
// it as on the other; nothing may modify it (unlink, free or add nodes, set content or
// attributes), and xmlFreeDoc must never see it: free_arena_html_tree frees the document, after
// which `arena` may be cleared or destroyed. When it returns null, `arena` holds nothing of it.
xmlDocPtr build_html_tree(std::string_view html, const char* encoding, const char* url,
                          TreeArena& arena);

// Frees what libxml2 allocated of a document build_html_tree made in an arena, leaving its nodes
// to the arena.
void free_arena_html_tree(xmlDocPtr doc);

// True for the labels of UTF-8 (ASCII case-insensitive "utf-8" or "utf8"): the encodings
// build_html_tree reads.
bool is_utf8_label(std::string_view label);

}  // namespace squall
