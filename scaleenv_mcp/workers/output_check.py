"""Checking a tool's result against its output schema, compiled once per tool (#25).

A jsonschema validator walks the schema on every call (about 0.5 ms of worker CPU per call,
two thirds of the worker's time, most of it building sub-validators). Output schemas use a
small part of JSON Schema (``type``, ``properties``, ``required``, ``items``), so each is
compiled once into nested closures that answer "valid or not" in plain Python; only a
result that fails is handed to jsonschema, for its message. A schema using any other
keyword is left to jsonschema entirely, so the verdict is always jsonschema's
(tests/unit/procedural/test_output_check.py compares them on generated results).

How often the serving path checks is ``scaleenv serve --check-outputs`` (``CHECK_MODES``):
``always`` (the default: every result, so a tool that drifts from its schema is refused on its
first bad result), ``sampled`` (each tool's first result in each worker, then one in
``SAMPLE_EVERY``) or ``off``. Validation, synthesis and ``verify`` always check. Whatever the
mode, a result must be a dict that encodes as JSON, and its size is measured.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import jsonschema

__all__ = ["CHECK_MODES", "SAMPLE_EVERY", "OutputCheck"]

CHECK_MODES = ("always", "sampled", "off")
SAMPLE_EVERY = 16

Check = Callable[[Any], bool]
_ANNOTATIONS = frozenset({"description", "title", "examples", "default", "$comment"})
_TYPES: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
}


class _Unsupported(Exception):
    pass


def _compile(schema: Any) -> Check:
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, dict) or set(schema) - _ANNOTATIONS - {"type", "properties", "required", "items"}:
        raise _Unsupported
    checks: list[Check] = []
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not names or any(n not in _TYPES for n in names):
            raise _Unsupported
        tests = [_TYPES[n] for n in names]
        checks.append(tests[0] if len(tests) == 1 else (lambda v: any(t(v) for t in tests)))
    required = list(schema.get("required", []))
    if required:
        checks.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
    properties = {name: _compile(sub) for name, sub in schema.get("properties", {}).items()}
    if properties:
        pairs = list(properties.items())
        checks.append(lambda v: not isinstance(v, dict) or all(k not in v or c(v[k]) for k, c in pairs))
    if "items" in schema:
        item = _compile(schema["items"])
        checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(c(v) for c in checks)


class OutputCheck:
    """One tool's output check: ``problem(result)`` is (None, the size of its JSON in characters) for a
    good result, else (why not, 0). ``mode`` is one of ``CHECK_MODES``; ``seen`` counts the results
    this check was asked about (the sample's clock)."""

    __slots__ = ("compiled", "mode", "seen", "validator")

    def __init__(self, schema: dict[str, Any], mode: str = "always") -> None:
        if mode not in CHECK_MODES:
            raise ValueError(f"output check mode must be one of {', '.join(CHECK_MODES)}, not {mode!r}")
        self.mode = mode
        self.seen = 0
        self.validator = jsonschema.Draft202012Validator(schema)
        try:
            self.compiled: Check | None = _compile(schema)
        except _Unsupported:
            self.compiled = None

    def problem(self, result: Any) -> tuple[str | None, int]:
        if not isinstance(result, dict):
            return f"tool returned {type(result).__name__}, not a dict", 0
        if self.mode == "always":
            schema = True
        else:
            schema = self.mode == "sampled" and self.seen % SAMPLE_EVERY == 0
            self.seen += 1
        if schema and (self.compiled is None or not self.compiled(result)):
            error = next(iter(self.validator.iter_errors(result)), None)
            if error is not None:
                path = "/".join(str(p) for p in error.absolute_path) or "(root)"
                return f"result does not match the output schema at {path}: {error.message}"[:2000], 0
        try:
            return None, len(json.dumps(result, allow_nan=False))
        except (TypeError, ValueError) as exc:
            return f"result is not JSON: {exc}", 0

