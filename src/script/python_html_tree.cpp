// html_tree: build_html_tree's document in the capsule lxml adopts.
#include "python_html_tree.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>

#include <new>
#include <string_view>

#include "squall/crawl/html_tree_builder.h"

namespace squall::detail {

namespace {

constexpr const char* kCapsuleName = "libxml2:xmlDoc";
// lxml.etree.adopt_external_document takes the document over, unchanged, when the capsule says
// how it is freed; it then clears the capsule's destructor.
constexpr const char* kOwnershipContext = "destructor:xmlFreeDoc";

// lxml's HTML parsers strip CDATA (their default, which response.doc's parser keeps): the
// content of <script> and <style>, a CDATA node in libxml2's own tree and the builder's, is a
// text node in lxml's.
void cdata_to_text(xmlDocPtr doc) {
  xmlNodePtr node = doc->children;
  while (node != nullptr) {
    if (node->type == XML_CDATA_SECTION_NODE) {
      node->type = XML_TEXT_NODE;
      node->name = xmlStringText;
    }
    if (node->children != nullptr && node->type == XML_ELEMENT_NODE) {
      node = node->children;
      continue;
    }
    while (node != nullptr && node->next == nullptr) {
      node = node->parent;
      if (node == reinterpret_cast<xmlNodePtr>(doc)) node = nullptr;
    }
    if (node != nullptr) node = node->next;
  }
}

void free_unadopted(PyObject* capsule) {
  if (void* doc = PyCapsule_GetPointer(capsule, kCapsuleName))
    xmlFreeDoc(static_cast<xmlDocPtr>(doc));
  else
    PyErr_Clear();
}

}  // namespace

PyObject* html_tree(PyObject*, PyObject* args) {
  Py_buffer content;
  const char* encoding = nullptr;
  if (!PyArg_ParseTuple(args, "y*z", &content, &encoding)) return nullptr;
  xmlDocPtr doc = nullptr;
  try {
    xmlInitParser();
    doc = build_html_tree(
        std::string_view(static_cast<const char*>(content.buf), static_cast<size_t>(content.len)),
        encoding, nullptr);
  } catch (const std::bad_alloc&) {
    PyBuffer_Release(&content);
    return PyErr_NoMemory();
  }
  PyBuffer_Release(&content);
  if (doc == nullptr) Py_RETURN_NONE;
  cdata_to_text(doc);
  PyObject* capsule = PyCapsule_New(doc, kCapsuleName, free_unadopted);
  if (capsule == nullptr) {
    xmlFreeDoc(doc);
    return nullptr;
  }
  if (PyCapsule_SetContext(capsule, const_cast<char*>(kOwnershipContext)) != 0) {
    Py_DECREF(capsule);
    return nullptr;
  }
  return capsule;
}

}  // namespace squall::detail
