"""LLM rewording of a task's user side, and the check that decides whether it may replace the template.

Synthesis writes every task's opening and simulator instruction from templates, offline and
deterministically. When a model is configured (the generator's stage 7, or
``scaleenv tasks synth --model``) the ``task_writer`` role may reword them; this module is the
one place that asks it and judges the answer, for both. A wording is taken only when:

- its known and withheld facts are exactly the task's facts (same names and values; the
  grounding records point at them, so grounding holds as synthesis found it) -> else
  ``wording_facts``;
- opening and instruction are not empty -> ``wording_empty``;
- no withheld value appears in the opening (the user gives it only when asked) -> ``wording_leak``;
- every known value is stated in the instruction (case-insensitive; a number or date also
  counts when written another way: "March 4, 2026" for "2026-03-04", "$45.50" for 45.5, compared
  through ``fact_tokens``) -> ``wording_missing_fact``: a simulated user who is never told a fact
  cannot state it, and the task would silently become unsolvable;
- opening and instruction name no internal id of the seed or the task's setup rows
  (``scaleenv_mcp.verifier.realism.internal_ids``) other than the task's own fact values (a domain without
  user-visible references states its ids as facts; any other id would be one the user cannot
  know) -> ``wording_internal_id``;
- the realism check (``task_problems``) finds nothing on the reworded task that it did not
  find on the template's -> ``wording_realism``;
- and the model answered with valid JSON at all (after the client's repair round-trips) ->
  ``wording_unparsed``.

A rejected wording leaves the template's; the counts per reason (and ``accepted``) go in the
report. Only ``task.user`` is ever replaced: actions, gold, grounding, communicate and ids are
the synthesiser's, so no verifier gate's result changes.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, UserSpec
from scaleenv_mcp.generator.backoff import RetryBudget
from scaleenv_mcp.generator.gathering import gather_all
from scaleenv_mcp.generator.llm import LLMClient, LLMOutputError
from scaleenv_mcp.generator.prompting import render_prompt
from scaleenv_mcp.generator.report import UsageLedger
from scaleenv_mcp.generator.roles import ResolvedRole
from scaleenv_mcp.generator.store import ResponseStore
from scaleenv_mcp.generator.synthesis.wording import TaskWording
from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.state.communicate import fact_tokens
from scaleenv_mcp.verifier.realism import named_internal_ids, task_problems

__all__ = ["CHECK_VERSION", "WordingAsker", "check_wording", "client_asker", "reword_task", "reword_tasks",
           "task_writer_asker"]

#: Part of the stored wording stage's inputs: a stricter check must not reuse wordings judged by an older one.
CHECK_VERSION = "2"

#: Asks the ``task_writer`` role with the prompt's values and returns its parsed answer.
WordingAsker = Callable[[dict[str, Any]], Awaitable[TaskWording]]

Seed = dict[str, list[dict[str, Any]]]


def _same_facts(a: dict[str, Any], b: dict[str, Any]) -> bool:
    try:
        return {k: canonical_value(v) for k, v in a.items()} == {k: canonical_value(v) for k, v in b.items()}
    except (TypeError, ValueError):
        return a == b


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _is_date_or_number(token: str) -> bool:
    return token.replace("-", "").replace(".", "").isdigit()


def _states(text: str, value: Any, today: date) -> bool:
    """Whether ``text`` states ``value``: verbatim, or (one number or date) in another spelling."""
    wanted = _text(value)
    if wanted.lower() in text.lower():
        return True
    tokens = fact_tokens(wanted, today)
    return len(tokens) == 1 and _is_date_or_number(tokens[0]) and tokens[0] in fact_tokens(text, today)


def check_wording(task: Task, wording: TaskWording, manifest: DomainManifest, seed: Seed | None = None) -> str | None:
    """Why ``wording`` cannot replace the task's template wording (a reason name), or None when it can."""
    facts = {**task.user.known, **task.user.withheld}
    if set(wording.known) & set(wording.withheld) or not _same_facts({**wording.known, **wording.withheld}, facts):
        return "wording_facts"
    if not wording.opening.strip() or not wording.instruction.strip():
        return "wording_empty"
    opening = wording.opening.lower()
    if any(isinstance(v, str) and len(v) >= 3 and v.lower() in opening for v in wording.withheld.values()):
        return "wording_leak"
    today = manifest.today
    if not all(_states(wording.instruction, value, today) for value in wording.known.values()):
        return "wording_missing_fact"
    texts = {"opening": wording.opening, "instruction": wording.instruction}
    if named_internal_ids(texts, task, manifest, seed, allowed={v for v in facts.values() if isinstance(v, str)}):
        return "wording_internal_id"
    reworded = _with_wording(task, wording)
    if set(task_problems(reworded, manifest, seed)) - set(task_problems(task, manifest, seed)):
        return "wording_realism"
    return None


