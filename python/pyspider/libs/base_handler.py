"""BaseHandler and its decorators: the API a pyspider project script is written against.

    from pyspider.libs.base_handler import *

    class Handler(BaseHandler):
        crawl_config = {"headers": {"User-Agent": "my-bot"}}

        @every(minutes=24 * 60)
        def on_start(self):
            self.crawl("http://127.0.0.1:8000/", callback=self.index_page)

        @config(age=10 * 24 * 60 * 60)
        def index_page(self, response):
            for each in response.doc('a[href^="http"]').items():
                self.crawl(each.attr.href, callback=self.detail_page)

        def detail_page(self, response):
            return {"url": response.url, "title": response.doc("title").text()}

Written from pyspider's documentation (self.crawl, Response, @every, @config,
@catch_status_code_error, About-Projects): squall's engine schedules, fetches and stores; this
module turns what a callback asks for into task dicts and collects its output.
"""
import base64
import inspect
import json
import types
from urllib.parse import urlencode, urlsplit, urlunsplit

from pyspider.libs.response import HTTPError, Response  # noqa: F401 (scripts use them)
from pyspider.libs.url_join import Joiner
from pyspider.libs.utils import _md5, md5string

_SCHEDULE_FIELDS = ("priority", "retries", "exetime", "age", "itag", "force_update",
                    "auto_recrawl", "cancel")
_FETCH_FIELDS = ("method", "headers", "user_agent", "data", "connect_timeout", "timeout",
                 "allow_redirects", "max_redirects", "cookies", "proxy", "etag", "last_modified",
                 "save", "js_run_at", "js_script", "js_viewport_width", "js_viewport_height",
                 "load_images", "fetch_type", "use_gzip", "validate_cert", "robots_txt")
_PROCESS_FIELDS = ("callback", "process_time_limit")
_OTHER_FIELDS = ("params", "files", "taskid")
KEYWORDS = frozenset(_SCHEDULE_FIELDS + _FETCH_FIELDS + _PROCESS_FIELDS + _OTHER_FIELDS)
_GROUP = dict([(k, "schedule") for k in _SCHEDULE_FIELDS] + [(k, "fetch") for k in _FETCH_FIELDS]
              + [(k, "process") for k in _PROCESS_FIELDS])
_BODY_FIELDS = frozenset(("files", "data", "user_agent"))  # what _prepare_body reads


def every(minutes=None, seconds=None):
    """@every(minutes=, seconds=): the method runs at each multiple of the interval (Unix
    seconds) while `squall run` runs; bare @every is every minute."""
    if inspect.isfunction(minutes):
        return every(minutes=1)(minutes)
    interval = int((minutes or 0) * 60 + (seconds or 0))
    if interval <= 0:
        raise ValueError("@every needs an interval of at least one second")

    def wrapper(func):
        func.is_cronjob = True
        func.tick = interval
        return func
    return wrapper


def config(_config=None, **kwargs):
    """@config(**kw): self.crawl keywords a callback's tasks get unless the call gives them."""
    merged = dict(_config or {})
    merged.update(kwargs)
    unknown = sorted(set(merged) - KEYWORDS)
    if unknown:
        raise TypeError("config() got an unexpected keyword argument '%s'" % unknown[0])

    def wrapper(func):
        func._config = merged
        return func
    return wrapper


def catch_status_code_error(func):
    """The callback also gets responses that are not 2xx (and 304s) instead of its task
    failing."""
    func._catch_status_code_error = True
    return func


def not_send_status(func):
    """Kept for scripts that use it; squall always applies a task's outcome."""
    func._not_send_status = True
    return func


def _arg_count(function):
    """How many positional arguments `function` takes (None: any number)."""
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    count = 0
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


_CO_VARARGS = inspect.CO_VARARGS
_arg_counts = {}  # function -> _arg_count(function), for the functions run_func was given


def _plain_arg_count(function):
    """_arg_count of a plain function or of a method bound to one, from its code object alone
    (what inspect.signature works out, at a fraction of its cost); False for anything else (a
    wrapper that names what it wraps, a partial, a callable object)."""
    bound = inspect.ismethod(function)
    func = function.__func__ if bound else function
    if not inspect.isfunction(func) or hasattr(func, "__wrapped__") or \
            hasattr(func, "__signature__"):
        return False
    code = func.__code__
    if code.co_flags & _CO_VARARGS:
        return None
    return code.co_argcount - (1 if bound else 0)


