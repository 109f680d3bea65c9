"""Would a careful person accept these tasks? The measures of issue "Tasks a real person would bring".

Read-only, like ``scaleenv_mcp.generator.diversity``: it reads the tasks, the manifest and the seed and never
runs a tool. Two uses:

- ``realism_report`` counts, per domain, what a reviewer of agent benchmarks looks at first:
  internal ids in what the simulated user is told, gold writes that act for more than one
  principal, one-call tasks with every argument stated, gold length, tasks without a read,
  information and refusal tasks (``scaleenv tasks report``);
- ``task_problems`` names, for one task, what makes it unacceptable: gold writes acting for
  two people, and for a task with a persona, an internal id in the user's words or a gold
  write that acts for someone other than the persona; a ``communicate`` fact no gold result
  holds. ``scaleenv verify`` (and synthesis) reject such a task with its id and the reason:
  the ``realism`` gate.

An internal id is a value of a key or reference column that is not user-visible (the
manifest's ``user_visible``); a domain that declares none has every key column internal.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import ConditionSpec, DomainManifest, ViolationSpec
from scaleenv_mcp.domain.task import Task, TaskAction
from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.state.communicate import said_tokens, wanted_tokens
from scaleenv_mcp.state.model import apply_row_ops

__all__ = ["TARGETS", "RealismReport", "TargetCheck", "breaks", "broken_rules", "internal_ids", "named_internal_ids", "realism_report",
           "start_rows", "task_problems"]

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*[A-Za-z0-9]|[A-Za-z0-9]")


class TargetCheck(BaseModel):
    """One of the task set's targets (issue #21), measured."""

    value: float
    target: str = Field(description="The bound, e.g. '>= 0.15'.")
    met: bool


#: name -> (measure of a RealismReport, comparison, bound). Shares are of the domain's tasks.
TARGETS: dict[str, tuple[str, str, float]] = {
    "internal_id_share": ("user_text_with_internal_ids", "<=", 0.0),
    "single_principal_share": ("single_principal", ">=", 1.0),
    "information_share": ("information_tasks", ">=", 0.15),
    "refusal_share": ("refusal_tasks", ">=", 0.10),
    "one_call_all_stated_share": ("one_call_all_stated", "<=", 0.05),
    "mean_gold_length": ("mean_gold_length", ">=", 4.0),
}


class RealismReport(BaseModel):
    domain: str
    tasks: int
    user_text_with_internal_ids: int = Field(description="Tasks whose opening, goal or facts name an internal id.")
    openings_with_internal_ids: int
    single_principal: int = Field(description="Tasks whose gold writes all act for one principal (or none acts).")
    one_call_all_stated: int = Field(description="One-action tasks whose every argument the user states up front.")
    mean_gold_length: float
    without_read: int = Field(description="Tasks whose gold has no read-only call.")
    information_tasks: int = Field(description="Tasks with communicate facts and no gold write.")
    refusal_tasks: int = Field(description="Tasks in which a policy-only rule says no: the right outcome is no change.")
    with_communicate: int
    targets: dict[str, TargetCheck] = Field(default_factory=dict, description="Issue #21's targets, measured.")

    def measure_targets(self) -> RealismReport:
        """This report with ``targets`` filled in: counts as shares of the tasks, the mean as it is."""
        checks = {}
        for name, (field, op, bound) in TARGETS.items():
            raw = float(getattr(self, field))
            value = raw if field == "mean_gold_length" else round(raw / (self.tasks or 1), 4)
            checks[name] = TargetCheck(value=value, target=f"{op} {bound:g}",
                                       met=value >= bound if op == ">=" else value <= bound)
        return self.model_copy(update={"targets": checks})


