"""The interpreter's side of squall's Python runtime: loads a project script, runs its tasks.

squall's PythonRuntime (include/squall/script/python_runtime.h) calls, on its Python thread:
    runner, error = start(project, path, debugger)    # error: the load failure's text
    runner.info()                                     # JSON: retry_delay, cron jobs, crawl_config
    runner.process(task, fetch, content, streaming)   # a dict: the callback's output
Nothing here touches the engine: it gets a task dict and a fetch result, and gives back the
follows, messages, result, logs and exception of the callback, as pyspider's processor does.
"""
import json
import logging
import os
import signal
import sys
import time
import traceback
import types

from pyspider.libs import base_handler, response as response_module
from pyspider.libs.base_handler import BaseHandler, run_func
from pyspider.libs.response import Response

MAX_LOG_BYTES = 64 * 1024
_OWN_FILES = tuple(os.path.abspath(m.__file__) for m in (sys.modules[__name__], base_handler,
                                                          response_module))


class ProcessTimeLimit(BaseException):
    """Raised inside a callback that ran past its process_time_limit. A BaseException, so a
    script's `except Exception` does not swallow it."""


class _Logs:
    """What print and logging wrote during one task, at most MAX_LOG_BYTES (then a marker)."""

    def __init__(self):
        self.parts = []
        self.size = 0
        self.truncated = False

    def add(self, text):
        if self.size + len(text) > MAX_LOG_BYTES:
            if not self.truncated:
                self.parts.append("\n[logs truncated]\n")
                self.truncated = True
            return
        self.parts.append(text)
        self.size += len(text)

    def text(self):
        return "".join(self.parts)


class _Stream:
    """sys.stdout / sys.stderr while a task runs: into its logs."""

    def __init__(self, runner):
        self.runner = runner

    def write(self, text):
        if self.runner.logs is not None:
            self.runner.logs.add(text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


class _LogHandler(logging.Handler):
    def __init__(self, runner):
        super().__init__(logging.DEBUG)
        self.runner = runner
        self.setFormatter(logging.Formatter(
            "[%(levelname)1.1s %(asctime)s %(module)s:%(lineno)d] %(message)s", "%y%m%d %H:%M:%S"))

    def emit(self, record):
        if self.runner.logs is not None:
            self.runner.logs.add(self.format(record) + "\n")


def _on_interrupt(signum, frame):
    import _squall_runtime
    message = _squall_runtime.interrupt_due()
    if message:
        raise ProcessTimeLimit(message)


def _load(project, path):
    with open(path, "rb") as f:
        source = f.read()
    module = types.ModuleType(project)
    module.__file__ = os.path.abspath(path)
    sys.modules["__squall_project__"] = module
    exec(compile(source, path, "exec"), module.__dict__)
    candidates = [v for v in vars(module).values()
                  if isinstance(v, type) and issubclass(v, BaseHandler) and v is not BaseHandler]
    if not candidates:
        raise LookupError("%s has no Handler class (a subclass of BaseHandler)" % path)
    named = [c for c in candidates if c.__name__ == "Handler"]
    return (named or candidates)[-1]


def _user_traceback(exc):
    """The traceback of `exc` with the script's frames only (this runtime's left out)."""
    report = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    frames = [f for f in report.stack if os.path.abspath(f.filename) not in _OWN_FILES]
    report.stack = traceback.StackSummary.from_list(frames)
    return "".join(report.format())


def start(project, path, debugger=False):
    """(runner, None), or (None, the error's text) when the script does not load."""
    try:
        import _squall_runtime
        signal.signal(_squall_runtime.SIGNAL, _on_interrupt)
        handler_class = _load(project, path)
        handler_class.project_name = project
        if debugger:
            handler_class.__env__ = dict(handler_class.__env__, debugger=True)
        runner = Runner(project, handler_class())
        runner.info()
        return runner, None
    except BaseException as e:  # a script's SystemExit is a failed load too
        if isinstance(e, SyntaxError):
            return None, "".join(traceback.format_exception_only(type(e), e))
        return None, _user_traceback(e)


def _callbacks(handler_class):
    """The methods a task may name as its callback: on_start and those the project defines."""
    return sorted(name for name in dir(handler_class)
                  if not name.startswith("_") and callable(getattr(handler_class, name, None))
                  and (name == "on_start" or not hasattr(BaseHandler, name)))


class Runner:
    def __init__(self, project, handler):
        self.project = project
        self.handler = handler
        self.logs = None
        self.stdout = _Stream(self)
        root = logging.getLogger()
        root.addHandler(_LogHandler(self))
        root.setLevel(logging.DEBUG)

    def info(self):
        h = self.handler
        retry_delay = {str(k): v for k, v in (h.retry_delay or {}).items()}
        json.dumps(h.crawl_config)
        return json.dumps({
            "retry_delay": retry_delay,
            "cron": type(h)._cron_job_names(),
            "crawl_config": h.crawl_config or {},
            "callbacks": _callbacks(type(h)),
        })

    def process(self, task, fetch, content, streaming=False):
        """The output of `task`'s callback on its fetch result (dicts as json.loads gives them;
        content: bytes): {ok, exception, time, logs, follows, messages[, result]}, which squall
        reads as json.dumps(output, default=str) would write it. When `streaming`, the follows
        and messages go to squall in batches while the callback runs (_squall_runtime.hand_on),
        and the output holds those asked for after the last batch."""
        response = Response(
            status_code=fetch.get("status_code", 599), url=fetch.get("url") or task["url"],
            orig_url=fetch.get("orig_url") or task["url"], headers=fetch.get("headers"),
            cookies=fetch.get("cookies"), content=content, encoding=fetch.get("encoding"),
            time=fetch.get("time", 0), save=fetch.get("save"), error=fetch.get("error"),
            js_script_result=fetch.get("js_script_result"))
        h = self.handler
        self.logs = _Logs()
        saved = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = self.stdout
        started = time.monotonic()
        exception = None
        try:
            import _squall_runtime
            h._reset(task, response, _squall_runtime.hand_on if streaming else None)
            result = h._run_task(task, response)
            if isinstance(result, types.GeneratorType):
                for each in result:
                    run_func(h.on_result, each, response, task)
            else:
                run_func(h.on_result, result, response, task)
        except BaseException as e:  # the time limit's exception too: the task fails, no more
            exception = _user_traceback(e)
            self.logs.add(exception)
        finally:
            sys.stdout, sys.stderr = saved
        elapsed = time.monotonic() - started
        out = {
            "ok": exception is None,
            "exception": exception,
            "time": elapsed,
            "logs": self.logs.text(),
            "follows": h._follows,
            "messages": h._messages,
        }
        self.logs = None
        if exception is None and h._results:
            out["result"] = h._results[-1]
        h._reset(None, None)
        return out
