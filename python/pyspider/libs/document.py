"""Document: the PyQuery that response.doc is, with the paths a callback takes on every page made
cheap.

A callback asks the same few selectors of every page and walks their results one element at a
time (`doc("a[href]").items()`, `each.attr.href`), so PyQuery's own costs, not lxml's, are most
of what it pays: a constructor that parses its arguments for each element, an XPath compiled
again by each `element.xpath()` call, and a new class built at each `.attr` access. Document is a
PyQuery subclass (isinstance holds, plugins on PyQuery.fn apply) whose copies are made directly,
whose XPaths are compiled once, and whose `.attr` is one shared class; every answer is PyQuery's.
Anything it does not recognise goes to PyQuery unchanged.
"""
from lxml import etree
from pyquery.cssselectpatch import JQueryTranslator
from pyquery.pyquery import FlexibleElement, PyQuery, no_default


class CachingTranslator(JQueryTranslator):
    """PyQuery's CSS-to-XPath translator for HTML, remembering the XPath of each selector it
    translated (at most 1,024; then it starts over): cssselect's translation costs more than
    running the XPath."""

    def __init__(self):
        super().__init__(xhtml=False)
        self._xpaths = {}

    def css_to_xpath(self, css, prefix="descendant-or-self::"):
        key = (css, prefix)
        xpath = self._xpaths.get(key)
        if xpath is None:
            xpath = super().css_to_xpath(css, prefix)
            if len(self._xpaths) >= 1024:
                self._xpaths.clear()
            self._xpaths[key] = xpath
        return xpath


_TRANSLATOR = []


def translator():
    """The process's one CachingTranslator."""
    if not _TRANSLATOR:
        _TRANSLATOR.append(CachingTranslator())
    return _TRANSLATOR[0]


_COMPILED = {}  # XPath text -> etree.XPath, at most 1,024 (then it starts over)


def _compiled(xpath):
    """The XPath compiled, or None when it does not compile (element.xpath() then raises what
    PyQuery's callers see)."""
    found = _COMPILED.get(xpath, False)
    if found is False:
        try:
            found = etree.XPath(xpath)
        except etree.XPathSyntaxError:
            found = None
        if len(_COMPILED) >= 1024:
            _COMPILED.clear()
        _COMPILED[xpath] = found
    return found


class _FlexibleAccess:
    """What `pq.attr` gives: attr(name) in every spelling PyQuery's FlexibleElement allows
    (pq.attr.href, pq.attr["href"], pq.attr("href"), pq.attr.href = v, del pq.attr.href), as
    one class instead of a class built per access."""

    __slots__ = ("__flexible__", "__pyquery__")

    def __call__(prop, *args, **kwargs):
        return prop.__flexible__.pget(prop.__pyquery__, *args, **kwargs)

    def __getattr__(prop, name):
        return prop.__flexible__.pget(prop.__pyquery__, name)

    def __setattr__(prop, name, value):
        return prop.__flexible__.pget(prop.__pyquery__, name, value)

    __getitem__ = __getattr__
    __setitem__ = __setattr__

    def __delitem__(prop, name):
        if prop.__flexible__.pdel is not no_default:
            return prop.__flexible__.pdel(prop.__pyquery__, name)
        raise NotImplementedError()

    __delattr__ = __delitem__

    def __repr__(prop):
        return "<flexible_element %s>" % prop.__flexible__.pget.__name__


_new_object = object.__new__
_set_slot = object.__setattr__


class _Flexible(FlexibleElement):
    def __get__(self, instance, klass):
        access = _new_object(_FlexibleAccess)
        _set_slot(access, "__flexible__", self)
        _set_slot(access, "__pyquery__", instance)
        return access


_ATTR = PyQuery.__dict__["attr"]
_ATTR_NAMES = {"class_": "class", "for_": "for"}  # PyQuery's spellings of Python keywords


def attr(self, *args, **kwargs):
    """PyQuery's attr(); the read of one attribute (of the first element) done here."""
    if len(args) == 1 and not kwargs:
        name = args[0]
        if type(name) is str:
            if not self:
                return None
            return self[0].get(_ATTR_NAMES.get(name, name))
    return _ATTR.pget(self, *args, **kwargs)


class Document(PyQuery):
    attr = _Flexible(attr, _ATTR.pset, _ATTR.pdel)

    def _derived(self, elements, parent):
        """What PyQuery(elements, parent=parent) would be, made without parsing arguments."""
        new = list.__new__(type(self))
        list.__init__(new, elements)
        new._base_url = None
        new.parser = None
        new._parent = parent
        new._translator = translator() if parent is no_default else parent._translator
        new.namespaces = self.namespaces
        return new

    def items(self, selector=None):
        for elem in (self(selector) or []) if selector else self:
            if isinstance(elem, etree._Element):
                yield self._derived((elem,), self)
            else:
                yield self._copy(elem, parent=self)

    def _copy(self, *args, **kwargs):
        # PyQuery's __init__ for what PyQuery's own methods pass to _copy: elements, or a
        # selector and the elements to search, with at most a parent.
        if kwargs:
            if len(kwargs) != 1 or "parent" not in kwargs:
                return PyQuery._copy(self, *args, **kwargs)
            parent = kwargs["parent"]
        else:
            parent = no_default
        count = len(args)
        context = args[-1] if count else None
        if isinstance(context, list):
            elements = context
        elif isinstance(context, etree._Element):
            elements = (context,)
        else:
            return PyQuery._copy(self, *args, **kwargs)
        if count == 1:
            return self._derived(elements, parent)
        selector = args[0]
        # (PyQuery fetches a "selector" that is an http URL; so does Document, through it)
        if count != 2 or type(selector) is not str or \
                selector.startswith(("http://", "https://")):
            return PyQuery._copy(self, *args, **kwargs)
        new = self._derived((), parent)
        if elements:
            xpath = new._css_to_xpath(selector)
            compiled = _compiled(xpath) if new.namespaces is None else None
            if compiled is not None:
                for tag in elements:
                    list.extend(new, compiled(tag))
            else:
                for tag in elements:
                    list.extend(new, tag.xpath(xpath, namespaces=new.namespaces))
        return new
