"""Log lines that a request cannot forge: one record, one line.

Anything that reaches a log message may come from outside (a header, a command's text, an
exception about either). ``SafeFormatter`` escapes the message's control characters — a newline
becomes ``\\n`` — so a request can never start a line of its own, and indents every line of a
traceback, so nothing inside one can pass for a record either.
"""

from __future__ import annotations

import logging
import re
from typing import IO

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\x85]")


def escape(text: str) -> str:
    """``text`` with every control character written out (``\\n``, ``\\x1b``, ``\\u2028``)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


class SafeFormatter(logging.Formatter):
    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = escape(record.message)
        return super().formatMessage(record)

    def formatException(self, ei: object) -> str:
        return _indent(super().formatException(ei))  # type: ignore[arg-type]

    def formatStack(self, stack_info: str) -> str:
        return _indent(super().formatStack(stack_info))


def _indent(text: str) -> str:
    return "\n".join("    | " + escape(line) for line in text.splitlines())


# Libraries whose INFO lines are routine chatter for a long-running server: slack_sdk announces
# every retry it is about to make (twice before a start-up failure prdigest reports in one line of
# its own); APScheduler logs "Added job …" and "Scheduler started" at every start and every
# re-arm (a /subscribe), and its executor two lines per run of the 15-second watch job (~11,500 a
# day). Their warnings and errors still show; prdigest's own INFO lines are untouched.
QUIET_LOGGERS = ("slack_sdk", "apscheduler")


def configure(level: int = logging.INFO, stream: IO[str] | None = None) -> logging.Handler:
    """Log to ``stream`` (stderr) through ``SafeFormatter``, replacing any handlers set before;
    the chatty libraries of ``QUIET_LOGGERS`` only from WARNING up."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(SafeFormatter(FORMAT))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    return handler
