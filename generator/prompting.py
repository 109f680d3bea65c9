"""Load and fill the per-role prompt files in generator/prompts/.

Prompts are data, kept one file per role so they can be read, diffed and tuned without
touching code. A file holds the system prompt, a line ``=== user ===``, and the user
message; ``{{name}}`` placeholders are filled with strings, or with sorted, indented JSON
for anything else, so the same inputs always give byte-identical prompts (and therefore
the same store keys). A placeholder without a value is an error, never left in the text.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

__all__ = ["PROMPTS_DIR", "prompt_fragment", "render_prompt"]

PROMPTS_DIR = Path(__file__).parent / "prompts"
_SPLIT = "\n=== user ===\n"
_PLACEHOLDER = re.compile(r"\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}")


@cache
def _template(role: str) -> tuple[str, str]:
    text = (PROMPTS_DIR / f"{role}.md").read_text()
    if _SPLIT not in text:
        raise ValueError(f"prompt {role}.md lacks the '=== user ===' separator")
    system, user = text.split(_SPLIT, 1)
    return system.strip(), user.strip()


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_defaults=False)
    elif isinstance(value, list) and value and all(isinstance(v, BaseModel) for v in value):
        value = [v.model_dump(mode="json") for v in value]
    return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False)


def _fill(template: str, values: dict[str, Any], role: str) -> str:
    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"prompt {role}.md needs {{{{{name}}}}}")
        return _text(values[name])

    return _PLACEHOLDER.sub(substitute, template)


def render_prompt(role: str, **values: Any) -> list[dict[str, str]]:
    """The system and user messages of ``role`` with ``values`` filled in."""
    system, user = _template(role)
    return [{"role": "system", "content": _fill(system, values, role)},
            {"role": "user", "content": _fill(user, values, role)}]


@cache
def prompt_fragment(name: str) -> str:
    """A shared fragment (``prompts/_<name>.md``), e.g. the rules every tool must follow."""
    return (PROMPTS_DIR / f"_{name}.md").read_text().strip()
