"""Small helpers pyspider scripts import from pyspider.libs.utils."""
import hashlib

try:  # CPython's own MD5: for the short texts taskids are made of, several times faster
    from _md5 import md5 as _md5  # than OpenSSL's, which hashlib.md5 is
except ImportError:
    _md5 = hashlib.md5


def md5string(x):
    """The MD5 of a text (UTF-8) or bytes, 32 lower-case hex digits."""
    if isinstance(x, str):
        x = x.encode("utf-8")
    return _md5(x).hexdigest()


def text(value, encoding="utf-8"):
    """A text from bytes (decoded, bad bytes replaced) or anything else (str())."""
    if isinstance(value, bytes):
        return value.decode(encoding, "replace")
    return value if isinstance(value, str) else str(value)


def pretty_unicode(value):
    """A text from bytes or text, for printing."""
    return text(value)