def _with_wording(task: Task, wording: TaskWording) -> Task:
    user = UserSpec(opening=wording.opening, instruction=wording.instruction, known=wording.known,
                    withheld=wording.withheld)
    return task.model_copy(update={"user": user})


def _prompt_values(task: Task, manifest: DomainManifest) -> dict[str, Any]:
    facts = {**task.user.known, **task.user.withheld}
    return {"task_id": task.id, "domain": f"{manifest.title}: {manifest.description}",
            "chain": [a.model_dump(mode="json") for a in task.actions],
            "rows": [op.model_dump(mode="json", exclude_none=True) for op in task.setup],
            "facts": json.dumps(facts, sort_keys=True, ensure_ascii=False),
            "template": task.user.model_dump(mode="json")}


async def reword_task(task: Task, ask: WordingAsker, manifest: DomainManifest, seed: Seed | None = None
                      ) -> tuple[Task, str | None]:
    """The task with the model's wording, or unchanged with the reason it was refused."""
    try:
        answer = await ask(_prompt_values(task, manifest))
    except LLMOutputError:  # no valid JSON after the repair round-trips: the template stays
        return task, "wording_unparsed"
    problem = check_wording(task, answer, manifest, seed)
    return (task, problem) if problem else (_with_wording(task, answer), None)


async def reword_tasks(tasks: list[Task], ask: WordingAsker, manifest: DomainManifest, seed: Seed | None = None
                       ) -> tuple[list[Task], dict[str, int]]:
    """Reword every task (concurrently, results in the tasks' order); counts of ``accepted`` and of each refusal."""
    results = await gather_all(reword_task(task, ask, manifest, seed) for task in tasks)
    counts = Counter(problem or "accepted" for _, problem in results)
    return [new for new, _ in results], dict(sorted(counts.items()))


def client_asker(llm: LLMClient, ledger: UsageLedger, stage: str = "tasks") -> WordingAsker:
    """A ``WordingAsker`` over an LLM client outside a generation run (``scaleenv tasks synth --model``)."""

    async def ask(values: dict[str, Any]) -> TaskWording:
        return await llm.complete("task_writer", stage, render_prompt("task_writer", **values), TaskWording, ledger)

    return ask


@contextlib.asynccontextmanager
async def task_writer_asker(roles: dict[str, ResolvedRole], seed: int, *, retry_budget: int = 20,
                            concurrency: int = 4) -> AsyncIterator[WordingAsker]:
    """An asker for the ``task_writer`` role for the duration of a ``tasks synth`` run.

    Answers are kept in a temporary store that lives as long as the run: ``tasks synth`` has no
    workdir to resume from, and the client's repair and retry logic still needs one.
    """
    with tempfile.TemporaryDirectory(prefix="scaleenv-wording-") as folder:
        llm = LLMClient(roles, ResponseStore(Path(folder)), RetryBudget(retry_budget, seed=seed),
                        concurrency=concurrency, seed=seed)
        try:
            yield client_asker(llm, UsageLedger())
        finally:
            await llm.aclose()
