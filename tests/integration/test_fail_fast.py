"""Validation fails fast on hostile packages (issue #30), with real worker processes.

A tool that runs away (loops past its wall-time budget, recurses without end) is failed on
its first case and its other cases are skipped, each saying why; a tools.py that runs a bomb
at import fails once, at load; the whole-run budget stops a run that would go on; the
serving gate says "rejected: runaway tool X". Times are measured by ``scaleenv bench``, not
asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.procedural.report import CaseKind, ValidationReport
from scaleenv_mcp.procedural.validate import validate_domain
from scaleenv_mcp.settings import HostSettings
from tests.support_hostile import hostile_copy

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "domains" / "tiny_library"
TOOLS = ["find_books", "get_member", "borrow_book", "return_book", "tally", "repeat_text"]
CASE_TIMEOUT = 2.0  # seconds per case: short, and still well above a real case on a loaded machine


def _validate(path: Path, **options: object) -> ValidationReport:
    import anyio

    return anyio.run(lambda: validate_domain(path, workers=2, timeout=CASE_TIMEOUT, **options))  # type: ignore[arg-type]


def _each_tool_failed_once_and_skipped_the_rest(report: ValidationReport, reason: str) -> None:
    assert not report.servable and not report.passed
    rows = {r.tool: r for r in report.tools if not r.tool.endswith("(helper)")}
    assert sorted(rows) == sorted(TOOLS)
    for tool, row in rows.items():
        assert row.stopped_by is not None and reason in row.stopped_by, (tool, row.stopped_by)
        assert (row.unexpected_failure, row.skipped, row.success, row.anticipated_rejection) == (1, row.cases - 1, 0, 0)
    assert report.cases == 21 and len(report.failures) == 6 and len(report.skipped) == 15
    first = {f.tool: f.name for f in report.failures}
    for record in report.skipped:
        (problem,) = record.problems
        assert problem.startswith(f"skipped: {record.tool} already ran away on case {first[record.tool]!r} (")
    (failure,) = [f for f in report.failures if f.tool == "tally"]
    assert failure.runaway is not None and reason in failure.runaway
    assert report.runaway is not None and report.runaway.startswith("runaway tool find_books (case ")
    # the verdict is decided: no determinism rerun, no mutants
    assert report.mutants == 0 and report.mutation_score is None


def test_a_domain_whose_every_tool_loops_fails_each_tool_on_its_first_case(tmp_path: Path):
    package = hostile_copy(FIXTURE, tmp_path / "tiny_library", "loop")
    report = _validate(package)
    _each_tool_failed_once_and_skipped_the_rest(report, f"call exceeded its wall-time budget of {CASE_TIMEOUT:g} s")
    assert report.findings == []  # the failures say it all; the run's budget was not reached


def test_a_domain_whose_every_tool_recurses_fails_each_tool_on_its_first_case(tmp_path: Path):
    package = hostile_copy(FIXTURE, tmp_path / "tiny_library", "recurse")
    _each_tool_failed_once_and_skipped_the_rest(_validate(package), "RecursionError")


@pytest.mark.parametrize(("kind", "reason"), [
    ("import_cpu_bomb", f"call exceeded its wall-time budget of {CASE_TIMEOUT * 4:g} s"),
    ("import_memory_bomb", "MemoryError"),
])
def test_a_bomb_at_import_is_one_load_finding_and_no_case_runs(tmp_path: Path, kind: str, reason: str):
    package = hostile_copy(FIXTURE, tmp_path / "tiny_library", kind)
    report = _validate(package)
    assert not report.servable
    (finding,) = report.findings
    assert finding.check == "load" and finding.file == "tools.py" and reason in finding.reason
    assert report.halted == finding.reason and report.runaway == finding.reason
    assert report.cases == 21 and report.failures == [] and len(report.skipped) == 21
    assert {tuple(r.problems) for r in report.skipped} == {("skipped: tools.py did not load",)}
    assert all(r.kind is CaseKind.skipped for r in report.skipped)


def test_the_whole_run_budget_stops_validation_with_exit_code_1(tmp_path: Path):
    """Cases that would each run 60 s, and a run budget of 8 s: the CLI stops, says why, exits 1."""
    package = hostile_copy(FIXTURE, tmp_path / "tiny_library", "loop")
    result = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "validate", str(package), "--json",
                             "--timeout", "60", "--budget", "8"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["passed"] is False and report["budget"] == 8
    assert report["halted"] == "the validation budget of 8 s ran out"
    assert [f["check"] for f in report["findings"]] == ["budget"]
    assert report["failures"] == []  # the cases cut short were not the tools' fault as far as we know
    assert len(report["skipped"]) == 21
    problems = {p for r in report["skipped"] for p in r["problems"]}
    assert problems <= {"skipped: the validation budget of 8 s ran out",
                        "skipped: the validation budget of 8 s ran out while it ran"}


@pytest.mark.anyio
async def test_the_serving_gate_rejects_a_runaway_tool_and_says_which(tmp_path: Path):
    hostile_copy(FIXTURE, tmp_path / "domains" / "tiny_library", "loop")
    settings = HostSettings(workers=1, port=0, control_port=0, token_file=tmp_path / "token")
    async with Host.running(settings, [tmp_path / "domains"]) as host:
        status = host.status["tiny_library"]
        assert status.startswith("rejected: runaway tool find_books (case "), status
        assert "wall-time budget" in status
        assert host.load_errors["tiny_library"] == status
        assert "tiny_library" not in host.registry.domains
