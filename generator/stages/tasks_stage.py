"""Stage 7: verified tasks: task synthesis by graph expansion, then LLM wording, re-verified.

The chain, the start state, the expansion and the gold come from ``scaleenv_mcp.generator.tasks``
(paper phase 2, every task already through the verifier's gates). Between chains the
``expansion_gate`` role decides whether the task grows by one more chain, from c(H), the
tools left and the measured share of tools that answered; it returns its own feasibility
score, recorded in the task's meta (the synthesiser keeps the hard limits: at most three
chains, a writing tool left to end the next one). The gate's answers are stored like every
response, so the same answers give the same tasks. The task writer rewrites the opening and the
simulator instruction and splits the facts into known and withheld, from the reference
chain and the task's rows; ``scaleenv_mcp.generator.synthesis.rewording`` asks it and checks the answer
(the same code as ``scaleenv tasks synth --model``): exactly the grounded facts, every known
one stated in the instruction, no withheld value in the opening, no internal id the user could
not know, nothing the realism check would refuse; otherwise the template wording stays and the
rejection is counted under the check that refused it. Wording changes no action,
state or fact, so the other gates hold as synthesis found them; stage 8 verifies every task
again over MCP before anything is published.

The seed chain C1 of each candidate is written by the ``chain_writer`` role as Python code
over the tools (``def chain(call): ...``), given the end tool, a path that reaches it and the
rows of the entity it is about, and may add start-state rows (new entities the chain needs,
look-alike distractors), kept only when they load next to the seed under every constraint.
The code is never run: ``scaleenv_mcp.generator.synthesis.chain_code``
reads it with ``ast`` into a plan (literals the user states, references the data flow must
honour) or refuses it; a refused chain, or one that fails on the episode, falls back to the
sampled chain, and the report counts both.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.loader import load_domain, package_hash
from scaleenv_mcp.domain.task_file import parse_tasks
from scaleenv_mcp.generator.drafts import ChainCode, ExpansionDecision, TaskWording
from scaleenv_mcp.generator.report import TaskStats
from scaleenv_mcp.generator.stages.context import RunContext, StageScope
from scaleenv_mcp.generator.synthesis.chain_code import ChainRequest, ChainWriter
from scaleenv_mcp.generator.synthesis.gate import ChainGate, GateView
from scaleenv_mcp.generator.synthesis.rewording import CHECK_VERSION, WordingAsker, reword_tasks

__all__ = ["TasksResult", "llm_chain_writer", "llm_gate", "llm_task_writer", "run_tasks"]

#: Worker processes of the synthesis host: fixed, not --concurrency, so the same package and
#: seed give the same tasks whatever concurrency a run (or its resumption) used.
SYNTH_WORKERS = 2


class TasksResult(BaseModel):
    tasks_jsonl: str
    stats: TaskStats


def llm_task_writer(scope: StageScope) -> WordingAsker:
    """Task wordings asked of the ``task_writer`` role (judged by ``scaleenv_mcp.generator.synthesis.rewording``)."""

    async def ask(values: dict[str, Any]) -> TaskWording:
        return await scope.ask("task_writer", TaskWording, **values)

    return ask


def llm_gate(scope: StageScope) -> ChainGate:
    """The expansion gate asked of the ``expansion_gate`` role."""

    async def gate(view: GateView, rng: random.Random) -> ExpansionDecision:
        return await scope.ask("expansion_gate", ExpansionDecision, task_id=view.task_id, complexity=view.complexity,
                               whole=view.whole, size=len(view.expanded), expanded=", ".join(view.expanded),
                               chains=json.dumps(view.chains), left=", ".join(view.left), answered=view.answered)

    return gate


def llm_chain_writer(scope: StageScope) -> ChainWriter:
    """Seed chains written as code by the ``chain_writer`` role."""

    async def write(request: ChainRequest) -> ChainCode:
        return await scope.ask("chain_writer", ChainCode, task_id=request.task_id, end_tool=request.end_tool,
                                 hint=" -> ".join(request.hint), subject=request.subject or "(none)",
                                 anchor=json.dumps(request.anchor, sort_keys=True, ensure_ascii=False),
                                 nearby="\n".join(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in request.nearby),
                                 tools="\n".join(json.dumps(t, sort_keys=True) for t in request.tools),
                                 tables="\n".join(json.dumps(t, sort_keys=True) for t in request.tables))

    return write


class SynthesisResult(BaseModel):
    tasks_jsonl: str
    rejected: dict[str, int]
    chain_code: dict[str, int] = Field(default_factory=dict)


async def run_tasks(run: RunContext, package_dir: Path, domain: str) -> TasksResult:
    """Synthesise ``--tasks`` verified tasks for the package in ``package_dir`` and reword them.

    Two stored stages: the synthesis (seconds of replays, and not to be redone when a run
    dies while the tasks are being worded) and the wording (one LLM call per task).
    """
    settings = run.settings
    if settings.tasks <= 0:
        return TasksResult(tasks_jsonl="", stats=TaskStats(status="skipped (--tasks 0)"))
    try:
        from scaleenv_mcp.generator.tasks import synthesize_tasks
    except ImportError as error:  # task synthesis is a separate part of the project
        return TasksResult(tasks_jsonl="", stats=TaskStats(status=f"skipped: task synthesis not available ({error})"))

    async def synthesise(scope: StageScope) -> SynthesisResult:
        target = run.workdir / "synthesis" / "tasks.jsonl"  # not in the package until worded and verified
        target.parent.mkdir(parents=True, exist_ok=True)
        report = await synthesize_tasks(package_dir, settings.tasks, settings.seed, out=target, workers=SYNTH_WORKERS,
                                        gate=llm_gate(scope), writer=llm_chain_writer(scope))
        return SynthesisResult(tasks_jsonl=target.read_text(), rejected=report.rejected, chain_code=report.chain_code)

    async def word(scope: StageScope) -> TasksResult:
        tasks = parse_tasks(synthesised.tasks_jsonl)
        package = load_domain(package_dir)
        reworded, wording = await reword_tasks(tasks, llm_task_writer(scope), package.manifest, package.seed)
        rejected: Counter[str] = Counter(synthesised.rejected)
        rejected.update({reason: count for reason, count in wording.items() if reason != "accepted"})
        final = sorted(reworded, key=lambda t: t.id)
        stats = TaskStats(status="done", requested=settings.tasks, kept=len(final), rejected=dict(sorted(rejected.items())),
                          chain_code=synthesised.chain_code)
        return TasksResult(tasks_jsonl="".join(t.to_line() + "\n" for t in final), stats=stats)

    inputs = {"package": package_hash(package_dir), "graph": (package_dir / "graph.json").read_text()
              if (package_dir / "graph.json").exists() else "", "n": settings.tasks, "seed": settings.seed}
    synthesised = await run.stage("tasks/synthesis", inputs, SynthesisResult, synthesise)
    wording_inputs = {"tasks": synthesised.tasks_jsonl, "domain": domain, "check": CHECK_VERSION}
    return await run.stage("tasks/wording", wording_inputs, TasksResult, word)
