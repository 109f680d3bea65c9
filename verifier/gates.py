"""The admission gates a task must pass, run on one task over one transport.

- ``package_hash``: the task was verified against the package as it is now.
- ``gold_replay``: the reference actions all succeed and score reward 1.
- ``gold_fingerprint``: and reach exactly the recorded gold end state.
- ``grounding``: every argument is obtainable from the user's facts or an earlier result.
- ``realism``: one principal acts in every gold write (the persona, when the task names one),
  the user's words name no internal id (persona tasks), every communicate fact is in a gold
  result (``scaleenv_mcp.verifier.realism``).
- ``do_nothing``: an agent that does nothing scores 0 (also catches a goal already met). A
  refusal task's gold is no change, so it holds there only when the task scores the reason the
  agent must give (its ``communicate`` facts); without them it is not run.
- ``forbidden`` (refusal tasks): doing what the user asked runs (the rule is the policy's, not
  the tool's) and scores 0.
- ``distractor``: the actions aimed at a distractor row score 0 or are refused.
- ``argument``: each argument of each state-changing action changed scores 0 or is refused.
- ``determinism``: a replay on workers under another PYTHONHASHSEED reaches the same state
  (run for a whole batch at once, see ``scaleenv_mcp.verifier.determinism``).
The variant gates run only when the gold replay passed; they would say nothing otherwise.
"""

from __future__ import annotations

import time
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import HarnessError
from scaleenv_mcp.verifier.grounding import check_grounding
from scaleenv_mcp.verifier.perturb import argument_variants, distractor_variants
from scaleenv_mcp.verifier.realism import start_rows, task_problems
from scaleenv_mcp.verifier.replay import ReplayOutcome, Transport, replay_actions

__all__ = ["GATES", "GateResult", "TaskVerdict", "environment_verdict", "verify_guarded", "verify_task"]

GATES = ("package_hash", "gold_replay", "gold_fingerprint", "grounding", "realism", "do_nothing", "forbidden",
         "distractor", "argument", "determinism")


class GateResult(BaseModel):
    gate: str
    passed: bool
    detail: str = ""


class TaskVerdict(BaseModel):
    task_id: str
    passed: bool
    gates: list[GateResult] = Field(default_factory=list)
    reward: float | None = Field(default=None, description="Reward of the gold replay.")
    fingerprint: str | None = Field(default=None, description="End state of the gold replay.")
    variants: int = Field(default=0, description="Perturbed replays run.")
    seconds: float = 0.0

    @property
    def failed_gates(self) -> list[str]:
        return [g.gate for g in self.gates if not g.passed]

    def add(self, gate: str, passed: bool, detail: str = "") -> None:
        self.gates.append(GateResult(gate=gate, passed=passed, detail=detail[:500]))
        self.passed = all(g.passed for g in self.gates)


def _rejected(outcome: ReplayOutcome) -> bool:
    return outcome.errors > 0 or outcome.reward is None or outcome.reward.reward == 0.0


async def verify_task(task: Task, transport: Transport, manifest: DomainManifest, package_hash: str | None,
                      seed: dict[str, list[dict[str, Any]]] | None = None) -> TaskVerdict:
    """Run every per-task gate; ``package_hash`` None skips the stamp check (synthesis, before stamping).

    ``seed`` (the package's seed rows) lets the realism gate find internal ids of the seed in a
    persona task's user text; without it only the task's own setup rows are searched.
    """
    started = time.perf_counter()
    verdict = TaskVerdict(task_id=task.id, passed=True)
    if package_hash is not None:
        stamp = task.verified.package_hash if task.verified else None
        verdict.add("package_hash", stamp == package_hash,
                    "" if stamp == package_hash else f"verified against {stamp or 'nothing'}, package is now {package_hash[:12]}: "
                    "the domain changed after verification; re-run synthesis or verification")
    if task.gold is None:
        verdict.add("gold_replay", False, "the task has no gold")
        return verdict
    async with transport.episode(task.id) as session:
        gold = await replay_actions(session, manifest, task, task.actions, reset=False, fingerprint=True)
        assert gold.reward is not None
        verdict.reward, verdict.fingerprint = gold.reward.reward, gold.fingerprint
        refused = [f"action {i} {r.tool}: {r.error}" for i, r in enumerate(gold.results) if not r.ok]
        ok = not refused and gold.reward.reward == 1.0
        verdict.add("gold_replay", ok, "; ".join(refused)[:300] or ("" if ok else gold.reward.explain()))
        verdict.add("gold_fingerprint", gold.fingerprint == task.gold.fingerprint,
                    "" if gold.fingerprint == task.gold.fingerprint else
                    f"replay reached {(gold.fingerprint or '')[:12]}, gold says {task.gold.fingerprint[:12]}")
        problems = check_grounding(task, gold.results, manifest, start_rows(seed, task) if seed is not None else None)
        verdict.add("grounding", not problems, "; ".join(problems[:3]))
        problems = task_problems(task, manifest, seed, [r.result for r in gold.results])
        verdict.add("realism", not problems, "; ".join(problems[:3]))
        if not ok:
            verdict.seconds = round(time.perf_counter() - started, 3)
            return verdict
        if task.kind == "refusal":
            # Doing what the user asked must run (the rule is the policy's, not the tool's) and score 0.
            broken = await replay_actions(session, manifest, task, [*task.actions, *task.meta.forbidden])
            ran = bool(task.meta.forbidden) and all(r.ok for r in broken.results)
            scored = broken.reward.reward if broken.reward else 1.0
            verdict.add("forbidden", ran and scored == 0.0,
                        "" if ran and scored == 0.0 else "the forbidden call was refused by the tool" if not ran
                        else "doing what the rule forbids still scores 1")
        if task.kind != "refusal" or task.communicate:
            idle = await replay_actions(session, manifest, task, [])
            idle_score = idle.reward.reward if idle.reward else 1.0
            verdict.add("do_nothing", idle_score == 0.0,
                        "" if idle_score == 0.0 else "doing nothing already scores 1: the goal is met in the start state")
        for gate, variants in (("distractor", distractor_variants(task, manifest)),
                               ("argument", argument_variants(task, manifest))):
            slipped = []
            for variant in variants:
                verdict.variants += 1
                if not _rejected(await replay_actions(session, manifest, task, variant.actions, stop_on_refusal=True)):
                    slipped.append(variant.description)
            verdict.add(gate, not slipped, ("still scores 1: " + "; ".join(slipped[:3])) if slipped else
                        f"{len(variants)} variants rejected")
    verdict.seconds = round(time.perf_counter() - started, 3)
    return verdict


def environment_verdict(task_id: str, detail: str) -> TaskVerdict:
    """The verdict of a task the harness could not check: it fails the ``environment`` gate (exit 3)."""
    verdict = TaskVerdict(task_id=task_id, passed=False)
    verdict.add("environment", False, detail)
    return verdict


async def verify_guarded(task: Task, transport: Transport, manifest: DomainManifest, package_hash: str | None,
                         seed: dict[str, list[dict[str, Any]]] | None) -> TaskVerdict:
    """``verify_task``, with a failure of the harness (host, transport) as the task's ``environment`` gate
    rather than an exception: one task's lost episode must not end the run (here or in a Ray task)."""
    try:
        return await verify_task(task, transport, manifest, package_hash, seed)
    except HarnessError as error:
        return environment_verdict(task.id, f"{error.code}: {error.message}")
    except Exception as error:  # a transport failure (HTTP, MCP client): the harness, not the task
        return environment_verdict(task.id, f"{type(error).__name__}: {error}")
