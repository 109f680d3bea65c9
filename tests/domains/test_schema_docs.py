"""Every shipped tool says its defaults and describes what it returns (issue #20).

An agent reads only the schemas: an optional argument without its ``default`` hides what happens
when it is left out, and an output field without a description leaves the agent guessing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scaleenv_mcp.domain.loader import load_domain

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (REPO / "domains").iterdir() if (p / "domain.json").is_file())


def _fields(schema: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    for name, sub in (schema.get("properties") or {}).items():
        yield f"{prefix}{name}", sub
        yield from _fields(sub, f"{prefix}{name}.")
        if isinstance(sub.get("items"), dict):
            yield from _fields(sub["items"], f"{prefix}{name}[].")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_optional_arguments_have_defaults_and_output_fields_descriptions(path: Path) -> None:
    tools = load_domain(path).manifest.tools
    no_default = [f"{t.name}.{name}" for t in tools for name, schema in (t.input_schema.get("properties") or {}).items()
                  if name not in t.input_schema.get("required", []) and "default" not in schema]
    undescribed = [f"{t.name} -> {name}" for t in tools for name, schema in _fields(t.output_schema)
                   if not schema.get("description")]
    assert sum(1 for t in tools for _ in _fields(t.output_schema)) > len(tools)  # the walk sees nested fields
    assert no_default == [] and undescribed == []
