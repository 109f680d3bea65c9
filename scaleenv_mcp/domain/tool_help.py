"""One tool explained for a person: what ``scaleenv tools DOMAIN TOOL`` and the shell's
``help TOOL`` print (one function, so the two never drift).

The example arguments come from a passing procedural case (tests.json): one that runs on the
plain seed when there is one, so pasting them into ``scaleenv call`` works on a fresh episode.
Some tools never succeed on the seed as shipped (every account still holds cash, every quiz
attempt in progress ran out of time): their example comes from a case that first changes the
seed, and says what it changes, so the call is still shown rather than nothing.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.state.model import RowOp

if TYPE_CHECKING:
    from scaleenv_mcp.domain.cases import ToolCase

__all__ = ["example_case", "example_fields", "fixture_line", "parameter_lines", "parameter_summary", "tool_help",
           "type_of"]


def example_case(package: DomainPackage, tool: str) -> ToolCase | None:
    """The first success case of ``tool`` on the plain seed; else the first on the seed with fixture
    rows (no case of the tool succeeds on the seed as shipped); None when it has no success case."""
    from scaleenv_mcp.domain.cases import CaseOutcome, TestSuite

    file = package.path / "tests.json"
    if not file.exists():
        return None
    on_seed = [case for case in TestSuite.model_validate_json(file.read_text()).cases
               if case.tool == tool and case.expect.outcome is CaseOutcome.success and case.fixture.base == "seed"]
    return next((case for case in on_seed if not case.fixture.rows), on_seed[0] if on_seed else None)


def example_fields(package: DomainPackage, tool: str) -> dict[str, Any]:
    """For ``tools --json``: ``example_arguments`` (None without a success case) and
    ``example_fixture``, the row operations its case applies to the seed first ([] on the plain seed)."""
    case = example_case(package, tool)
    if case is None:
        return {"example_arguments": None, "example_fixture": []}
    return {"example_arguments": case.arguments,
            "example_fixture": [op.model_dump(mode="json", exclude_defaults=True) for op in case.fixture.rows]}


def fixture_line(op: RowOp) -> str:
    """One row operation as a person reads it: 'update accounts account_id="ACC-00046": cash_cents=0'."""
    def pairs(values: dict[str, Any] | None) -> str:
        return ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in (values or {}).items())

    if op.op == "update":
        return f"update {op.table} {pairs(op.key)}: {pairs(op.values)}"
    if op.op == "delete":
        return f"delete from {op.table} {pairs(op.key)}"
    return f"insert into {op.table} {pairs(op.row)}"


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
    case = example_case(package, name)
    if case is None:
        return "\n".join(lines)
    call = f"  scaleenv call {package.slug} {name} --args '{json.dumps(case.arguments, ensure_ascii=False)}'"
    if not case.fixture.rows:
        return "\n".join(lines + ["", "example (from a passing test case):", call])
    lines += ["", "example (from a passing test case that first changes the seed, so on a fresh episode this call "
              "may be refused):", call, "  the case first:"]
    return "\n".join(lines + [f"    {fixture_line(op)}" for op in case.fixture.rows])
