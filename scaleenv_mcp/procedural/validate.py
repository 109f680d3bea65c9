"""``scaleenv validate``: prove a domain package safe and correct before it is served.

Stages, each adding findings to one report: load (manifest, schema.sql, seed.json,
signatures), static policy, tests.json coverage, the cases (in worker processes, with
access recording), conformance (declared errors, observed reads and writes), determinism
(success cases again in workers with another PYTHONHASHSEED), and the mutation check.

Failing fast (issue #30): tools.py is loaded once in every worker before any case, so a bomb
at import is one ``load`` finding within one load budget; a tool whose case runs away is
failed with that reason and its other cases skipped; the whole run has a budget (default
scaled to the number of cases), past which the rest is skipped and a ``budget`` finding
refuses the package. The report still lists every case, run or skipped, with the reason.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scaleenv_mcp.domain.cases import CaseOutcome, TestSuite, ToolCase
from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.policy import POLICY_VERSION
from scaleenv_mcp.domain.tool_loader import checked_code
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.errors import DomainError
from scaleenv_mcp.procedural.cache import VALIDATOR_VERSION, ValidationCache, validation_key
from scaleenv_mcp.procedural.contract import check_contract
from scaleenv_mcp.procedural.mutation import build_mutants
from scaleenv_mcp.procedural.report import CaseKind, CaseRecord, Finding, ToolRow, ValidationReport
from scaleenv_mcp.procedural.runner import CaseRunner, RunBudget, skipped_record
from scaleenv_mcp.procedural.seed_shape import check_seed_shape
from scaleenv_mcp.workers.pool import WorkerHandle, WorkerPool
from scaleenv_mcp.workers.protocol import DomainBundle

__all__ = ["VALIDATOR_VERSION", "default_budget", "load_cases", "validate_domain"]

Progress = Callable[[str, int, int], None]

# Seconds the whole run may take by default: a fixed part (worker start, load) and a part per
# case for each stage that runs it. Generous on purpose (2 shared, loaded cores): a real case
# takes milliseconds, and runaways are caught per case long before this backstop.
_BUDGET_BASE = 60.0
_BUDGET_PER_CASE = {"cases": 0.5, "determinism": 0.5, "mutation": 4.0}


def default_budget(cases: int, *, mutation: bool, determinism: bool) -> float:
    """The default whole-run budget for ``cases`` cases and the stages that will run."""
    per_case = _BUDGET_PER_CASE["cases"] + (_BUDGET_PER_CASE["determinism"] if determinism else 0.0) \
        + (_BUDGET_PER_CASE["mutation"] if mutation else 0.0)
    return _BUDGET_BASE + per_case * cases


def load_cases(package: DomainPackage) -> list[ToolCase]:
    path = package.path / "tests.json"
    if not path.exists():
        raise DomainError("tests.json", "missing: every domain needs procedural test cases")
    try:
        return TestSuite.model_validate_json(path.read_text()).cases
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DomainError("tests.json", err["msg"], ".".join(str(p) for p in err["loc"])) from exc


def check_coverage(manifest: DomainManifest, cases: list[ToolCase]) -> list[Finding]:
    """Each tool: 3 cases, a success case (non-empty changes if it writes), a rejection per declared error."""
    findings: list[Finding] = []
    names = [c.name for c in cases]
    for duplicate in sorted({n for n in names if names.count(n) > 1}):
        findings.append(Finding(check="coverage", file="tests.json", reason=f"duplicate case name {duplicate!r}"))
    for tool in manifest.tools:
        mine = [c for c in cases if c.tool == tool.name]
        successes = [c for c in mine if c.expect.outcome is CaseOutcome.success]
        rejections = [c for c in mine if c.expect.outcome is CaseOutcome.rejection]
        problems = []
        if len(mine) < 3:
            problems.append(f"has {len(mine)} cases, needs at least 3")
        if not successes:
            problems.append("has no success case")
        if tool.writes and not any(c.expect.changes and not c.expect.changes.is_empty for c in successes):
            problems.append("writes tables but no success case expects a state change")
        for error in tool.raises:
            same_code = [e for e in tool.raises if e.code == error.code]
            covered = [c for c in rejections if c.expect.error == error.code
                       and (len(same_code) == 1 or c.expect.condition == error.when)]
            if not covered:
                problems.append(f"no rejection case for {error.code} when {error.when!r}")
        findings += [Finding(check="coverage", file="tests.json", tool=tool.name, reason=p) for p in problems]
    known = {t.name for t in manifest.tools}
    for case in cases:
        if case.tool not in known:
            findings.append(Finding(check="coverage", file="tests.json", reason=f"case {case.name!r} calls unknown tool {case.tool!r}"))
    return findings


def check_conformance(manifest: DomainManifest, records: list[CaseRecord]) -> list[Finding]:
    """Observed reads and writes must be declared in the manifest.

    A write to a table that other tables reference makes SQLite look those tables up for the
    foreign keys (always when a statement may write more than one table, which the change-
    tracking triggers make every write): that read is SQLite's, not the tool's, so a table
    referencing one the tool writes is not held against its ``reads``.
    """
    findings = []
    # Only the domain's tables count: SQLite's own (sqlite_master) and table-valued functions
    # (json_each) show up in the authorizer's log but are not the domain's state.
    tables = {t.name for t in manifest.tables}
    children: dict[str, set[str]] = {}
    for table in manifest.tables:
        for key in table.foreign_keys:
            children.setdefault(key.table, set()).add(table.name)
    for tool in manifest.tools:
        mine = [r for r in records if r.tool == tool.name]
        reads = set().union(*(r.reads for r in mine)) & tables if mine else set()
        writes = set().union(*(r.writes for r in mine)) & tables if mine else set()
        if writes - set(tool.writes):
            findings.append(Finding(check="conformance", file="domain.json", tool=tool.name,
                                    reason=f"writes {sorted(writes - set(tool.writes))} not declared in writes"))
        checked = set().union(*(children.get(t, set()) for t in writes))
        undeclared = reads - set(tool.reads) - set(tool.writes) - checked
        if undeclared:
            findings.append(Finding(check="conformance", file="domain.json", tool=tool.name,
                                    reason=f"reads {sorted(undeclared)} not declared in reads"))
    return findings


def _mutant_bundle(bundle: DomainBundle, source: str) -> DomainBundle:
    digest = hashlib.sha256((bundle.content_hash + source).encode()).hexdigest()
    return DomainBundle(digest, bundle.manifest_json, bundle.schema_sql, bundle.seed, source, bundle.content_hash)


async def validate_domain(path: str | Path, *, mutation: bool = True, determinism: bool = True,
                          workers: int = 2, timeout: float = 5.0, progress: Progress | None = None,
                          cache: ValidationCache | None = None, budget: float | None = None,
                          stop_on_runaway: bool = False) -> ValidationReport:
    """Run every check on the package at ``path``; never raises for a broken package.

    ``timeout`` is one case's wall-time budget; ``budget`` the whole run's (None: scaled to
    the number of cases by ``default_budget``). ``stop_on_runaway`` (the serving gate) skips
    everything once one tool ran away: a verdict is all the gate needs.
    """
    report = ValidationReport(domain=Path(path).name, policy_version=POLICY_VERSION, validator_version=VALIDATOR_VERSION)
    try:
        package = load_domain(path)
    except DomainError as error:
        report.findings.append(Finding(check="load", file=error.file, reason=error.message))
        return report
    report.domain, report.package_hash = package.slug, package.content_hash
    policy = checked_code(package.tools_source, "tools.py")[0]  # the check the workers' code comes from
    report.findings += [Finding(check="policy", file=v.file, line=v.line, reason=f"{v.rule}: {v.reason}")
                        for v in policy.violations]
    try:
        cases = load_cases(package)
    except DomainError as error:
        report.findings.append(Finding(check="load", file=error.file, reason=error.message))
        return report
    report.findings += check_coverage(package.manifest, cases)
    report.contract, contract_findings = check_contract(package.manifest, cases)
    report.findings += contract_findings
    report.seed = check_seed_shape(package.manifest, package.seed)
    if not policy.ok:
        return report
    specs = {t.name: t for t in package.manifest.tools}
    bundle = await DomainRuntime(package).worker_bundle()  # the code of the policy check above
    rows = {t.name: ToolRow(tool=t.name) for t in package.manifest.tools}
    report.budget = budget if budget is not None else default_budget(len(cases), mutation=mutation,
                                                                      determinism=determinism)
    run_budget = RunBudget(report.budget)
    pool = WorkerPool(workers, memory_limit=2 * 1024**3, env={"PYTHONHASHSEED": "1"})
    pool.start()
    try:
        runner = CaseRunner(pool, timeout, run_budget, stop_on_runaway,
                            on_case=(lambda done, total: progress("cases", done, total)) if progress else None)
        problem = await runner.load(bundle)
        if problem is not None:
            report.halted = f"tools.py does not load in a worker: {problem}"
            report.findings.append(Finding(check="load", reason=report.halted))
            _tally(rows, [skipped_record(c, "tools.py did not load") for c in cases], report)
        else:
            records = await runner.run(bundle, specs, cases)
            runner.on_case = None  # mutant runs report as "mutants", below
            _tally(rows, records, report)
            report.findings += check_conformance(package.manifest, records)
            if progress:
                progress("cases", len(records), len(records))
            # a tool that ran away (or the budget) already decides the verdict: no rerun, no mutants
            clean = not any(row.stopped_by for row in rows.values()) and not run_budget.exhausted
            if determinism and clean:
                report.findings += await _check_determinism(bundle, specs, cases, records, workers, timeout, run_budget)
            if mutation and clean:
                await _run_mutants(runner, package, bundle, specs, cases, rows, report, progress)
        if run_budget.exhausted:
            report.halted = report.halted or run_budget.reason
            report.findings.append(Finding(check="budget", file="(run)", reason=f"{run_budget.reason} "
                                           "(pass a larger --budget if the domain is only large)"))
    finally:
        pool.stop()
    report.tools = list(rows.values())
    # The serving gate is safety and correctness (no findings, no unexpected failure); the
    # mutation threshold measures test strength and gates shipping, not serving.
    (cache or ValidationCache()).record(validation_key(package), package.slug, report.servable,
                             f"{report.cases} cases, {report.unexpected_failures} unexpected, score {report.mutation_score}")
    return report


def _tally(rows: dict[str, ToolRow], records: list[CaseRecord], report: ValidationReport) -> None:
    for record in records:
        row = rows.get(record.tool)
        if row is not None:
            row.cases += 1
            setattr(row, record.kind.value, getattr(row, record.kind.value) + 1)
            if record.runaway and row.stopped_by is None:
                row.stopped_by = f"case {record.name!r}: {record.runaway}"
        if record.kind is CaseKind.unexpected_failure:
            report.failures.append(record)
        elif record.kind is CaseKind.skipped:
            report.skipped.append(record)
    report.cases = len(records)
    report.unexpected_failures = len(report.failures)
    seen: dict[str, dict[str, set[str]]] = {}
    for record in records:
        tables = seen.setdefault(record.tool, {"reads": set(), "writes": set()})
        tables["reads"].update(record.reads)
        tables["writes"].update(record.writes)
    report.observed = {tool: {kind: sorted(names) for kind, names in tables.items()} for tool, tables in sorted(seen.items())}


async def _check_determinism(bundle: DomainBundle, specs: dict[str, Any], cases: list[ToolCase], records: list[CaseRecord],
                             workers: int, timeout: float, budget: RunBudget) -> list[Finding]:
    """Success cases again in fresh workers with another hash seed: same results, same fingerprints."""
    chosen = [(c, r) for c, r in zip(cases, records) if r.kind is CaseKind.success]
    pool = WorkerPool(workers, memory_limit=2 * 1024**3, env={"PYTHONHASHSEED": "4242"})
    pool.start()
    try:
        again = await CaseRunner(pool, timeout, budget).run(bundle, specs, [c for c, _ in chosen])
    finally:
        pool.stop()
    findings = []
    for (case, first), second in zip(chosen, again):
        if second.kind is CaseKind.skipped:  # the run's budget ran out: the budget finding says so
            continue
        same_result = json.dumps(first.result, sort_keys=True) == json.dumps(second.result, sort_keys=True)
        if not same_result or first.fingerprint != second.fingerprint:
            findings.append(Finding(check="determinism", tool=case.tool,
                                    reason=f"case {case.name!r} differs under another PYTHONHASHSEED"))
    return findings


async def _run_mutants(runner: CaseRunner, package: DomainPackage, bundle: DomainBundle, specs: dict[str, Any],
                       cases: list[ToolCase], rows: dict[str, ToolRow], report: ValidationReport,
                       progress: Progress | None) -> None:
    """Mutate each tool, and each module-level helper the tools call, and run the affected cases.

    A helper's mutant is run against the cases of every tool that calls it directly and gets
    a row of its own ("name (helper)"), so shared checks are held to the same standard.

    Each mutant runs on one worker, loaded once there (a load is most of a mutant's cost, and one
    tool's cases never run side by side anyway), while the other workers take the next mutants.
    Verdicts are tallied in plan order, so the report does not depend on which worker was faster.
    """
    import ast

    tools = [t.name for t in package.manifest.tools]
    callers = helper_callers(package.tools_source, tools)
    tree = ast.parse(package.tools_source)
    plan = [(m, [m.tool]) for tool in tools for m in build_mutants(package.tools_source, tool, tree=tree)]
    for helper, calling in sorted(callers.items()):
        rows.setdefault(f"{helper} (helper)", ToolRow(tool=f"{helper} (helper)"))
        plan += [(m, calling) for m in build_mutants(package.tools_source, helper, limit=6, tree=tree)]
    runs = [(mutant, [c for c in cases if c.tool in targets]) for mutant, targets in plan]
    verdicts: dict[int, list[CaseRecord]] = {}
    runnable = [index for index, (_, mine) in enumerate(runs) if mine]
    queue = iter(runnable)

    async def work(worker: WorkerHandle) -> None:
        for index in queue:  # one shared iterator: each mutant is taken by one worker
            if runner.budget.exhausted:
                return
            mutant, mine = runs[index]
            # (a mutant the policy refuses fails to load in the worker: its cases fail, it counts as killed)
            mutant_bundle = _mutant_bundle(bundle, mutant.source)
            verdicts[index] = await runner.run(mutant_bundle, specs, mine, workers=[worker], until_failure=True)
            await runner.forget(mutant_bundle, workers=[worker])
            if progress:
                progress("mutants", len(verdicts), len(runs))

    await asyncio.gather(*(work(w) for w in runner.pool.workers))
    for index in runnable:
        (mutant, mine), records = runs[index], verdicts.get(index)
        if records is None or (runner.budget.exhausted and any(r.kind is CaseKind.skipped for r in records)):
            break  # not measured, nor anything after it: the budget finding refuses the package anyway
        row = rows[mutant.tool if mutant.tool in rows else f"{mutant.tool} (helper)"]
        row.mutants += 1
        if any(r.kind is CaseKind.unexpected_failure for r in records) or len(records) < len(mine):
            row.killed += 1
        else:
            row.survivors.append(mutant.description)
    report.mutants = sum(r.mutants for r in rows.values())
    report.killed = sum(r.killed for r in rows.values())
    report.mutation_score = round(report.killed / report.mutants, 4) if report.mutants else None


def helper_callers(source: str, tools: list[str]) -> dict[str, list[str]]:
    """Module-level non-tool functions -> the tools that call them directly."""
    import ast

    tree = ast.parse(source)
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    helpers = set(functions) - set(tools)
    callers: dict[str, list[str]] = {}
    for tool in tools:
        if tool not in functions:
            continue
        called = {n.func.id for n in ast.walk(functions[tool]) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        for helper in sorted(called & helpers):
            callers.setdefault(helper, []).append(tool)
    return callers
