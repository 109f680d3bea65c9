"""Fuzzed tool arguments and JSON-RPC messages from a seeded ``random.Random``.

One generator for the soak (``random.Random(seed)``: same seed, same calls) and the
property tests (hypothesis hands in ``st.randoms()``, so it controls and shrinks every
choice). Arguments follow a tool's schema most of the time, ids shaped like the seed's so
calls reach real rows, and otherwise break it the ways agents and attackers do: huge
strings, integers past int64, wrong types, missing and unexpected names, deep nesting.
"""

from __future__ import annotations

import random
import re
import string
from typing import Any

__all__ = ["fuzz_arguments", "fuzz_message", "pattern_value"]

_HOSTILE_STRINGS = ["", " ", "%", "_%_", "' OR 1=1 --", "\x00", "é" * 50, "𝔘" * 20, "\\", "null", "A" * 60000,
                    "%" * 5000, "-1", "9" * 400, "2026-02-30", "../../etc/passwd", "<script>", "MEM-00001"]
_HOSTILE_NUMBERS = [0, -1, 1, 2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 1.5, -0.0, 1e308]
_ITEM = re.compile(r"\\d|\[[^\]]+\]|\((?:[^()|]+\|)*[^()|]+\)|\\.|.")


def _class_chars(item: str) -> str:
    if item == r"\d":
        return string.digits
    body, chars, index = item[1:-1], "", 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            chars += "".join(chr(c) for c in range(ord(body[index]), ord(body[index + 2]) + 1))
            index += 3
        else:
            chars += body[index]
            index += 1
    return chars or "x"


def pattern_value(pattern: str, rng: random.Random) -> str:
    """A string matching the simple patterns domains use (prefixes, digit runs, alternations);
    digit runs are small numbers most of the time, so ids name rows of the seed."""
    body = pattern.removeprefix("^").removesuffix("$")
    out: list[str] = []
    items = _ITEM.findall(body)
    index = 0
    while index < len(items):
        item = items[index]
        count = 1
        if index + 1 < len(items) and items[index + 1] == "{":
            close = items.index("}", index)
            low, _, high = "".join(items[index + 2:close]).partition(",")
            count = rng.randint(int(low), int(high or low))
            index = close
        if item.startswith("("):
            out.append(rng.choice(item[1:-1].split("|")))
        elif item == r"\d" or item.startswith("["):
            chars = _class_chars(item)
            if chars == string.digits and count >= 3 and rng.random() < 0.8:
                out.append(str(rng.randint(1, 30)).zfill(count))
            else:
                out.append("".join(rng.choice(chars) for _ in range(count)))
        else:
            out.append(item.removeprefix("\\") * count)
        index += 1
    return "".join(out)


def _kinds(schema: dict[str, Any]) -> list[str]:
    if "anyOf" in schema:
        return [k for branch in schema["anyOf"] for k in _kinds(branch)]
    kinds = schema.get("type", "string")
    return kinds if isinstance(kinds, list) else [kinds]


def _valid(schema: dict[str, Any], rng: random.Random, depth: int) -> Any:
    if "enum" in schema:
        return rng.choice(schema["enum"])
    if "const" in schema:
        return schema["const"]
    branch = next((b for b in schema.get("anyOf", []) if rng.random() < 0.7), None)
    if branch is not None:
        return _valid(branch, rng, depth)
    kind = rng.choice(_kinds(schema))
    if kind == "null":
        return None
    if kind == "boolean":
        return rng.random() < 0.5
    if kind in ("integer", "number"):
        low, high = schema.get("minimum", -5), schema.get("maximum", 200)
        value = rng.randint(max(low, -10**6), min(high, 10**6)) if low <= high else low
        return value if kind == "integer" else value + rng.choice([0, 0.5, 0.25])
    if kind == "array":
        return [_valid(schema.get("items", {}), rng, depth + 1) for _ in range(rng.randint(0, 3))] if depth < 4 else []
    if kind == "object":
        return {name: _valid(sub, rng, depth + 1) for name, sub in schema.get("properties", {}).items()
                if name in schema.get("required", []) or rng.random() < 0.5} if depth < 4 else {}
    if "pattern" in schema:
        return pattern_value(schema["pattern"], rng)
    if "examples" in schema and rng.random() < 0.5:
        return rng.choice(schema["examples"])
    return "".join(rng.choice(string.ascii_letters + " -") for _ in range(rng.randint(0, 12)))


def _junk(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randint(0, 6 if depth < 3 else 3)
    if choice == 0:
        return rng.choice(_HOSTILE_STRINGS)
    if choice == 1:
        return rng.choice(_HOSTILE_NUMBERS)
    if choice == 2:
        return rng.choice([None, True, False])
    if choice == 3:
        return "".join(chr(rng.randint(1, 0x2FFF)) for _ in range(rng.randint(0, 40)))
    if choice == 4:
        return [_junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if choice == 5:
        return {rng.choice(["a", "id", "__proto__", "", "x" * 30]): _junk(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return [[[[[[]]]]]]


def fuzz_arguments(schema: dict[str, Any], rng: random.Random) -> Any:
    """Arguments for a tool with input ``schema``: valid (about 60%), or broken in one or more ways."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    arguments = {name: _valid(sub, rng, 0) for name, sub in properties.items()
                 if name in required or rng.random() < 0.5}
    if rng.random() < 0.6:
        return arguments
    for _ in range(rng.randint(1, 3)):
        move = rng.randint(0, 5)
        if move <= 2 and properties:
            arguments[rng.choice(sorted(properties))] = _junk(rng)
        elif move == 3 and arguments:
            arguments.pop(rng.choice(sorted(arguments)))
        elif move == 4:
            arguments[rng.choice(["extra", "__class__", "ctx", "self", ""])] = _junk(rng)
        else:
            return _junk(rng) if rng.random() < 0.3 else arguments
    return arguments


def fuzz_message(rng: random.Random, tools: list[str]) -> Any:
    """An arbitrary JSON-RPC message: well-formed or not, known method or not, any id."""
    methods = ["tools/call", "tools/list", "ping", "resources/list", "initialize", "notifications/initialized",
               "prompts/get", "nonsense", "", "tools/call/../x"]
    message: dict[str, Any] = {"jsonrpc": rng.choice(["2.0", "2.0", "2.0", "1.0", 2, None])}
    if rng.random() < 0.9:
        message["method"] = rng.choice(methods)
    if rng.random() < 0.85:
        message["id"] = rng.choice([rng.randint(0, 10**6), "req-" + str(rng.randint(0, 99)), _junk(rng), 2**70])
    if rng.random() < 0.8:
        params: Any = {"name": rng.choice(tools + ["nope", ""]), "arguments": _junk(rng)}
        message["params"] = params if rng.random() < 0.8 else _junk(rng)
    if rng.random() < 0.1:
        return [message, _junk(rng)]
    return message if rng.random() < 0.95 else _junk(rng)
