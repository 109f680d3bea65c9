"""A mutant's cases stop at its first unexpected failure: one is enough to kill it, and the tally
counts a mutant with fewer records than cases as killed, so the report is the same as a full run's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.procedural.report import CaseKind
from scaleenv_mcp.procedural.runner import CaseRunner
from scaleenv_mcp.procedural.validate import load_cases
from scaleenv_mcp.workers.pool import WorkerPool

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


@pytest.mark.anyio
async def test_a_mutant_run_ends_at_its_first_unexpected_failure():
    package = load_domain(FIXTURE)
    bundle = DomainRuntime(package).bundle
    source = package.tools_source.replace("def find_books(ctx, text: str, available_only: bool = False) -> dict:\n",
                                          "def find_books(ctx, text: str, available_only: bool = False) -> dict:\n"
                                          "    return {'items': []}\n", 1)
    assert source != package.tools_source
    mutant = dataclasses.replace(bundle, content_hash="mutant", tools_source=source, base_hash=bundle.content_hash)
    cases = [c for c in load_cases(package) if c.tool == "find_books"]
    specs = {t.name: t for t in package.manifest.tools}
    pool = WorkerPool(1)
    pool.start()
    try:
        runner = CaseRunner(pool, 5.0)
        assert await runner.load(bundle) is None
        every = await runner.run(mutant, specs, cases)
        stopped = await runner.run(mutant, specs, cases, until_failure=True)
    finally:
        pool.stop()
    kinds = [r.kind for r in every]
    first = kinds.index(CaseKind.unexpected_failure)
    assert len(every) == len(cases) and kinds.count(CaseKind.unexpected_failure) >= 2
    assert [(r.name, r.kind) for r in stopped] == [(r.name, r.kind) for r in every[:first + 1]]
