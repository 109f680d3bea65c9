"""A JSON Schema compiled once into a plain Python function that answers "valid or not" (#25).

jsonschema walks the schema on every call and builds sub-validators (``evolve``) as it goes:
tens of microseconds per call for a tool's arguments or result, on the serving path. The
schemas of tool inputs and outputs use a small part of JSON Schema, so each is compiled once,
when its domain is loaded, into the source of one function of nested ``if`` and ``for``
statements (no closures or generators per call), and ``exec``'d. Only the verdict comes from
here: a value that fails is handed to jsonschema for its message. A schema with any keyword
outside the subset gives ``None``, and its caller uses jsonschema alone, so the verdict is
always jsonschema's (tests/unit/procedural/test_output_check.py compares them on generated
values over every shipped tool's input and output schema).

The schemas compiled are a domain's own (its manifest), never an agent's input; names and
constants enter the source only as ``repr`` literals or as objects in the function's globals.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["Check", "compile_check"]

Check = Callable[[Any], bool]
_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "$comment", "format", "deprecated"})
_STRING = frozenset({"maxLength", "minLength", "pattern"})
_NUMBER = {"minimum": "<", "maximum": ">", "exclusiveMinimum": "<=", "exclusiveMaximum": ">="}  # the failing comparison
_OBJECT = frozenset({"properties", "required", "additionalProperties"})
_ARRAY = frozenset({"items", "minItems", "maxItems"})
_KNOWN = _ANNOTATIONS | _STRING | frozenset(_NUMBER) | _OBJECT | _ARRAY | {"type", "enum"}
_MAX_DEPTH = 30
_TYPES = {
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
    "string": "isinstance({v}, str)",
    "boolean": "isinstance({v}, bool)",
    "null": "{v} is None",
    "number": "(isinstance({v}, (int, float)) and not isinstance({v}, bool))",
}
_INTEGER = "(isinstance({v}, int) and not isinstance({v}, bool) or isinstance({v}, float) and {v}.is_integer())"
_STRICT_INTEGER = "(isinstance({v}, int) and not isinstance({v}, bool))"


class _Unsupported(Exception):
    pass


class _Writer:
    def __init__(self, strict_integer: bool) -> None:
        self.lines: list[str] = []
        self.names: dict[str, Any] = {}
        self.count = 0
        self.integer = _STRICT_INTEGER if strict_integer else _INTEGER

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def constant(self, value: Any) -> str:
        name = self.fresh("c")
        self.names[name] = value
        return name

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def block(self, depth: int, head: str, body: Callable[[int], None]) -> None:
        """``head:`` and the lines ``body`` writes one level in (``pass`` when it writes none)."""
        self.line(depth, head + ":")
        before = len(self.lines)
        body(depth + 1)
        if len(self.lines) == before:
            self.lines.pop()

    def schema(self, schema: Any, v: str, depth: int) -> None:
        """Lines that ``return False`` when the value named ``v`` does not fit ``schema``."""
        if depth > _MAX_DEPTH:
            raise _Unsupported
        if schema is True:
            return
        if not isinstance(schema, dict) or set(schema) - _KNOWN:
            raise _Unsupported
        if "type" in schema:
            kinds = schema["type"]
            names = [kinds] if isinstance(kinds, str) else kinds
            if not isinstance(names, list) or not names or any(n not in _TYPES and n != "integer" for n in names):
                raise _Unsupported
            tests = [(self.integer if n == "integer" else _TYPES[n]).format(v=v) for n in names]
            self.line(depth, f"if not ({' or '.join(tests)}): return False")
        if "enum" in schema:
            self.line(depth, f"if not ({self._enum(schema['enum'], v)}): return False")
        if _STRING & set(schema):
            self.block(depth, f"if isinstance({v}, str)", lambda d: self._string(schema, v, d))
        if set(_NUMBER) & set(schema):
            self.block(depth, f"if isinstance({v}, (int, float)) and not isinstance({v}, bool)",
                       lambda d: self._number(schema, v, d))
        if _OBJECT & set(schema):
            self.block(depth, f"if isinstance({v}, dict)", lambda d: self._object(schema, v, d))
        if _ARRAY & set(schema):
            self.block(depth, f"if isinstance({v}, list)", lambda d: self._array(schema, v, d))

    def _enum(self, values: Any, v: str) -> str:
        """The test of ``v`` against an enum of strings, numbers and null. As in jsonschema, 2.0 equals 2
        and a boolean equals no number; an enum holding booleans, lists or objects is left to it."""
        if not isinstance(values, list) or not all(x is None or isinstance(x, (str, int, float)) and not isinstance(x, bool)
                                                   for x in values):
            raise _Unsupported
        tests = ["False"]
        if None in values:
            tests.append(f"{v} is None")
        if strings := frozenset(x for x in values if isinstance(x, str)):
            tests.append(f"isinstance({v}, str) and {v} in {self.constant(strings)}")
        if numbers := frozenset(x for x in values if isinstance(x, (int, float))):
            tests.append(f"isinstance({v}, (int, float)) and not isinstance({v}, bool) and {v} in {self.constant(numbers)}")
        return " or ".join(tests)

    def _string(self, schema: dict[str, Any], v: str, depth: int) -> None:
        if "maxLength" in schema:
            self.line(depth, f"if len({v}) > {int(schema['maxLength'])}: return False")
        if "minLength" in schema:
            self.line(depth, f"if len({v}) < {int(schema['minLength'])}: return False")
        if "pattern" in schema:
            pattern = self.constant(re.compile(schema["pattern"]))
            self.line(depth, f"if {pattern}.search({v}) is None: return False")

    def _number(self, schema: dict[str, Any], v: str, depth: int) -> None:
        for keyword, failing in _NUMBER.items():
            if keyword in schema:
                bound = schema[keyword]
                if isinstance(bound, bool) or not isinstance(bound, (int, float)):
                    raise _Unsupported
                self.line(depth, f"if {v} {failing} {self.constant(bound)}: return False")

    def _object(self, schema: dict[str, Any], v: str, depth: int) -> None:
        properties = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        if not isinstance(properties, dict) or not isinstance(required, list) or extra not in (True, False, {}):
            raise _Unsupported
        for name in required:
            self.line(depth, f"if {str(name)!r} not in {v}: return False")
        if extra is False:
            known = self.constant(frozenset(properties))
            key = self.fresh("k")
            self.block(depth, f"for {key} in {v}", lambda d: self.line(d, f"if {key} not in {known}: return False"))
        for name, sub in properties.items():
            inner = self.fresh("v")
            self.line(depth, f"{inner} = {v}.get({str(name)!r}, _MISSING)")
            self.block(depth, f"if {inner} is not _MISSING", lambda d: self.schema(sub, inner, d))

    def _array(self, schema: dict[str, Any], v: str, depth: int) -> None:
        if "minItems" in schema:
            self.line(depth, f"if len({v}) < {int(schema['minItems'])}: return False")
        if "maxItems" in schema:
            self.line(depth, f"if len({v}) > {int(schema['maxItems'])}: return False")
        if "items" in schema:
            inner = self.fresh("v")
            self.block(depth, f"for {inner} in {v}", lambda d: self.schema(schema["items"], inner, d))


def compile_check(schema: Any, strict_integer: bool = False) -> Check | None:
    """``schema`` as a function value -> valid?, or None when it uses a keyword outside the subset.

    ``strict_integer``: an integer is an ``int`` only (the host's argument check: tools bind 1.0 to
    SQLite as a float); otherwise JSON Schema's rule, where 2.0 is an integer too."""
    writer = _Writer(strict_integer)
    try:
        writer.schema(schema, "v0", 1)
    except (_Unsupported, re.error, TypeError, ValueError):
        return None
    source = "\n".join(["def check(v0):", *writer.lines, "    return True"])
    namespace: dict[str, Any] = {"_MISSING": object(), **writer.names}
    exec(compile(source, "<schema check>", "exec"), namespace)  # noqa: S102 - our own generated source
    check: Check = namespace["check"]
    return check
