"""Bounds on every argument, added to a tool's input schema at serving time.

A schema without ``maxLength`` let a 60,000-character search text reach SQLite, which
refused the LIKE pattern; an integer without ``maximum`` let 2**63 reach the driver, which
overflowed; both were answered -32603 ``environment_fault`` although the agent sent them
(issue #29, failure 2). Served schemas therefore give every string a ``maxLength`` and every
integer a ``minimum`` and ``maximum`` (SQLite's int64) unless the manifest already sets one,
and arguments are checked against the same bounded schema, so the agent is told before the
call which argument is out of bounds and why.

Derived here, never written into domain.json: the package hash (hence every shipped task's
validation record) stays as it is, as with ``host.tool_metadata``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DEFAULT_MAX_LENGTH", "INT64_MAX", "INT64_MIN", "bounded_schema"]

DEFAULT_MAX_LENGTH = 10_000
INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
_VALUE_KEYS = frozenset({"enum", "const", "default", "examples"})  # values, not subschemas
_SUBSCHEMA_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def _kinds(node: dict[str, Any]) -> set[str]:
    kinds = node.get("type")
    return set(kinds) if isinstance(kinds, list) else {kinds} if isinstance(kinds, str) else set()


def bounded_schema(schema: Any, max_length: int = DEFAULT_MAX_LENGTH) -> Any:
    """``schema`` with a ``maxLength`` on every string and int64 bounds on every integer it leaves open."""
    if isinstance(schema, list):
        return [bounded_schema(item, max_length) for item in schema]
    if not isinstance(schema, dict):
        return schema
    node: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _VALUE_KEYS:
            node[key] = value
        elif key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            node[key] = {name: bounded_schema(sub, max_length) for name, sub in value.items()}
        else:
            node[key] = bounded_schema(value, max_length)
    kinds = _kinds(node)
    if "string" in kinds:
        node.setdefault("maxLength", max_length)
    if "integer" in kinds:
        if "minimum" not in node and "exclusiveMinimum" not in node:
            node["minimum"] = INT64_MIN
        if "maximum" not in node and "exclusiveMaximum" not in node:
            node["maximum"] = INT64_MAX
    return node
