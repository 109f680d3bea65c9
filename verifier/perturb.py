"""Wrong versions of a task's reference actions, which the gold must reject.

Two kinds: aimed at a distractor (every use of the target entity's id replaced by the id of
a distractor row of the same table: the agent confused look-alikes) and one argument
changed (each argument of each state-changing action, one at a time). A task whose gold
still scores 1 under either does not check what the user asked for. Values change
deterministically (no randomness here), so a verification run is reproducible.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, TaskAction

__all__ = ["Variant", "argument_variants", "changed_value", "distractor_variants"]

MAX_DISTRACTOR_VARIANTS = 4
_ID = re.compile(r"^([A-Z][A-Z0-9]{1,9})-(\d+)$")
_UNRELATED = "zz unrelated replacement text about the weather in Lisbon"


class Variant(BaseModel):
    gate: str
    description: str
    actions: list[TaskAction]


def _writing_actions(task: Task, manifest: DomainManifest) -> list[int]:
    names = {t.name for t in manifest.tools if t.writes}
    return [i for i, a in enumerate(task.actions) if a.tool in names]


def distractor_variants(task: Task, manifest: DomainManifest) -> list[Variant]:
    """Swap the id of each distractor's look-alike for the distractor's id, in every action."""
    tables = {(g.get("action"), g.get("argument")): g.get("table") for g in task.meta.grounding}
    writing = set(_writing_actions(task, manifest))
    variants: list[Variant] = []
    seen: set[tuple[str, str]] = set()
    for op in task.setup:
        if not (op.distractor and op.op == "insert" and op.row):
            continue
        spec = manifest.table(op.table)
        if len(spec.primary_key) != 1:
            continue
        column = spec.primary_key[0]
        replacement = op.row[column]
        targets = sorted({repr(v) for i, a in enumerate(task.actions) if i in writing for p, v in a.arguments.items()
                          if (tables.get((i, p)) == op.table or p == column) and v != replacement})
        for target_repr in targets:
            if (target_repr, repr(replacement)) in seen:
                continue
            seen.add((target_repr, repr(replacement)))
            actions = []
            for i, action in enumerate(task.actions):
                arguments = {p: (replacement if repr(v) == target_repr and (tables.get((i, p)) == op.table or p == column)
                                 else v) for p, v in action.arguments.items()}
                actions.append(TaskAction(tool=action.tool, arguments=arguments))
            variants.append(Variant(gate="distractor", actions=actions,
                                    description=f"{op.table} {target_repr} -> distractor {replacement!r}"))
    return variants[:MAX_DISTRACTOR_VARIANTS]


def changed_value(value: Any, schema: dict[str, Any]) -> Any:
    """A different value of the same kind; None when the value cannot be changed meaningfully."""
    if isinstance(value, bool):
        return not value
    if "enum" in schema:
        options = [v for v in schema["enum"] if v != value and v is not None]
        return options[0] if options else None
    if isinstance(value, int):
        maximum = schema.get("maximum")
        return value - 1 if maximum is not None and value + 1 > maximum else value + 1
    if isinstance(value, float):
        maximum = schema.get("maximum")
        return value - 1.0 if maximum is not None and value + 1.0 > maximum else value + 1.0
    if isinstance(value, str):
        match = _ID.match(value)
        if match:
            return f"{match.group(1)}-{int(match.group(2)) + 1:0{len(match.group(2))}d}"
        try:
            if len(value) == 10:
                return (date.fromisoformat(value) + timedelta(days=1)).isoformat()
            if len(value) >= 16 and value[10] == "T":
                return (datetime.fromisoformat(value) + timedelta(hours=1)).isoformat(timespec="seconds")
        except ValueError:
            pass
        return _UNRELATED if value != _UNRELATED else "another text"
    if isinstance(value, list):
        return [] if value else None
    if isinstance(value, dict):
        return {} if value else None
    return None


def argument_variants(task: Task, manifest: DomainManifest) -> list[Variant]:
    """Each argument of each state-changing action changed, one at a time."""
    variants: list[Variant] = []
    for index in _writing_actions(task, manifest):
        action = task.actions[index]
        properties = manifest.tool(action.tool).input_schema.get("properties", {})
        for param in sorted(action.arguments):
            new = changed_value(action.arguments[param], properties.get(param, {}))
            if new is None:
                continue
            actions = [a.model_copy(deep=True) for a in task.actions]
            actions[index].arguments[param] = new
            variants.append(Variant(gate="argument", actions=actions,
                                    description=f"action {index} {action.tool}.{param}: {action.arguments[param]!r} -> {new!r}"))
    return variants
