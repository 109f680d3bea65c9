"""Exceptions inside tool code that an argument caused: the agent's mistake, not an environment fault.

The host checks arguments against their schema (with the limits of
``domain.schema_limits``) before a call reaches a worker, but a tool can still turn a valid
argument into something SQLite refuses: ``'%' || ? || '%'`` over a long string is a LIKE
pattern past SQLite's length limit, ``offset + limit`` past int64 no longer binds. Those
were answered -32603 ``environment_fault`` and eval counted them against the environment
(issue #29, failure 2). Here they become ``invalid_argument`` naming the argument.
"""

from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["argument_problem"]

_INT64_MAX = 2**63 - 1
_PATTERN_MESSAGES = ("LIKE or GLOB pattern too complex", "REGEXP pattern too complex")


def _largest(arguments: dict[str, Any], kind: type) -> str | None:
    def size(value: Any) -> int:
        if kind is int:
            return abs(value) if isinstance(value, int) and not isinstance(value, bool) else -1
        return len(value) if isinstance(value, str) else -1

    name = max(arguments, key=lambda k: size(arguments[k]), default=None)
    return name if name is not None and size(arguments[name]) >= 0 else None


def argument_problem(exc: BaseException, arguments: dict[str, Any]) -> str | None:
    """A message naming the argument when ``exc`` is one an argument causes, else None."""
    text = str(exc)
    if isinstance(exc, OverflowError) or (isinstance(exc, sqlite3.Error) and "too large" in text and "INTEGER" in text):
        name = _largest(arguments, int)
        if name is not None:
            return (f"argument '{name}' is out of range: integers must lie within "
                    f"[{-_INT64_MAX - 1}, {_INT64_MAX}] after the tool's arithmetic ({text})")
    if isinstance(exc, sqlite3.Error) and any(m in text for m in _PATTERN_MESSAGES):
        name = _largest(arguments, str)
        if name is not None:
            return f"argument '{name}' is too long or too complex for a search ({text}); send a shorter value"
    return None
