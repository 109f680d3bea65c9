"""Run procedural test cases in worker processes and classify each run.

Tool code under validation is as untrusted as served tool code, so cases run in the same
kind of worker (fresh interpreters with memory and wall-time budgets), never here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.procedural.cases import CaseOutcome, ToolCase
from scaleenv_mcp.procedural.matching import match_changes, match_result
from scaleenv_mcp.procedural.report import CaseKind, CaseRecord
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.workers.pool import WorkerHandle, WorkerLostError, WorkerPool
from scaleenv_mcp.workers.protocol import OK, TOOL_ERROR, CallReply, DomainBundle

__all__ = ["CaseRunner"]


class CaseRunner:
    """Runs cases of one bundle (or of its mutants) over a pool, one request per case."""

    def __init__(self, pool: WorkerPool, timeout: float) -> None:
        self.pool = pool
        self.timeout = timeout

    async def _on(self, worker: WorkerHandle, bundle: DomainBundle, case: ToolCase) -> tuple[CallReply, dict | None, str | None]:
        async with worker.lock:
            await worker.ensure_domain(bundle, self.timeout * 4)
            status, payload = await worker.request(
                ("case", bundle.content_hash, case.fixture.base == "seed",
                 [op.model_dump(mode="json") for op in case.fixture.rows], case.tool, case.arguments), self.timeout)
        if status != OK:
            raise RuntimeError(str(payload))
        return payload

    async def run(self, bundle: DomainBundle, specs: dict[str, ToolSpec], cases: Sequence[ToolCase]) -> list[CaseRecord]:
        """Run every case, spread over the pool's workers; results in the order of ``cases``."""
        queue: asyncio.Queue[int] = asyncio.Queue()
        for index in range(len(cases)):
            queue.put_nowait(index)
        records: list[CaseRecord | None] = [None] * len(cases)

        async def drain(worker: WorkerHandle) -> None:
            while not queue.empty():
                index = queue.get_nowait()
                records[index] = await self.run_one(worker, bundle, specs, cases[index])

        await asyncio.gather(*(drain(w) for w in self.pool.workers))
        return [r for r in records if r is not None]

    async def forget(self, bundle: DomainBundle) -> None:
        for worker in self.pool.workers:
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
            record.problems.append(f"stopped by the environment: {lost.reason}")
            return record
        except RuntimeError as error:
            record.problems.append(f"worker error: {str(error).splitlines()[0]}")
            return record
        record.actual_changes, record.fingerprint = diff, fingerprint
        record.reads, record.writes = list(reply.reads), list(reply.writes)
        record.result = reply.result
        record.traceback = reply.detail
        expect = case.expect
        if reply.status == OK:
            if expect.outcome is CaseOutcome.rejection:
                record.problems.append(f"expected error {expect.error}, but the call succeeded")
                return record
            record.problems += match_result(expect.result or {}, reply.result)
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
        return record