def run_func(function, *arguments):
    """Calls `function` with as many of `arguments` as it takes (pyspider's _run_func)."""
    count = _plain_arg_count(function)
    if count is False:
        count = _arg_counts.get(function, False)
        if count is False:
            count = _arg_count(function)
            if len(_arg_counts) >= 1024:
                _arg_counts.clear()
            _arg_counts[function] = count
    return function(*(arguments if count is None else arguments[:count]))


_SCALARS = frozenset((str, int, float, bool, type(None)))


def _is_plain(value, depth=3):
    """True when json.dumps(value) cannot fail: dicts with text keys, lists, text, numbers,
    True, False and None, nested at most `depth` deep (the common case, checked at a fraction
    of a dump's cost); False means a dump has to tell."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if depth == 0:
        return False
    if kind is dict:
        for key, inner in value.items():
            if type(key) is not str or \
                    (type(inner) not in _SCALARS and not _is_plain(inner, depth - 1)):
                return False
        return True
    if kind is list:
        for inner in value:
            if type(inner) not in _SCALARS and not _is_plain(inner, depth - 1):
                return False
        return True
    return False


def _config_of(callback):
    """The @config keywords of a callback (None for none): getattr(callback, "_config"), without
    the AttributeError a callback without them would cost."""
    kind = type(callback)
    if kind is types.MethodType:
        callback = callback.__func__
        kind = type(callback)
    if kind is types.FunctionType:
        return callback.__dict__.get("_config")
    return getattr(callback, "_config", None)


def _add_params(url, params):
    if not params:
        return url
    query = urlencode(params, doseq=True) if not isinstance(params, str) else params
    scheme, netloc, path, old, fragment = urlsplit(url)
    return urlunsplit((scheme, netloc, path, old + "&" + query if old else query, fragment))


def _encode_multipart(data, files):
    import uuid
    boundary = uuid.uuid4().hex
    parts = []
    for name, value in (data or {}).items():
        if not isinstance(value, (bytes, bytearray)):
            value = str(value).encode("utf-8")
        parts.append(('--%s\r\nContent-Disposition: form-data; name="%s"\r\n\r\n'
                      % (boundary, name)).encode("utf-8") + bytes(value) + b"\r\n")
    for name, value in (files or {}).items():
        filename, content = (value if isinstance(value, (tuple, list)) else (name, value))[:2]
        if isinstance(content, str):
            content = content.encode("utf-8")
        content = bytes(content)
        parts.append(('--%s\r\nContent-Disposition: form-data; name="%s"; filename="%s"\r\n'
                      'Content-Type: application/octet-stream\r\n\r\n'
                      % (boundary, name, filename)).encode("utf-8") + content + b"\r\n")
    parts.append(("--%s--\r\n" % boundary).encode("utf-8"))
    return "multipart/form-data; boundary=" + boundary, b"".join(parts)


# The most follows and messages a callback holds before handing them on (squall's kFollowBatch).
FOLLOW_BATCH = 1000


class BaseHandler:
    """A project: on_start, callbacks that call self.crawl and return results, and the hooks
    on_result, on_message and on_finished. One instance runs every task of the project."""

    crawl_config = {}
    retry_delay = {}
    project_name = None
    __env__ = {}

    def __init__(self):
        self.task = None
        self.response = None
        self._joiner = None
        self._follows = []
        self._follow_keys = set()
        self._messages = []
        self._results = []
        self._hand_on = None

    # --- what the engine asks ----------------------------------------------------------------
    def is_debugger(self):
        return bool(self.__env__.get("debugger"))

    def get_taskid(self, task):
        """The taskid of a new task: the MD5 of its URL. Override to tell apart tasks of one
        URL (a POST's data, say)."""
        return md5string(task["url"])

    # --- hooks -------------------------------------------------------------------------------
    def on_start(self):
        pass

    def on_result(self, result):
        """Receives what each callback returned; this one stores it (by taskid)."""
        if result is None:
            return
        if self.task is None:
            raise RuntimeError("on_result can't run outside a callback")
        self._results.append(result)

    def on_message(self, project, message):
        """Receives send_message's messages from other projects."""

    def on_finished(self, response, task):
        """Runs when the project has no task left to do."""

    # --- what a callback asks ----------------------------------------------------------------
    def crawl(self, url, **kwargs):
        """Asks for `url` (or each URL of a list) to be fetched and handed to `callback`, with
        pyspider's keywords; returns the task dict (a list for a list). An unknown keyword
        raises TypeError naming it."""
        if type(url) is str:
            return self._crawl(url, kwargs)
        if isinstance(url, (list, tuple)):
            return [self._crawl(u, dict(kwargs)) for u in url]
        return self._crawl(url, kwargs)

    def send_message(self, project, msg, url="data:,on_message"):
        """Sends `msg` to `project`'s on_message."""
        json.dumps(msg)
        self._messages.append([project, msg])
        self._hand_on_when_full()

    def _crawl(self, url, kwargs):
        """crawl() of one URL; `kwargs` is its own (changed in place)."""
        if not KEYWORDS.issuperset(kwargs):
            unknown = [k for k in kwargs if k not in KEYWORDS]
            raise TypeError("crawl() got an unexpected keyword argument '%s'" % unknown[0])
        if not isinstance(url, str):
            raise TypeError("crawl() needs a URL string, not %r" % (url,))
        url = url.strip()
        if len(url) >= 1024:
            raise ValueError("crawl(): a URL of 1024 characters or more: %s..." % url[:60])

        callback = kwargs.get("callback")
        if callback:
            if isinstance(callback, str):
                func = getattr(self, callback, None)
            elif callable(callback):
                func = callback
                kwargs["callback"] = callback.__name__
            else:
                func = None
            if func is None or not callable(func):
                raise NotImplementedError("self.%s() not implemented!" % callback)
            defaults = _config_of(func)
            if defaults:
                for key, value in defaults.items():
                    if isinstance(value, dict) and isinstance(kwargs.get(key), dict):
                        merged = dict(value)
                        merged.update(kwargs[key])
                        kwargs[key] = merged
                    else:
                        kwargs.setdefault(key, value)

        crawl_config = self.crawl_config
        if crawl_config:
            if not KEYWORDS.issuperset(crawl_config):
                unknown = [k for k in crawl_config if k not in KEYWORDS]
                raise TypeError("crawl_config has an unexpected keyword '%s'" % unknown[0])
            for key, value in crawl_config.items():
                if key == "headers" and isinstance(kwargs.get("headers"), dict):
                    merged = dict(value)
                    merged.update(kwargs["headers"])
                    kwargs["headers"] = merged
                else:
                    kwargs.setdefault(key, value)

        response = self.response
        if response is not None and response.url and not url.startswith("data:"):
            url = self._join(url)
        params = kwargs.pop("params", None)
        if params:
            url = _add_params(url, params)

        binary = None
        if not _BODY_FIELDS.isdisjoint(kwargs):
            binary = self._prepare_body(kwargs)

        taskid = kwargs.pop("taskid", None)
        schedule, fetch, process = {}, {}, {}
        task = {"project": self.project_name, "url": url, "schedule": schedule, "fetch": fetch,
                "process": process}
        groups = {"schedule": schedule, "fetch": fetch, "process": process}
        # (most tasks hold scalars only, which a look at the types tells)
        plain = type(self.project_name) in _SCALARS
        for key, value in kwargs.items():
            groups[_GROUP[key]][key] = value
            if plain and type(value) not in _SCALARS:
                plain = False
        if binary is not None:
            fetch["data_base64"] = binary
        if taskid is None:
            if type(self).get_taskid is _BASE_GET_TASKID:
                taskid = _md5(url.encode("utf-8")).hexdigest()
            else:
                taskid = self.get_taskid(task)
        task["taskid"] = taskid
        if not (plain and type(taskid) in _SCALARS) and not _is_plain(task):
            try:
                json.dumps(task)
            except (TypeError, ValueError) as e:
                raise TypeError("crawl(%s): a keyword's value is not JSON: %s" % (url, e)) \
                    from None
        key = task["taskid"]
        if key not in self._follow_keys:
            self._follow_keys.add(key)
            self._follows.append(task)
            if self._hand_on is not None:
                self._hand_on_when_full()
        return task

    @staticmethod
    def _prepare_body(kwargs):
        """Turns files, data and user_agent of a crawl's keywords into the request's body and
        headers (in place); the body as base64 when it is bytes that are not UTF-8, else
        None."""
        if kwargs.get("files"):
            data = kwargs.pop("data", None) or {}
            if not isinstance(data, dict):
                raise TypeError("crawl(): data must be a dict when files are given")
            content_type, body = _encode_multipart(data, kwargs.pop("files"))
            kwargs["headers"] = dict(kwargs.get("headers") or {})
            kwargs["headers"]["Content-Type"] = content_type
            kwargs["data"] = body
        else:
            kwargs.pop("files", None)
        if kwargs.get("data") is not None and isinstance(kwargs["data"], (dict, list, tuple)):
            kwargs["data"] = urlencode(kwargs["data"], doseq=True)
        if kwargs.get("data"):
            kwargs.setdefault("method", "POST")
        binary = None
        if isinstance(kwargs.get("data"), (bytes, bytearray, memoryview)):
            # A task is JSON, whose strings are text: bytes that are not UTF-8 travel as base64,
            # which the fetcher decodes, so the server gets them unchanged.
            body = bytes(kwargs.pop("data"))
            try:
                kwargs["data"] = body.decode("utf-8")
            except UnicodeDecodeError:
                binary = base64.b64encode(body).decode("ascii")
        if kwargs.get("user_agent"):
            kwargs["headers"] = dict(kwargs.get("headers") or {})
            kwargs["headers"]["User-Agent"] = kwargs["user_agent"]
        return binary

    def _hand_on_when_full(self):
        """Hands the follows and messages asked for so far to the engine once there are
        FOLLOW_BATCH of them, when the engine takes them while the callback runs: a callback
        that asks for a great many holds a batch at a time. A repeated taskid is dropped within
        a batch; the scheduler drops one repeated across batches."""
        if self._hand_on is None or len(self._follows) + len(self._messages) < FOLLOW_BATCH:
            return
        follows, messages = self._follows, self._messages
        self._follows, self._messages, self._follow_keys = [], [], set()
        self._hand_on(follows, messages)

    def _join(self, url):
        """url made absolute against the response's URL, as urljoin does."""
        if self._joiner is None or self._joiner.base != self.response.url:
            self._joiner = Joiner(self.response.url)
        return self._joiner(url)

    # --- the run of one task (squall_runtime calls it) ---------------------------------------
    def _reset(self, task, response, hand_on=None):
        self._hand_on = hand_on
        self.task = task
        self.response = response
        self._joiner = None
        self._follows = []
        self._follow_keys = set()
        self._messages = []
        self._results = []

    def _run_cron_jobs(self, response, task):
        save = response.save if isinstance(response.save, dict) else {}
        tick = save.get("tick")
        if not isinstance(tick, int):
            return None
        last = save.get("last_tick", tick - 1)
        failures = []
        for name, interval in type(self)._cron_job_names():
            if tick // interval <= last // interval:
                continue
            try:
                run_func(getattr(self, name), response, task)
            except Exception as e:  # one failing job does not keep the others from running
                failures.append("%s: %s: %s" % (name, type(e).__name__, e))
        if failures:
            raise RuntimeError("; ".join(failures))
        return None

    @classmethod
    def _cron_job_names(cls):
        jobs = []
        for name in dir(cls):
            func = getattr(cls, name, None)
            if callable(func) and getattr(func, "is_cronjob", False):
                jobs.append((name, func.tick))
        return jobs

    def _run_task(self, task, response):
        callback = (task.get("process") or {}).get("callback") or "__call__"
        if callback == "_on_message":
            save = response.save or {}
            return run_func(self.on_message, save.get("from"), save.get("message"))
        if callback == "_on_cronjob":
            return self._run_cron_jobs(response, task)
        if callback == "on_finished":
            return run_func(self.on_finished, response, task)
        function = getattr(self, callback, None)
        if function is None or not callable(function):
            raise NotImplementedError("self.%s() not implemented!" % callback)
        catches = getattr(function, "_catch_status_code_error", False)
        if response.status_code == 304 and not catches:
            return None
        if not catches:
            response.raise_for_status()
        return run_func(function, response, task)


# A Handler that keeps BaseHandler's get_taskid has its taskids made in _crawl directly.
_BASE_GET_TASKID = BaseHandler.get_taskid
