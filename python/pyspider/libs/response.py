"""Response: what a callback receives, pyspider's accessors over the engine's fetch result."""
import json as _json
import re
from collections.abc import MutableMapping

from pyspider.libs.url_join import Joiner

try:
    from _squall_runtime import html_tree as _html_tree
except ImportError:  # outside squall (the package's own tests under python3)
    _html_tree = None


class HTTPError(Exception):
    """A response that is not a success (raise_for_status); `response` is the Response."""

    def __init__(self, message, response=None):
        super().__init__(message)
        self.response = response


class CaseInsensitiveDict(MutableMapping):
    """Header fields by name in any case; the spelling first seen is kept for iteration."""

    def __init__(self, data=None):
        self._store = {}
        if data:
            self.update(data)

    def __setitem__(self, key, value):
        self._store[key.lower()] = (key, value)

    def __getitem__(self, key):
        return self._store[key.lower()][1]

    def __delitem__(self, key):
        del self._store[key.lower()]

    def __iter__(self):
        return (name for name, _ in self._store.values())

    def __len__(self):
        return len(self._store)

    def copy(self):
        return CaseInsensitiveDict(self.items())

    def __repr__(self):
        return repr(dict(self.items()))


_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([-\w.:]+)""", re.I)
_CONTENT_TYPE_CHARSET = re.compile(r"""charset\s*=\s*["']?([-\w.:]+)""", re.I)


def _known(encoding):
    import codecs
    try:
        return codecs.lookup(encoding).name
    except (LookupError, TypeError):
        return None


_LINK_ATTRIBUTES = {"a": "href", "link": "href", "script": "src", "img": "src", "iframe": "src"}


def _make_links_absolute(root, base_url):
    """PyQuery's make_links_absolute (the same elements, attributes and skipped schemes) in one
    pass over the tree, each distinct value joined once: several times faster on a page of
    thousands of links, which is what every response.doc pays for. Unlike pyspider, a
    <base href> is honoured, as browsers do."""
    from lxml.etree import _Element
    from urllib.parse import urljoin
    for base in root.iter("base"):
        if base.get("href"):
            base_url = urljoin(base_url, base.get("href").strip())
            break
    join = Joiner(base_url)
    joined = {}
    attributes = _LINK_ATTRIBUTES
    set_attribute = _Element.set  # (HtmlElement.set only adds a default for the value)
    for element in root.iter(*attributes):
        attribute = attributes[element.tag]
        value = element.get(attribute)
        if value is None or value.startswith(("tel:", "callto:", "sms:")):
            continue
        absolute = joined.get(value)
        if absolute is None:
            absolute = joined[value] = join(value.strip())
        if absolute != value:
            set_attribute(element, attribute, absolute)


_PARSERS = {}  # encoding (None for text) -> the lxml.html parser of _html_parser


def _html_parser(encoding):
    """An lxml.html parser for `encoding`, made once: the same elements as lxml.html's own
    (HtmlElement, FormElement, ...), but found by tag in lxml's C lookup instead of by
    lxml.html's lookup, a Python call for each element a document hands out. The tags that
    lxml.html knows are looked up there; any other element, comment or processing
    instruction still goes to lxml.html's lookup."""
    parser = _PARSERS.get(encoding)
    if parser is None:
        import lxml.etree
        import lxml.html
        from lxml.html import defs
        html_lookup = lxml.html.HtmlElementClassLookup()
        lookup = lxml.etree.ElementNamespaceClassLookup(fallback=html_lookup)
        by_tag = lookup.get_namespace(None)
        for tag in defs.tags:
            by_tag[tag] = html_lookup.lookup("element", None, None, tag)
        parser = lxml.html.HTMLParser(encoding=encoding)
        parser.set_element_class_lookup(lookup)
        if len(_PARSERS) >= 64:
            _PARSERS.clear()
        _PARSERS[encoding] = parser
    return parser


# lxml.html.fromstring's test of a whole document (else it takes the page as a fragment).
_WHOLE_DOCUMENT = re.compile(rb"^\s*<(?:html|!doctype)", re.I).match


def _built_root(content, encoding):
    """The root element lxml.html.fromstring(content, parser=_html_parser(encoding)) gives,
    from the tree squall's builder makes of a whole UTF-8 document in a fraction of lxml's
    parse; None when lxml is to parse it (outside squall, a fragment, which lxml.html wraps
    its own way, or a page the builder leaves to libxml2's parser)."""
    if _html_tree is None or not _WHOLE_DOCUMENT(content):
        return None
    import lxml.etree
    capsule = _html_tree(content, encoding)
    if capsule is None:
        return None
    return lxml.etree.adopt_external_document(capsule, _html_parser(encoding)).getroot()


