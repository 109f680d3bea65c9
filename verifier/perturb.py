"""Wrong versions of a task's reference actions, which the gold must reject.

Two kinds: aimed at a distractor (every use of the target entity's id replaced by the id of
a distractor row of the same table: the agent confused look-alikes) and one argument
changed (each argument of each state-changing action, one at a time). A free-text argument
is changed three ways: an unrelated phrase, negated, and one number in it changed
(``scaleenv_mcp.verifier.text_perturb``), because a text that keeps every word but says the opposite is
the mistake a semantic comparison lets through. A task whose gold still scores 1 under any
variant does not check what the user asked for. Values change deterministically (no
randomness here), so a verification run is reproducible.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, TaskAction
from scaleenv_mcp.state.model import RewardPolicy
from scaleenv_mcp.verifier.text_perturb import negated, number_changed

__all__ = ["Variant", "argument_variants", "changed_value", "distractor_variants", "is_free_text"]

MAX_DISTRACTOR_VARIANTS = 4
_ID = re.compile(r"^([A-Z][A-Z0-9]{1,9})-(\d+)$")
_UNRELATED = "zz unrelated replacement text about the weather in Lisbon"
# Strings that are exact values however they are written: an e-mail address, a link.
_EXACT_TEXT = re.compile(r"^\S+@\S+$|^[a-z][a-z0-9+.-]*://\S+$", re.IGNORECASE)


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


def is_free_text(tool: str, param: str, value: Any, manifest: DomainManifest) -> bool:
    """Whether an argument is prose a person could word differently: the kind a ``semantic`` column holds.

    Not free text: a non-string or blank value; a value ``changed_value`` changes as an exact
    value (an id, a date, a date-time, an enum member); a value the schema constrains (a
    pattern or format); an e-mail address or a link; an argument named like a ``hard`` or
    ``exempt`` column of a table the tool writes (a city, a title compared exactly: any change
    of it already fails). An argument named like no column (a cancellation reason) counts as
    free text: where it lands is the tool's business, and a negated reason must not pass.
    """
    if not isinstance(value, str) or not value.strip() or _EXACT_TEXT.match(value.strip()):
        return False
    spec = manifest.tool(tool)
    schema = spec.input_schema.get("properties", {}).get(param, {})
    if any(key in schema for key in ("enum", "pattern", "format", "const")) or changed_value(value, schema) != _UNRELATED:
        return False
    policies = {column.reward for table in spec.writes for column in manifest.table(table).columns if column.name == param}
    return not policies or RewardPolicy.semantic in policies


def _changes(tool: str, param: str, value: Any, schema: dict[str, Any], manifest: DomainManifest) -> list[tuple[str, Any]]:
    """(what was done, new value) for one argument: the changed value, and for free text its negation and a changed number."""
    changes: list[tuple[str, Any]] = []
    new = changed_value(value, schema)
    if new is not None:
        changes.append(("", new))
    if is_free_text(tool, param, value, manifest):
        changes += [(kind, text) for kind, text in (("negated: ", negated(value)), ("number changed: ", number_changed(value)))
                    if text is not None and text != value]
    return changes


def argument_variants(task: Task, manifest: DomainManifest) -> list[Variant]:
    """Each argument of each state-changing action changed, one at a time (free text three ways)."""
    variants: list[Variant] = []
    for index in _writing_actions(task, manifest):
        action = task.actions[index]
        properties = manifest.tool(action.tool).input_schema.get("properties", {})
        for param in sorted(action.arguments):
            old = action.arguments[param]
            for kind, new in _changes(action.tool, param, old, properties.get(param, {}), manifest):
                actions = [a.model_copy(deep=True) for a in task.actions]
                actions[index].arguments[param] = new
                variants.append(Variant(gate="argument", actions=actions,
                                        description=f"action {index} {action.tool}.{param}: {kind}{old!r} -> {new!r}"))
    return variants
