"""Small helpers pyspider scripts import from pyspider.libs.utils."""
import hashlib


def md5string(x):
    """The MD5 of a text (UTF-8) or bytes, 32 lower-case hex digits."""
    if isinstance(x, str):
        x = x.encode("utf-8")
    return hashlib.md5(x).hexdigest()


def text(value, encoding="utf-8"):
    """A text from bytes (decoded, bad bytes replaced) or anything else (str())."""
    if isinstance(value, bytes):
        return value.decode(encoding, "replace")
    return value if isinstance(value, str) else str(value)


def pretty_unicode(value):
    """A text from bytes or text, for printing."""
    return text(value)
