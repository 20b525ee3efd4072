// _squall_runtime.html_tree: a page's libxml2 tree from squall's tree builder, handed to lxml.
//
// A project's callback reads most pages through response.doc, and lxml's parse is the largest
// part of what that costs. html_tree(content, encoding) builds the same tree in a fraction of
// the time (include/squall/crawl/html_tree_builder.h; with <script> and <style> content as text,
// as lxml's HTML parsers make it) and gives it as the capsule
// lxml.etree.adopt_external_document takes, named "libxml2:xmlDoc", with the context
// "destructor:xmlFreeDoc" that lets lxml own the document without a copy (a capsule nobody
// adopted frees it). It gives None for a page the builder leaves to libxml2's parser (not UTF-8,
// or recovered in a way the builder does not mirror): the caller parses it with lxml then.
//
// Runs on the interpreter's thread with the GIL held, as lxml does; both link the one libxml2.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

namespace squall::detail {

// html_tree(content: bytes, encoding: str | None) -> capsule | None
PyObject* html_tree(PyObject* module, PyObject* args);

}  // namespace squall::detail
