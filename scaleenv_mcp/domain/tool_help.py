"""One tool explained for a person: what ``scaleenv tools DOMAIN TOOL`` and the shell's
``help TOOL`` print (one function, so the two never drift).

The example arguments come from a passing procedural case (tests.json) that runs on the seed
with no fixture rows, so pasting them into ``scaleenv call`` works on a fresh episode.
"""

from __future__ import annotations

import json
from typing import Any

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.manifest import ToolSpec

__all__ = ["example_arguments", "parameter_lines", "parameter_summary", "tool_help", "type_of"]


def example_arguments(package: DomainPackage, tool: str) -> dict[str, Any] | None:
    """Arguments of the first success case of ``tool`` on the plain seed, or None."""
    from scaleenv_mcp.domain.cases import CaseOutcome, TestSuite

    file = package.path / "tests.json"
    if not file.exists():
        return None
    for case in TestSuite.model_validate_json(file.read_text()).cases:
        if (case.tool == tool and case.expect.outcome is CaseOutcome.success and case.fixture.base == "seed"
                and not case.fixture.rows):
            return case.arguments
    return None


def type_of(schema: dict[str, Any]) -> str:
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return " or ".join(kinds)
    if kinds == "array" and isinstance(schema.get("items"), dict):
        return f"array of {type_of(schema['items'])}"
    return str(kinds or "any")


def parameter_summary(tool: ToolSpec) -> str:
    """'name*: type, other: type' (* required), for one cell of the tool list."""
    schema = tool.input_schema
    required = set(schema.get("required", []))
    return ", ".join(f"{name}{'*' if name in required else ''}: {type_of(prop)}"
                     for name, prop in schema.get("properties", {}).items())


def parameter_lines(tool: ToolSpec) -> list[str]:
    """'name (type, required): description [pattern ..., one of ..., default ...]' per parameter."""
    schema = tool.input_schema
    required = set(schema.get("required", []))
    lines = []
    for name, prop in schema.get("properties", {}).items():
        facts = [type_of(prop), "required" if name in required else "optional"]
        extras = []
        if "pattern" in prop:
            extras.append(f"pattern {prop['pattern']}")
        if "enum" in prop:
            extras.append("one of " + ", ".join(json.dumps(v) for v in prop["enum"]))
        if "default" in prop:
            extras.append(f"default {json.dumps(prop['default'])}")
        for bound in ("minimum", "maximum", "minLength", "maxLength", "format"):
            if bound in prop:
                extras.append(f"{bound} {prop[bound]}")
        tail = f" [{'; '.join(extras)}]" if extras else ""
        lines.append(f"  {name} ({', '.join(facts)}): {prop.get('description', '')}{tail}")
    return lines


def tool_help(package: DomainPackage, name: str) -> str:
    """The full description, parameters, what it writes, its errors and an example call."""
    tool = next(t for t in package.manifest.tools if t.name == name)
    lines = [f"{tool.name}  ({'writes ' + ', '.join(tool.writes) if tool.writes else 'read-only'})", "",
             tool.description, "", "parameters:"]
    lines += parameter_lines(tool) or ["  (none)"]
    if tool.raises:
        lines += ["", "errors:"] + [f"  {e.code}: {e.when}" for e in tool.raises]
    example = example_arguments(package, name)
    if example is not None:
        lines += ["", "example (from a passing test case):",
                  f"  scaleenv call {package.slug} {name} --args '{json.dumps(example, ensure_ascii=False)}'"]
    return "\n".join(lines)
