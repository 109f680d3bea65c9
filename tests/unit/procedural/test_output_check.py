"""The compiled checks give jsonschema's verdict on every shipped tool's output and input schema (#25)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from scaleenv_mcp.domain.schema_code import compile_check
from scaleenv_mcp.domain.schema_limits import bounded_schema
from scaleenv_mcp.episodes.domain_runtime import _StrictValidator
from scaleenv_mcp.workers.output_check import OutputCheck

DOMAINS = Path(__file__).resolve().parents[3] / "domains"
SCHEMAS = [(f"{p.parent.name}.{t['name']}", t["output_schema"])
           for p in sorted(DOMAINS.glob("*/domain.json")) for t in json.loads(p.read_text())["tools"]]
INPUTS = [(f"{p.parent.name}.{t['name']}", bounded_schema(t["input_schema"]))
          for p in sorted(DOMAINS.glob("*/domain.json")) for t in json.loads(p.read_text())["tools"]]
_ODD = [None, True, 0, 1.5, 2.0, -3, "", "x", [], {}, [1], {"a": 1}, 10**9, -0.0, "a" * 3000]


def _instance(schema: Any, rng: random.Random, slip: float) -> Any:
    """A value shaped by ``schema``, with a wrong value, a missing key or an extra one now and then."""
    if rng.random() < slip:
        return rng.choice(_ODD)
    kinds = schema.get("type", "object")
    kind = rng.choice(kinds) if isinstance(kinds, list) else kinds
    if kind == "object":
        out = {k: _instance(sub, rng, slip) for k, sub in schema.get("properties", {}).items()
               if k in schema.get("required", []) and rng.random() > slip / 2 or rng.random() < 0.5}
        if rng.random() < slip:
            out["extra"] = rng.choice(_ODD)
        return out
    if kind == "array":
        return [_instance(schema.get("items", {}), rng, slip) for _ in range(rng.randint(0, 3))]
    if schema.get("enum") and rng.random() > slip:
        return rng.choice(schema["enum"])
    if kind == "string" and schema.get("examples") and rng.random() > slip:
        return rng.choice(schema["examples"])
    return {"string": rng.choice(["s", "USR-00001", "2026-01-02"]), "integer": rng.choice([3, 4.0, 0, 500]),
            "number": 2.5, "boolean": False, "null": None}[kind]


def test_every_shipped_output_schema_compiles():
    assert SCHEMAS and all(OutputCheck(schema).compiled is not None for _, schema in SCHEMAS)


@pytest.mark.parametrize("slip", [0.0, 0.05, 0.3])
def test_compiled_verdicts_equal_jsonschemas(slip: float):
    rng = random.Random(f"output-check:{slip}")
    for name, schema in SCHEMAS * 10:
        value = _instance(schema, rng, slip)
        check, reference = OutputCheck(schema), jsonschema.Draft202012Validator(schema)
        assert check.compiled is not None
        assert check.compiled(value) == reference.is_valid(value), (name, value)


def test_a_bad_result_gets_jsonschemas_message_and_unsupported_schemas_fall_back():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    assert OutputCheck(schema).problem({"n": 1, "s": "é"}) == (None, '{"n": 1, "s": "é"}')  # the agent's text, once
    assert OutputCheck(schema).problem({"n": "1"}) == ("result does not match the output schema at n: '1' is not of type "
                                                     "'integer'", "")
    assert OutputCheck(schema).problem({"n": float("nan")})[0] is not None  # not JSON (and not an integer)
    assert OutputCheck(schema).problem([1]) == ("tool returned list, not a dict", "")
    constant = OutputCheck({"type": "object", "properties": {"s": {"type": "string", "const": "a"}}})
    assert constant.compiled is None and constant.problem({"s": "b"})[0] is not None
    assert constant.problem({"s": "a"})[0] is None


def test_every_shipped_input_schema_compiles():
    assert INPUTS and all(compile_check(schema, strict_integer=True) is not None for _, schema in INPUTS)


@pytest.mark.parametrize("slip", [0.0, 0.05, 0.3])
def test_compiled_argument_verdicts_equal_the_hosts_validator(slip: float):
    """The host's argument check: jsonschema with integers that are ints only (``_StrictValidator``)."""
    rng = random.Random(f"argument-check:{slip}")
    valid = 0
    for name, schema in INPUTS * 10:
        value = _instance(schema, rng, slip)
        check, reference = compile_check(schema, strict_integer=True), _StrictValidator(schema)
        assert check is not None
        assert check(value) == reference.is_valid(value), (name, value)
        valid += reference.is_valid(value)
    assert 0 < valid < len(INPUTS) * 10 or slip == 0.0  # both verdicts are exercised
