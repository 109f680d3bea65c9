"""``scaleenv tasks synth``: synthesise verified tasks for a domain by graph expansion (paper phase 2).

Candidates are built in rounds (``scaleenv_mcp.generator.synthesis.candidate``), each one put through
the verifier's gates in memory (``scaleenv_mcp.verifier.gates.verify_task``) and, per round, the
determinism gate on workers under another PYTHONHASHSEED. Only tasks that pass everything are kept, stamped
with the package's content hash, and written sorted by id with ``Task.to_line()``: the same
domain and seed give a byte-identical file, whatever PYTHONHASHSEED or the worker count
(tests/unit/generator/test_synthesis.py runs it twice to check).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task, VerifiedRecord
from scaleenv_mcp.generator.diversity import diversity_report
from scaleenv_mcp.generator.synthesis.building import RoundResult
from scaleenv_mcp.generator.synthesis.candidate import Rejection, assign_splits
from scaleenv_mcp.generator.synthesis.chain_code import ChainWriter
from scaleenv_mcp.generator.synthesis.gate import ChainGate
from scaleenv_mcp.generator.synthesis.hosting import synthesis_hosting
from scaleenv_mcp.generator.synthesis.quotas import kind_targets, select_by_kind, shortfall
from scaleenv_mcp.verifier.gates import GATES, TaskVerdict
from scaleenv_mcp.verifier.verify import apply_determinism

if TYPE_CHECKING:  # the LLM client is imported only when a run rewords
    from scaleenv_mcp.generator.synthesis.rewording import WordingAsker

__all__ = ["TaskSynthReport", "synthesize_tasks", "write_tasks"]

Progress = Callable[[int, int], None]


class TaskSynthReport(BaseModel):
    domain: str
    seed: int
    requested: int
    produced: int
    candidates: int = Field(description="Candidates built and checked.")
    passed: int = Field(description="Candidates that passed every gate (those past n are dropped: the file keeps the first n).")
    rejected: dict[str, int] = Field(default_factory=dict, description="Candidates dropped, by first failing step or gate.")
    examples: dict[str, list[str]] = Field(default_factory=dict, description="Up to 3 rejected candidates per reason, with why.")
    difficulty: dict[str, int] = Field(default_factory=dict)
    splits: dict[str, int] = Field(default_factory=dict)
    tools_used_share: float = Field(description="Share of the domain's tools that appear in some task's actions.")
    expansion_target_reached: float = Field(description="Share of tasks whose |H| reached min(20, tools).")
    chain_code: dict[str, int] = Field(default_factory=dict, description="Seed chains a writer wrote as code: used, "
                                       "refused by the parser, failed to run (the sampled chain was used instead).")
    chain_code_examples: dict[str, str] = Field(default_factory=dict, description="The first refusal and failure, why.")
    further_chains: dict[str, int] = Field(default_factory=dict, description="Errands after the first, of the same "
                                           "story (scaleenv_mcp.generator.synthesis.story): kept, declined by the gate, no writer "
                                           "left for the story, failed to run, ran but off the story, undid an earlier "
                                           "errand's row (scaleenv_mcp.generator.synthesis.story.written_rows).")
    wording: dict[str, int] = Field(default_factory=dict, description="LLM rewordings (with a model): accepted, "
                                    "and refused per check (the template wording was kept).")
    seconds: float
    tasks_per_second: float
    package_hash: str
    out: str | None = None


def write_tasks(tasks: list[Task], path: Path) -> None:
    path.write_text("".join(t.to_line() + "\n" for t in sorted(tasks, key=lambda t: t.id)))


def _first_failure(verdict: TaskVerdict) -> str:
    failed = verdict.failed_gates
    return next((g for g in (*GATES, "environment") if g in failed), failed[0] if failed else "unknown")


async def synthesize_tasks(domain_path: Path, n: int, seed: int, out: Path | None = None, workers: int | None = None,
                           max_candidates: int | None = None, progress: Progress | None = None,
                           determinism: bool = True, gate: ChainGate | None = None,
                           writer: ChainWriter | None = None, wording: WordingAsker | None = None,
                           ray: str | None = None, hosts: int | None = None) -> TaskSynthReport:
    """Synthesise ``n`` verified tasks (fewer if the candidate budget runs out) and write them.

    Args:
        out: the file to write; default the package's tasks.jsonl.
        workers: worker processes of the host (with ``ray``, of each host actor).
        max_candidates: candidate budget, default max(4 n, n + 40).
        gate: decides whether a task grows by a further chain; default the offline ``RuleGate``.
        writer: writes each candidate's seed chain as code (the generator's LLM mode); without
            one, seed chains are sampled from the graph.
        wording: asks an LLM to reword each kept task's user side (``scaleenv_mcp.generator.synthesis.rewording``
            checks it); without one, the template wording is written.
        ray, hosts: build and verify each round's candidates inside ``hosts`` host actors of the Ray cluster
            at ``ray`` (local, auto or host:port; docs/cluster.md): the same file and report but for the
            timings. Offline mode only (no ``writer``, no ``gate`` of one's own).

    Raises:
        EnvironmentFaultError: the domain is not served; Ray missing or unreachable; a host actor lost
            mid-run (nothing is written then).
        UsageError: ``hosts`` without ``ray``; ``ray`` with a ``writer`` or a ``gate``.
    """
    started = time.perf_counter()
    package = load_domain(domain_path)
    budget = max_candidates or max(4 * n, n + 40)
    accepted: dict[int, Task] = {}
    rejected: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}

    def reject(reason: str, index: int, detail: str) -> None:
        rejected[reason] += 1
        if len(examples.setdefault(reason, [])) < 3:
            examples[reason].append(f"candidate {index}: {detail}"[:300])

    tried = skipped = 0
    totals = RoundResult([])  # the builders' counters over every round (its outcomes stay empty)
    async with synthesis_hosting(package, seed, workers, ray, hosts, gate, writer) as builds:
        targets = kind_targets(n, builds.kinds)

        def missing() -> int:
            return sum(shortfall(accepted, targets).values())

        while missing() and tried - skipped < budget:  # the budget counts candidates built, not skipped
            full = {kind for kind, short in shortfall(accepted, targets).items() if not short}
            size = min(budget - (tried - skipped), max(8, math.ceil(missing() * 1.3)))
            batch = range(tried, tried + size)
            tried += size
            result = await builds.build(batch, full)
            totals.add_counters(result)
            passing: list[tuple[int, Task, TaskVerdict]] = []
            for index, built, verdict in result.outcomes:
                if isinstance(built, Rejection) and built.reason == "kind_full":
                    skipped += 1  # not built: its kind had all it needs
                    continue
                if isinstance(built, Rejection):
                    reject(built.reason, index, built.detail)
                elif verdict is not None and not verdict.passed:
                    failed = _first_failure(verdict)
                    reject(failed, index, next((g.detail for g in verdict.gates if g.gate == failed), ""))
                elif verdict is not None:
                    passing.append((index, built, verdict))
            if determinism and passing:
                await apply_determinism(package, [t for _, t, _ in passing], [v for _, _, v in passing])
            for index, task, verdict in passing:
                if verdict.passed:
                    accepted[index] = task
                else:
                    reject("determinism", index, next((g.detail for g in verdict.gates if not g.passed), ""))
            if progress:
                progress(n - missing(), n)
    stamp = VerifiedRecord(package_hash=package.content_hash, result="pass")
    tasks = assign_splits([accepted[i].model_copy(update={"verified": stamp})
                           for i in select_by_kind(accepted, n, targets)])
    worded: dict[str, int] = {}
    if wording is not None:
        from scaleenv_mcp.generator.synthesis.rewording import reword_tasks
        tasks, worded = await reword_tasks(tasks, wording, package.manifest, package.seed)
    target = out or package.path / "tasks.jsonl"
    write_tasks(tasks, target)
    seconds = time.perf_counter() - started
    diversity = diversity_report(package.manifest, tasks)
    return TaskSynthReport(
        domain=package.slug, seed=seed, requested=n, produced=len(tasks), candidates=tried - skipped, passed=len(accepted),
        rejected=dict(sorted(rejected.items())), examples=dict(sorted(examples.items())),
        difficulty=diversity.difficulty, splits=diversity.splits,
        tools_used_share=diversity.tools_used_share,
        expansion_target_reached=round(sum(1 for t in tasks if t.meta.expanded_size >= min(
            20, len([x for x in package.manifest.tools if x.reads or x.writes]))) / len(tasks), 4) if tasks else 0.0,
        seconds=round(seconds, 2), tasks_per_second=round(len(tasks) / seconds, 3) if seconds else 0.0,
        chain_code=dict(sorted(totals.chain_code.items())), chain_code_examples=totals.chain_code_examples,
        further_chains=dict(sorted(totals.further.items())), wording=worded,
        package_hash=package.content_hash, out=str(target))

