"""Run procedural test cases in worker processes and classify each run.

Tool code under validation is as untrusted as served tool code, so cases run in the same
kind of worker (fresh interpreters with memory and wall-time budgets), never here.

Fail fast (issue #30): a case that runs away (past its wall-time or memory budget, its worker
dead, endless recursion) marks its tool failed with that reason and the tool's remaining cases
are skipped, each record saying why; other tools go on. Workers prefer cases of tools with
nothing in flight, so a tool that loops on every input costs one budget, not one per worker.
A whole-run ``RunBudget`` caps everything: past it, the remaining cases are skipped.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from scaleenv_mcp.domain.cases import CaseOutcome, ToolCase
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.procedural.matching import match_changes, match_result
from scaleenv_mcp.procedural.report import CaseKind, CaseRecord
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.workers.pool import WorkerHandle, WorkerLostError, WorkerPool
from scaleenv_mcp.workers.protocol import OK, TOOL_ERROR, CallReply, DomainBundle

__all__ = ["CaseRunner", "RunBudget", "skipped_record"]

#: Loading tools.py in a worker (interpreter start included) may take this many case budgets.
LOAD_BUDGETS = 4
#: A fresh worker interpreter may take this long to start on a loaded machine.
_STARTUP_SECONDS = 60.0
#: Faults that say the tool ran away rather than answered wrongly.
_RUNAWAY_FAULTS = ("RecursionError", "MemoryError")


class RunBudget:
    """The whole run's wall-time budget: every request is capped by what is left of it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def cap(self, timeout: float) -> float:
        """``timeout``, or what is left of the run when that is less (never below a millisecond)."""
        return max(0.001, min(timeout, self.deadline - time.monotonic()))

    @property
    def exhausted(self) -> bool:
        return time.monotonic() >= self.deadline

    @property
    def reason(self) -> str:
        return f"the validation budget of {self.seconds:g} s ran out"


def skipped_record(case: ToolCase, why: str) -> CaseRecord:
    """A case that was not run, and why (the report lists every case, run or not)."""
    return CaseRecord(name=case.name, tool=case.tool, kind=CaseKind.skipped, problems=[f"skipped: {why}"])


def _runaway_fault(message: str) -> bool:
    return message.startswith(_RUNAWAY_FAULTS)


