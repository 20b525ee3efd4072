// Python objects from JSON values and back, without JSON text between them: how the engine's
// tasks reach a script's callback and how its follows, messages and result come back.
//
// Both functions run on the interpreter's thread with the GIL held.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace squall::detail {

// What json.dumps refuses in a value (a key that is not text, a number or None; a float that is
// not finite; a value nested past kMaxPythonJsonDepth, which is how a cycle shows); the message
// reads as json.dumps's.
class NotJsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

constexpr int kMaxPythonJsonDepth = 512;

// A new reference to `value` as json.loads gives it (objects as dicts, arrays as lists; text
// that is not UTF-8 has its bad bytes replaced), or nullptr with a Python error set.
PyObject* python_from_json(const nlohmann::json& value);

// `object` as json.dumps(object, default=str) writes it: dicts (and their subclasses) are
// objects whose int, float, bool and None keys are written as json.dumps writes them; lists and
// tuples are arrays; bool, int, float, str and None are themselves; anything else is its str().
// An int past 64 bits becomes a double. Throws NotJsonError for what json.dumps refuses, and
// NotJsonError with the Python error's text when a str() raises (the Python error is cleared).
nlohmann::json json_from_python(PyObject* object);

}  // namespace squall::detail
