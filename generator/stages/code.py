"""Stage 5: procedural testing, per tool (paper phase 1, step 5), with a cap we publish.

For each tool: the code agent writes the function; the test agent, from the specification
alone, writes its cases with fixtures and expected state changes; the core's validation
engine (the same one behind ``scaleenv validate``) runs them on a one-tool package in the
workdir; on any finding or Unexpected Failure the debug agent gets the report verbatim
(problems, traceback, expected and actual changes) and returns a fixed tool and/or fixed
cases. At most ``max_rounds`` debug rounds; a tool that never passes is dropped and the
reason recorded. Tools run in parallel under ``--concurrency``; each tool's result is a
stored stage, so a restart re-validates nothing that finished.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.domain.cases import ToolCase
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.generator.drafts import DebugFix, DomainCard, ToolCode, ToolTests
from scaleenv_mcp.generator.gathering import gather_all
from scaleenv_mcp.generator.llm import LLMOutputError
from scaleenv_mcp.generator.prompting import prompt_fragment
from scaleenv_mcp.generator.report import ToolOutcome
from scaleenv_mcp.generator.stages.context import RunContext, StageScope
from scaleenv_mcp.generator.stages.database import DatabaseResult
from scaleenv_mcp.generator.stages.package import build_manifest, render_tools_py, write_package
from scaleenv_mcp.procedural.cache import ValidationCache
from scaleenv_mcp.procedural.report import ValidationReport
from scaleenv_mcp.procedural.validate import validate_domain

__all__ = ["ToolResult", "report_for_debugger", "run_procedural"]

_ROWS_FOR_TESTS = 40
_TRACEBACK_CHARS = 2500


class ToolResult(BaseModel):
    tool: ToolSpec
    code: str = ""
    cases: list[ToolCase] = []
    outcome: ToolOutcome


def report_for_debugger(report: ValidationReport) -> dict[str, Any]:
    """The parts of a validation report the debug agent needs, verbatim but bounded."""
    failures = []
    for record in report.failures:
        item = record.model_dump(mode="json", exclude={"reads", "writes", "fingerprint"}, exclude_none=True)
        if record.traceback:
            item["traceback"] = record.traceback[-_TRACEBACK_CHARS:]
        failures.append(item)
    summary: dict[str, Any] = {"cases": report.cases, "unexpected_failures": report.unexpected_failures,
                               "findings": [f.model_dump(mode="json", exclude_none=True) for f in report.findings],
                               "failures": failures}
    if report.runaway:  # fail fast (#30): the first runaway case decides, the rest were not run
        summary["runaway"] = report.runaway
        summary["skipped"] = [f"{r.name}: {r.problems[0]}" for r in report.skipped]
    return summary


def _passes(report: ValidationReport) -> bool:
    return report.servable and report.cases > 0


def _gist(report: ValidationReport) -> str:
    reasons = [report.runaway] if report.runaway else []
    reasons += [f"{f.check}: {f.reason}" for f in report.findings]
    reasons += [f"{r.name}: {'; '.join(r.problems)}" for r in report.failures]
    return "; ".join(reasons)[:300] or "no cases ran"


def _normalise_cases(cases: list[ToolCase], tool: str) -> list[ToolCase]:
    """Force the tool name and make case names unique (validation refuses duplicates)."""
    seen: dict[str, int] = {}
    fixed = []
    for case in cases:
        name = case.name if case.name.startswith(tool) else f"{tool}: {case.name}"
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name} ({seen[name]})"
        fixed.append(case.model_copy(update={"tool": tool, "name": name}))
    return fixed


class _ToolWork:
    """One tool's loop: write, test, validate, debug."""

    def __init__(self, run: RunContext, card: DomainCard, db: DatabaseResult, tool: ToolSpec) -> None:
        self.run, self.card, self.db, self.tool = run, card, db, tool
        touched = sorted(set(tool.reads) | set(tool.writes))
        self.common = {"tool_name": tool.name, "clock": run.settings.clock, "schema_sql": db.schema_sql,
                       "tool": tool.model_dump(mode="json")}
        self.rows = db.rows_of(touched, _ROWS_FOR_TESTS)
        self.samples = db.rows_of(touched, 3)

    async def validate(self, code: str, cases: list[ToolCase], round_: int) -> ValidationReport:
        settings = self.run.settings
        folder = self.run.workdir / "procedural" / self.tool.name / f"round-{round_}" / settings.slug
        manifest = build_manifest(settings, self.card, self.db.draft.tables, self.db.draft.policy, [self.tool],
                                  model="n/a", date="n/a", principals=self.db.draft.principals)
        write_package(folder, manifest, self.db.schema_sql, self.db.seed, render_tools_py(self.card.title, [code]),
                      cases)
        return await validate_domain(folder, mutation=False, determinism=False, workers=1,
                                     timeout=settings.case_timeout, cache=ValidationCache(self.run.workdir / "state"))

    async def __call__(self, scope: StageScope) -> ToolResult:
        name, rules = self.tool.name, prompt_fragment("rules_tools")
        try:
            code = (await scope.ask("code", ToolCode, context={"tool": name}, rules=rules, samples=self.samples,
                                    **self.common)).code
            cases = (await scope.ask("tests", ToolTests, rules=prompt_fragment("rules_tests"), rows=self.rows,
                                     next_ids=self.db.next_ids(), **self.common)).cases
        except LLMOutputError as error:
            return ToolResult(tool=self.tool, outcome=ToolOutcome(tool=name, passed=False, first_try=False,
                                                                  repair_rounds=0, dropped_reason=error.message))
        cases = _normalise_cases(cases, name)
        report = await self.validate(code, cases, 0)
        first_try, rounds = _passes(report), 0
        while not _passes(report) and rounds < self.run.settings.max_rounds:
            rounds += 1
            try:
                fix = await scope.ask("debug", DebugFix, context={"tool": name}, rules=rules,
                                      test_rules=prompt_fragment("rules_tests"), round=str(rounds), code=code,
                                      cases=[c.model_dump(mode="json", exclude_none=True) for c in cases],
                                      report=json.dumps(report_for_debugger(report), indent=1, sort_keys=True),
                                      rows=self.rows, next_ids=self.db.next_ids(), **self.common)
            except LLMOutputError:
                continue  # a wasted round: the cap still bounds the loop
            code = fix.code or code
            cases = _normalise_cases(fix.cases, name) if fix.cases else cases
            if fix.reads is not None or fix.writes is not None:
                known = {t.name for t in self.db.draft.tables}
                self.tool = self.tool.model_copy(update={
                    "reads": sorted(set(fix.reads if fix.reads is not None else self.tool.reads) & known),
                    "writes": sorted(set(fix.writes if fix.writes is not None else self.tool.writes) & known)})
                self.common["tool"] = self.tool.model_dump(mode="json")
            report = await self.validate(code, cases, rounds)
        passed = _passes(report)
        outcome = ToolOutcome(tool=name, passed=passed, first_try=first_try, repair_rounds=rounds, cases=len(cases),
                              dropped_reason=None if passed else _gist(report))
        return ToolResult(tool=self.tool, code=code, cases=cases, outcome=outcome)


async def run_procedural(run: RunContext, card: DomainCard, db: DatabaseResult, tools: list[ToolSpec]
                         ) -> list[ToolResult]:
    """Every tool through its loop, ``--concurrency`` at a time; results in tool order."""
    in_flight = asyncio.Semaphore(max(1, run.settings.concurrency))
    inputs = {"card": card.model_dump(), "db": db.model_dump(mode="json"), "rounds": run.settings.max_rounds,
              "clock": run.settings.clock}

    async def one(tool: ToolSpec) -> ToolResult:
        async with in_flight:
            return await run.stage(f"procedural/{tool.name}", {**inputs, "tool": tool.model_dump(mode="json")},
                                   ToolResult, _ToolWork(run, card, db, tool))

    return await gather_all(one(t) for t in tools)