class CaseRunner:
    """Runs cases of one bundle (or of its mutants) over a pool, one request per case.

    ``stop_on_runaway`` (the serving gate, which needs a verdict, not a full report) skips
    every remaining case once any tool has run away.
    """

    def __init__(self, pool: WorkerPool, timeout: float, budget: RunBudget | None = None,
                 stop_on_runaway: bool = False, on_case: Callable[[int, int], None] | None = None) -> None:
        self.pool = pool
        self.timeout = timeout
        self.budget = budget or RunBudget(float("inf"))
        self.stop_on_runaway = stop_on_runaway
        self.on_case = on_case  # (cases done, cases in the run) after each case: progress displays

    async def _on(self, worker: WorkerHandle, bundle: DomainBundle, case: ToolCase) -> tuple[CallReply, dict[str, Any] | None, str | None]:
        async with worker.lock:
            await worker.ensure_domain(bundle, self.budget.cap(self.timeout * LOAD_BUDGETS))
            status, payload = await worker.request(
                ("case", bundle.content_hash, case.fixture.base == "seed",
                 [op.model_dump(mode="json") for op in case.fixture.rows], case.tool, case.arguments),
                self.budget.cap(self.timeout))
        if status != OK:
            raise RuntimeError(str(payload))
        reply, diff, fingerprint = payload
        return CallReply(*reply), diff, fingerprint

    async def load(self, bundle: DomainBundle) -> str | None:
        """Load ``bundle`` on every worker at once, within one load budget: None, or why it did not load.

        Done once before the cases, so a module-level bomb in tools.py (a CPU or memory bomb at
        import) costs one budget, not one per case.
        """
        async def one(worker: WorkerHandle) -> str | None:
            try:
                async with worker.lock:
                    # the interpreter's start is not the package's fault: wait for it first
                    await worker.request(("ping",), self.budget.cap(_STARTUP_SECONDS))
                    await worker.ensure_domain(bundle, self.budget.cap(self.timeout * LOAD_BUDGETS))
            except WorkerLostError as lost:
                return None if self.budget.exhausted else lost.reason  # the cases are skipped for the budget
            except RuntimeError as error:
                return str(error).splitlines()[0]
            return None

        problems = await asyncio.gather(*(one(w) for w in self.pool.workers))
        return next((p for p in problems if p), None)

    async def run(self, bundle: DomainBundle, specs: dict[str, ToolSpec], cases: Sequence[ToolCase],
                  workers: Sequence[WorkerHandle] | None = None, until_failure: bool = False) -> list[CaseRecord]:
        """Run every case, spread over the pool's workers (or only over ``workers``); results in the order of ``cases``.

        Every case gets a record: run, or skipped with the reason (its tool ran away first,
        the gate stopped at a runaway tool, or the run's budget ran out). ``until_failure``
        (a mutant's run) stops at the first unexpected failure: one is enough to kill a mutant,
        and the cases left unrun have no record, so fewer records than cases also means killed.
        """
        pending = list(range(len(cases)))
        records: list[CaseRecord | None] = [None] * len(cases)
        in_flight: Counter[str] = Counter()
        stopped: dict[str, str] = {}  # tool -> the case that ran away and why
        changed = asyncio.Condition()  # a case finished: its tool is free, or stopped

        def why_skip(tool: str) -> str | None:
            if tool in stopped:
                return f"{tool} already ran away on case {stopped[tool]}"
            if self.stop_on_runaway and stopped:
                return f"validation stopped at the first runaway tool ({next(iter(stopped))})"
            return self.budget.reason if self.budget.exhausted else None

        def ready() -> int | None:
            # never two cases of one tool at once: a tool that runs away on every input then
            # costs one budget, not one per worker (cases to skip are always ready)
            return next((position for position, index in enumerate(pending)
                         if not in_flight[cases[index].tool] or why_skip(cases[index].tool)), None)

        def report_progress() -> None:
            if self.on_case is not None:
                self.on_case(sum(r is not None for r in records), len(cases))

        async def drain(worker: WorkerHandle) -> None:
            while True:
                async with changed:
                    await changed.wait_for(lambda: not pending or ready() is not None)
                    if not pending:
                        return
                    index = pending.pop(ready())  # type: ignore[arg-type]
                    case = cases[index]
                    why = why_skip(case.tool)
                    if why is None:
                        in_flight[case.tool] += 1
                if why is not None:
                    records[index] = skipped_record(case, why)
                    report_progress()
                    continue
                record = None
                try:
                    record = records[index] = await self.run_one(worker, bundle, specs, case)
                finally:
                    async with changed:  # stopped is updated before anyone waiting looks again
                        in_flight[case.tool] -= 1
                        if record is not None and record.runaway and case.tool not in stopped:
                            stopped[case.tool] = f"{case.name!r} ({record.runaway})"
                        if until_failure and record is not None and record.kind is CaseKind.unexpected_failure:
                            pending.clear()
                        changed.notify_all()
                    report_progress()

        await asyncio.gather(*(drain(w) for w in (self.pool.workers if workers is None else workers)))
        return [r for r in records if r is not None]

    async def forget(self, bundle: DomainBundle, workers: Sequence[WorkerHandle] | None = None) -> None:
        for worker in self.pool.workers if workers is None else workers:
            if bundle.content_hash in worker.domains:
                async with worker.lock:
                    await worker.request(("forget", bundle.content_hash), self.timeout)
                worker.domains.discard(bundle.content_hash)

    async def run_one(self, worker: WorkerHandle, bundle: DomainBundle, specs: dict[str, ToolSpec],
                      case: ToolCase) -> CaseRecord:
        record = CaseRecord(name=case.name, tool=case.tool, kind=CaseKind.unexpected_failure,
                            expected_changes=case.expect.changes.model_dump(mode="json") if case.expect.changes else None)
        if case.tool not in specs:
            record.problems.append(f"unknown tool {case.tool!r}")
            return record
        try:
            reply, diff, fingerprint = await self._on(worker, bundle, case)
        except WorkerLostError as lost:
            if self.budget.exhausted:  # cut short by the run's budget, not by its own
                return skipped_record(case, f"{self.budget.reason} while it ran")
            record.problems.append(f"stopped by the environment: {lost.reason}")
            record.runaway = lost.reason
            return record
        except RuntimeError as error:
            message = str(error).splitlines()[0]
            record.problems.append(f"worker error: {message}")
            record.runaway = message if _runaway_fault(message) else None
            return record
        record.actual_changes, record.fingerprint = diff, fingerprint
        record.reads, record.writes = list(reply.reads), list(reply.writes)
        record.result = json.loads(reply.result_json) if reply.result_json is not None else None
        record.traceback = reply.detail
        expect = case.expect
        if reply.status == OK:
            if expect.outcome is CaseOutcome.rejection:
                record.problems.append(f"expected error {expect.error}, but the call succeeded")
                return record
            record.problems += match_result(expect.result or {}, record.result)
            record.problems += match_changes(expect.changes, StateDiff.model_validate(diff))
            if not record.problems:
                record.kind = CaseKind.success
            return record
        if reply.status == TOOL_ERROR:
            record.error = f"{reply.error_code}: {reply.message}"
            declared = {e.code for e in specs[case.tool].raises}
            if reply.error_code not in declared:
                record.problems.append(f"raised undeclared error {reply.error_code} ({reply.message})")
            elif expect.outcome is CaseOutcome.success:
                record.problems.append(f"expected success, got {reply.error_code}: {reply.message}")
            elif expect.error not in (None, reply.error_code):
                record.problems.append(f"expected error {expect.error}, got {reply.error_code}: {reply.message}")
            else:
                record.kind = CaseKind.anticipated_rejection
            return record
        record.problems.append(reply.message or "fault")
        if _runaway_fault(reply.message or ""):
            record.runaway = (reply.message or "").splitlines()[0][:200]
        return record
