// Python objects from JSON values and back, read and built through the C API.
#include "python_json.h"

#include <cmath>
#include <string>

namespace squall::detail {

using nlohmann::json;

namespace {

PyObject* text_object(const std::string& text) {
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
}

// A str's UTF-8; a lone surrogate (which UTF-8 cannot carry) becomes '?'.
std::string utf8(PyObject* text) {
  Py_ssize_t size = 0;
  if (const char* data = PyUnicode_AsUTF8AndSize(text, &size))
    return std::string(data, static_cast<size_t>(size));
  PyErr_Clear();
  std::string out;
  if (PyObject* bytes = PyUnicode_AsEncodedString(text, "utf-8", "replace")) {
    out.assign(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
    Py_DECREF(bytes);
  } else {
    PyErr_Clear();
  }
  return out;
}

// The text of the pending Python error (cleared).
std::string error_text() {
  PyObject *type = nullptr, *value = nullptr, *tb = nullptr;
  PyErr_Fetch(&type, &value, &tb);
  std::string text = "an error in str()";
  if (value) {
    if (PyObject* s = PyObject_Str(value)) {
      text = utf8(s);
      Py_DECREF(s);
    }
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return text;
}

// A Python object's text by a method of it (repr of an int or float, as json.dumps writes).
std::string text_of(PyObject* object, bool repr) {
  PyObject* s = repr ? PyObject_Repr(object) : PyObject_Str(object);
  if (!s) throw NotJsonError(error_text());
  std::string out = utf8(s);
  Py_DECREF(s);
  return out;
}

std::string float_key(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  PyObject* f = PyFloat_FromDouble(d);
  if (!f) throw NotJsonError(error_text());
  std::string out = text_of(f, true);
  Py_DECREF(f);
  return out;
}

// A dict key as json.dumps writes it.
std::string key_text(PyObject* key) {
  if (PyUnicode_Check(key)) return utf8(key);
  if (key == Py_True) return "true";
  if (key == Py_False) return "false";
  if (key == Py_None) return "null";
  if (PyFloat_Check(key)) return float_key(PyFloat_AS_DOUBLE(key));
  if (PyLong_Check(key)) {
    // int.__repr__, not the subclass's (an IntEnum key is written as its number).
    PyObject* plain = PyNumber_Long(key);
    if (!plain) throw NotJsonError(error_text());
    std::string out = text_of(plain, true);
    Py_DECREF(plain);
    return out;
  }
  throw NotJsonError(std::string("keys must be str, int, float, bool or None, not ") +
                     Py_TYPE(key)->tp_name);
}

json from_python(PyObject* o, int depth) {
  if (depth > kMaxPythonJsonDepth) throw NotJsonError("Circular reference detected");
  if (o == Py_None) return nullptr;
  if (o == Py_True) return true;
  if (o == Py_False) return false;
  if (PyUnicode_Check(o)) return utf8(o);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw NotJsonError(error_text());
      return static_cast<int64_t>(v);
    }
    if (overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (!PyErr_Occurred()) return static_cast<uint64_t>(u);
      PyErr_Clear();
    }
    double d = PyLong_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) throw NotJsonError(error_text());
    return d;
  }
  if (PyFloat_Check(o)) {
    double d = PyFloat_AS_DOUBLE(o);
    if (!std::isfinite(d)) throw NotJsonError("Out of range float values are not JSON compliant");
    return d;
  }
  if (PyDict_Check(o)) {
    json out = json::object();
    PyObject *key = nullptr, *value = nullptr;
    Py_ssize_t at = 0;
    while (PyDict_Next(o, &at, &key, &value)) {
      // Borrowed references into a dict that a str() in the value could change: hold them.
      Py_INCREF(key);
      Py_INCREF(value);
      try {
        out[key_text(key)] = from_python(value, depth + 1);
      } catch (...) {
        Py_DECREF(key);
        Py_DECREF(value);
        throw;
      }
      Py_DECREF(key);
      Py_DECREF(value);
    }
    return out;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    PyObject* items = PySequence_Fast(o, "a list or tuple");
    if (!items) throw NotJsonError(error_text());
    json out = json::array();
    try {
      Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
      for (Py_ssize_t i = 0; i < n; ++i)
        out.push_back(from_python(PySequence_Fast_GET_ITEM(items, i), depth + 1));
    } catch (...) {
      Py_DECREF(items);
      throw;
    }
    Py_DECREF(items);
    return out;
  }
  return text_of(o, false);
}

}  // namespace

PyObject* python_from_json(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      Py_RETURN_NONE;
    case json::value_t::boolean:
      return PyBool_FromLong(value.get<bool>() ? 1 : 0);
    case json::value_t::number_integer:
      return PyLong_FromLongLong(value.get<int64_t>());
    case json::value_t::number_unsigned:
      return PyLong_FromUnsignedLongLong(value.get<uint64_t>());
    case json::value_t::number_float:
      return PyFloat_FromDouble(value.get<double>());
    case json::value_t::string:
      return text_object(value.get_ref<const std::string&>());
    case json::value_t::array: {
      PyObject* list = PyList_New(static_cast<Py_ssize_t>(value.size()));
      if (!list) return nullptr;
      Py_ssize_t i = 0;
      for (const json& each : value) {
        PyObject* item = python_from_json(each);
        if (!item) {
          Py_DECREF(list);
          return nullptr;
        }
        PyList_SET_ITEM(list, i++, item);
      }
      return list;
    }
    case json::value_t::object: {
      PyObject* dict = PyDict_New();
      if (!dict) return nullptr;
      for (const auto& [name, each] : value.items()) {
        PyObject* key = text_object(name);
        PyObject* item = key ? python_from_json(each) : nullptr;
        bool set = item && PyDict_SetItem(dict, key, item) == 0;
        Py_XDECREF(key);
        Py_XDECREF(item);
        if (!set) {
          Py_DECREF(dict);
          return nullptr;
        }
      }
      return dict;
    }
    default:
      Py_RETURN_NONE;
  }
}

json json_from_python(PyObject* object) {
  return from_python(object, 0);
}

}  // namespace squall::detail