class Response:
    """A fetch result as pyspider's Response shows it.

    `text` decodes `content` by `encoding`: the charset the Content-Type header declares, else
    the page's <meta charset> (or http-equiv) in its first 4 KiB, else UTF-8 when the bytes are
    UTF-8, else windows-1252 (what browsers fall back to). Setting `encoding` re-decodes. `doc`
    (a PyQuery object with its links made absolute against `url`, or the page's <base href>)
    and `etree` (lxml.html) are built on first use only.
    """

    def __init__(self, status_code=599, url="", orig_url="", headers=None, cookies=None,
                 content=b"", encoding=None, time=0, save=None, error=None,
                 js_script_result=None):
        self.status_code = status_code
        self.url = url
        self.orig_url = orig_url or url
        self._fields = headers
        self.cookies = dict(cookies or {})
        self.content = content if isinstance(content, bytes) else str(content).encode("utf-8")
        self._declared = encoding or None
        self._encoding = None
        self.time = time
        self.save = save
        self.error = error or None
        self.js_script_result = js_script_result

    def __repr__(self):
        return "<Response [%d]>" % self.status_code

    @property
    def headers(self):
        """The header fields, by name in any case (a field sent twice: its values joined by
        ", "); built on first use."""
        if "_headers" not in self.__dict__:
            fields = self._fields
            headers = CaseInsensitiveDict()
            for name, value in (fields.items() if isinstance(fields, dict) else fields or []):
                if name in headers:
                    headers[name] = headers[name] + ", " + value
                else:
                    headers[name] = value
            self._headers = headers
        return self._headers

    @headers.setter
    def headers(self, value):
        self._headers = value

    def __bool__(self):
        return self.ok

    # --- text --------------------------------------------------------------------------------
    @property
    def encoding(self):
        if self._encoding is None:
            self._encoding = self._guess_encoding()
        return self._encoding

    @encoding.setter
    def encoding(self, value):
        self._encoding = value
        for cached in ("_text", "_doc", "_etree", "_json"):
            self.__dict__.pop(cached, None)

    def _guess_encoding(self):
        for candidate in (self._declared, self._header_charset(), self._meta_charset()):
            name = candidate and _known(candidate)
            if name:
                return name
        try:
            self.content.decode("utf-8")
            return "utf-8"
        except UnicodeDecodeError:
            return "windows-1252"

    def _header_charset(self):
        match = _CONTENT_TYPE_CHARSET.search(self.headers.get("Content-Type", ""))
        return match.group(1) if match else None

    def _meta_charset(self):
        match = _META_CHARSET.search(self.content[:4096])
        return match.group(1).decode("ascii", "replace") if match else None

    @property
    def text(self):
        if "_text" not in self.__dict__:
            try:
                self._text = self.content.decode(self.encoding, "replace")
            except LookupError:
                self._text = self.content.decode("utf-8", "replace")
        return self._text

    @property
    def json(self):
        if "_json" not in self.__dict__:
            self._json = _json.loads(self.text)
        return self._json

    # --- documents ---------------------------------------------------------------------------
    @property
    def etree(self):
        if "_etree" not in self.__dict__:
            import lxml.etree
            import lxml.html
            root = _built_root(self.content, self.encoding)
            if root is None:
                try:
                    root = lxml.html.fromstring(self.content, parser=_html_parser(self.encoding))
                except LookupError:
                    root = lxml.html.fromstring(self.text, parser=_html_parser(None))
                if isinstance(root, lxml.etree._ElementTree):
                    root = root.getroot()
            self._etree = root
        return self._etree

    @property
    def doc(self):
        if "_doc" not in self.__dict__:
            from pyspider.libs.document import Document, translator
            _make_links_absolute(self.etree, self.url)
            self._doc = Document(self.etree, css_translator=translator())
        return self._doc

    # --- status ------------------------------------------------------------------------------
    @property
    def ok(self):
        try:
            self.raise_for_status()
        except HTTPError:
            return False
        return True

    def isok(self):
        return self.ok

    def raise_for_status(self, allow_redirects=True):
        """Raises HTTPError for a failed fetch or a status of 300-599 (3xx only when
        allow_redirects is False); a 304 (unchanged) is no error."""
        code = self.status_code
        if code == 304:
            return
        if self.error:
            message = self.error
        elif 300 <= code < 400 and not allow_redirects:
            message = "%d Redirection" % code
        elif 400 <= code < 500:
            message = "%d Client Error" % code
        elif 500 <= code < 600:
            message = "%d Server Error" % code
        else:
            return
        raise HTTPError("%s for url: %s" % (message, self.url), response=self)