def internal_ids(manifest: DomainManifest, rows: dict[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Values of key and reference columns no person would know -> "table.column"."""
    found: dict[str, str] = {}
    for table in manifest.tables:
        hidden = [name for name in table.internal_id_columns() if table.column(name).type == "TEXT"]
        for row in rows.get(table.name, []):
            for column in hidden:
                value = row.get(column)
                if isinstance(value, str) and value:
                    found.setdefault(value, f"{table.name}.{column}")
    return found


def _holds(condition: ConditionSpec, value: Any, today: str) -> bool:
    if condition.op == "is_null":
        return value is None
    if condition.op == "not_null":
        return value is not None
    if value is None:
        return False
    wanted = today if condition.value == "$today" else condition.value
    left, right = canonical_value(value), canonical_value(wanted)
    try:
        return {"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                ">": left > right, ">=": left >= right}[condition.op]
    except TypeError:  # a text compared with a number: the row does not match
        return False


def breaks(violation: ViolationSpec, row: dict[str, Any], today: str) -> bool:
    return all(_holds(c, row.get(c.column), today) for c in violation.where)


def start_rows(seed: dict[str, list[dict[str, Any]]], task: Task) -> dict[str, list[dict[str, Any]]]:
    """The task's start state as rows per table: the seed with its setup applied."""
    return apply_row_ops(seed, task.setup)


def _user_texts(task: Task) -> dict[str, str]:
    texts = {"opening": task.user.opening, "instruction": task.user.instruction}
    for kind, facts in (("known", task.user.known), ("withheld", task.user.withheld)):
        for key, value in facts.items():
            texts[f"{kind}.{key}"] = value if isinstance(value, str) else json.dumps(value)
    return texts


def _named_ids(texts: dict[str, str], hidden: dict[str, str]) -> list[str]:
    return [f"{where} names {token} ({hidden[token]})" for where, text in texts.items()
            for token in dict.fromkeys(_TOKEN.findall(text)) if token in hidden]


def named_internal_ids(texts: dict[str, str], task: Task, manifest: DomainManifest,
                       seed: dict[str, list[dict[str, Any]]] | None = None, allowed: set[str] | None = None) -> list[str]:
    """Where ``texts`` (name -> text) name an internal id of the seed or the task's setup rows, besides ``allowed``.

    For text that is not yet the task's (an LLM's rewording of its user side): the same tokens and
    ids that ``task_problems`` looks for in the user's words.
    """
    hidden = {value: where for value, where in internal_ids(manifest, start_rows(seed or {}, task)).items()
              if value not in (allowed or set())}
    return _named_ids(texts, hidden)


def _acting(task: Task, manifest: DomainManifest) -> list[tuple[int, Any]]:
    tools = {t.name: t for t in manifest.tools}
    out = []
    for index, action in enumerate(task.actions):
        tool = tools.get(action.tool)
        if tool is not None and tool.is_writing and tool.acting is not None:
            out.append((index, action.arguments.get(tool.acting.argument)))
    return out


def task_problems(task: Task, manifest: DomainManifest, seed: dict[str, list[dict[str, Any]]] | None = None,
                  gold_results: list[dict[str, Any] | None] | None = None) -> list[str]:
    """Why a careful person would reject this task; empty when nothing is wrong.

    Every task: its gold writes act for one principal. A task with a persona: they act for the
    persona. A task with a persona or in a domain that declares principals: the user's words name
    no internal id (of the seed, when given, or the setup).
    ``gold_results`` (the gold replay's results) enable the communicate check.
    """
    problems: list[str] = []
    acting = _acting(task, manifest)
    principals = {who for _, who in acting}
    if len(principals) > 1:
        problems.append(f"gold writes act for {len(principals)} different principals: {sorted(map(str, principals))}")
    if task.persona is not None:
        if task.persona.kind not in {p.kind for p in manifest.principals}:
            problems.append(f"persona kind {task.persona.kind!r} is not a principal of {manifest.slug}")
        problems += [f"action {i} {task.actions[i].tool} acts for {who}, not for the persona {task.persona.id}"
                     for i, who in acting if who != task.persona.id]
    rows = start_rows(seed or {}, task)
    if task.persona is not None or manifest.principals:  # a domain that serves people: they say no internal id
        problems += _named_ids(_user_texts(task), internal_ids(manifest, rows))
    problems += broken_rules(task.actions, manifest, rows)  # a refusal's other errand too
    if gold_results is not None and task.communicate:
        today = manifest.today
        said = [said_tokens(json.dumps(r, ensure_ascii=False), today) for r in gold_results if r is not None]
        for fact in task.communicate:
            wanted = wanted_tokens(fact, today)
            if not any(wanted <= tokens for tokens in said):
                problems.append(f"communicate fact {fact!r} is in no result the gold reads")
    return problems


def broken_rules(actions: list[TaskAction], manifest: DomainManifest, rows: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Calls that land on a row a policy-only rule forbids them (judged on the start state ``rows``)."""
    today = manifest.clock[:10]
    found = []
    for rule in manifest.policy_rules:
        violation = rule.violation
        if violation is None:
            continue
        key = manifest.table(violation.table).primary_key
        for index, action in enumerate(actions):
            target = action.arguments.get(violation.argument)
            if action.tool != violation.tool or target is None or len(key) != 1:
                continue
            row = next((r for r in rows.get(violation.table, []) if r.get(key[0]) == target), None)
            if row is not None and breaks(violation, row, today):
                found.append(f"action {index} {action.tool} breaks the policy rule {rule.id} ({target})")
    return found


def realism_report(manifest: DomainManifest, tasks: list[Task], seed: dict[str, list[dict[str, Any]]]) -> RealismReport:
    writing = {t.name for t in manifest.tools if t.is_writing}
    stated = 0
    with_ids = openings = single = 0
    for task in tasks:
        hidden = internal_ids(manifest, start_rows(seed, task))
        named = _named_ids(_user_texts(task), hidden)
        with_ids += bool(named)
        openings += any(n.startswith("opening ") for n in named)
        single += len({who for _, who in _acting(task, manifest)}) <= 1
        if len(task.actions) == 1:
            facts = {json.dumps(v, sort_keys=True) for v in task.user.known.values()}
            stated += all(json.dumps(v, sort_keys=True) in facts for v in task.actions[0].arguments.values())
    count = len(tasks) or 1
    return RealismReport(
        domain=manifest.slug, tasks=len(tasks), user_text_with_internal_ids=with_ids, openings_with_internal_ids=openings,
        single_principal=single, one_call_all_stated=stated,
        mean_gold_length=round(sum(len(t.actions) for t in tasks) / count, 3),
        without_read=sum(1 for t in tasks if all(a.tool in writing for a in t.actions)),
        information_tasks=sum(1 for t in tasks if t.kind == "information" or (
            t.kind == "action" and t.communicate and not any(a.tool in writing for a in t.actions))),
        refusal_tasks=sum(1 for t in tasks if t.kind == "refusal"),
        with_communicate=sum(1 for t in tasks if t.communicate),
    ).measure_targets()
