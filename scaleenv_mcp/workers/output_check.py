"""Checking a tool's result against its output schema, compiled once per tool (#25).

A jsonschema validator walks the schema on every call (about 0.5 ms of worker CPU per call,
two thirds of the worker's time, most of it building sub-validators). Each output schema is
compiled once into a plain function (``domain.schema_code``: about 4 us per result where
nested closures took 14 us); only a result that fails is handed to jsonschema, for its
message. A schema using a keyword outside the compiled subset is left to jsonschema entirely,
so the verdict is always jsonschema's (tests/unit/procedural/test_output_check.py).

How often the serving path checks is ``scaleenv serve --check-outputs`` (``CHECK_MODES``):
``always`` (the default: every result, so a tool that drifts from its schema is refused on its
first bad result), ``sampled`` (each tool's first result in each worker, then one in
``SAMPLE_EVERY``) or ``off``. Validation, synthesis and ``verify`` always check. Whatever the
mode, a result must be a dict that encodes as JSON: that encoding is what crosses to the host.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from scaleenv_mcp.domain.schema_code import Check, compile_check

__all__ = ["CHECK_MODES", "SAMPLE_EVERY", "OutputCheck"]

CHECK_MODES = ("always", "sampled", "off")
SAMPLE_EVERY = 16

class OutputCheck:
    """One tool's output check: ``problem(result)`` is (None, its JSON text) for a good result, else
    (why not, ""). The text is the one encoding of the result on its way to the agent (#25 item 4). ``mode`` is one of ``CHECK_MODES``; ``seen`` counts the results
    this check was asked about (the sample's clock)."""

    __slots__ = ("compiled", "mode", "seen", "validator")

    def __init__(self, schema: dict[str, Any], mode: str = "always") -> None:
        if mode not in CHECK_MODES:
            raise ValueError(f"output check mode must be one of {', '.join(CHECK_MODES)}, not {mode!r}")
        self.mode = mode
        self.seen = 0
        self.validator = jsonschema.Draft202012Validator(schema)
        self.compiled: Check | None = compile_check(schema)

    def problem(self, result: Any) -> tuple[str | None, str]:
        if not isinstance(result, dict):
            return f"tool returned {type(result).__name__}, not a dict", ""
        if self.mode == "always":
            schema = True
        else:
            schema = self.mode == "sampled" and self.seen % SAMPLE_EVERY == 0
            self.seen += 1
        if schema and (self.compiled is None or not self.compiled(result)):
            error = next(iter(self.validator.iter_errors(result)), None)
            if error is not None:
                path = "/".join(str(p) for p in error.absolute_path) or "(root)"
                return f"result does not match the output schema at {path}: {error.message}"[:2000], ""
        try:
            return None, json.dumps(result, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            return f"result is not JSON: {exc}", ""

