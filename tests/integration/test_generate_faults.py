"""Generation against a misbehaving endpoint and imperfect models, over real loopback HTTP.

Malformed replies in every early stage are recovered; a buggy tool is repaired by the debug
agent from the validation report (checked in the request the server received); a tool that
never passes is dropped and recorded; seed rows that break a CHECK are repaired from
SQLite's error; an endpoint that only fails ends the CLI with exit code 3 within its retry
budget; ``--fresh`` ignores the store. Tasks and the mutation check are off here (the end
to end test in test_generate.py has them) to keep these runs short.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.generator.pipeline import generate
from scaleenv_mcp.generator.report import GenerationReport
from scaleenv_mcp.generator.roles import RoleSettings, RolesFile, resolve_roles
from scaleenv_mcp.generator.stages.context import GenerateSettings
from tests.support_llm_server import FakeLLM, Fault

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("generate_faults")


def _generate(fake: FakeLLM, root: Path, structured: str = "auto",
              **overrides: object) -> tuple[GenerationReport, int, Path]:
    values: dict[str, object] = {"keyword": "pet care", "slug": "pet_care", "out": root / "out" / "pet_care",
                                 "workdir": root / "work", "tasks": 0, "mutation": False, **overrides}
    settings = GenerateSettings.model_validate(values)
    roles = resolve_roles(RolesFile(default=RoleSettings(structured=structured)), model="fake-model",
                          base_url=fake.base_url, timeout=30.0)
    report, code = anyio.run(lambda: generate(settings, roles, backoff=0.01))
    return report, code, settings.out


def test_malformed_replies_in_every_stage_are_recovered(fake: FakeLLM, tmp_path: Path):
    fake.faults = [Fault("domain_card", "fence"), Fault("tool_schemas", "prose"),
                   Fault("db_schema", "missing_field"), Fault("seed_data", "truncate", marker="pets"),
                   Fault("code", "http429", marker="get_pet"), Fault("tests", "http500", marker="find_pets"),
                   Fault("graph_edges", "bad_json")]  # slow replies: tests/unit/generator/test_llm_client.py
    report, code, out = _generate(fake, tmp_path)
    assert code == 0, report.status
    assert report.tools_dropped == [] and (out / "tools.py").exists()
    usage = {(r.stage, r.role): r for r in report.usage}
    assert usage[("database", "db_schema")].repairs == 1 and usage[("graph", "graph_edges")].repairs == 1
    assert usage[("seed", "seed_data")].continuations == 1
    # the 429 is retried; the 500 to a json_schema request is first tried in plain mode (no budget spent)
    assert usage[("procedural", "code")].retries == 1 and usage[("procedural", "tests")].fallbacks == 1
    assert report.retries_used == 1
    repair = fake.requests("db_schema")[-1]
    assert repair.kind == "repair" and "tables" in repair.user and "Field required" in repair.user
    assert fake.answered_twice() == []


@pytest.fixture(scope="module")
def defective(server: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> tuple[GenerationReport, int, Path, FakeLLM]:
    """One run with a buggy tool, a hopeless tool, a tool drafted as an endless loop and seed rows that break a CHECK."""
    server.reset()
    server.buggy, server.never_pass, server.bad_seed = {"book_appointment"}, {"cancel_appointment"}, True
    server.looping = {"get_pet"}
    report, code, out = _generate(server, tmp_path_factory.mktemp("defective"), max_rounds=2)
    return report, code, out, server


def test_a_buggy_tool_is_repaired_from_the_validation_report(defective: tuple[GenerationReport, int, Path, FakeLLM]):
    report, code, out, fake = defective
    outcome = next(t for t in report.tools if t.tool == "book_appointment")
    assert outcome.passed and not outcome.first_try and outcome.repair_rounds == 1
    debug = [r for r in fake.requests("debug") if r.marker == "book_appointment"]
    assert len(debug) == 1
    # the debug agent was sent the failing case, what went wrong, and the state it changed
    assert "book_appointment slot taken" in debug[0].user
    assert "expected error conflict, but the call succeeded" in debug[0].user
    assert '"actual_changes"' in debug[0].user and "VALIDATION REPORT" in debug[0].user
    assert "ConflictError" in (out / "tools.py").read_text()


def test_a_tool_that_never_passes_is_dropped_and_recorded(defective: tuple[GenerationReport, int, Path, FakeLLM]):
    report, code, out, fake = defective
    assert code == 0 and report.status == "complete"
    outcome = next(t for t in report.tools if t.tool == "cancel_appointment")
    assert not outcome.passed and outcome.repair_rounds == 2
    assert "CHECK constraint failed" in (outcome.dropped_reason or "")
    # first try: find_pets and register_pet (book_appointment is buggy, get_pet loops, cancel_appointment never passes)
    assert report.tools_dropped == ["cancel_appointment"] and report.first_try_pass_rate == 0.4
    assert len([r for r in fake.requests("debug") if r.marker == "cancel_appointment"]) == 2
    manifest = json.loads((out / "domain.json").read_text())
    assert "cancel_appointment" not in [t["name"] for t in manifest["tools"]]
    assert "def cancel_appointment" not in (out / "tools.py").read_text()
    assert report.validation is not None and report.validation.servable
    saved = json.loads((Path(report.workdir) / "report.json").read_text())
    assert saved["tools_dropped"] == ["cancel_appointment"]


def test_a_looping_draft_costs_one_case_budget_and_the_debug_agent_gets_the_reason(
        defective: tuple[GenerationReport, int, Path, FakeLLM]):
    """Fail fast (#30): the first case of the looping get_pet hits the case budget, its other
    cases are skipped, and the debug prompt names the runaway case and the budget."""
    report, _, out, fake = defective
    outcome = next(t for t in report.tools if t.tool == "get_pet")
    assert outcome.passed and not outcome.first_try and outcome.repair_rounds == 1
    (debug,) = [r for r in fake.requests("debug") if r.marker == "get_pet"]
    sent = json.loads(debug.user.split("VALIDATION REPORT:\n", 1)[1].split("\n\nSCHEMA.SQL:", 1)[0])
    assert sent["unexpected_failures"] == 1 and sent["cases"] == 3
    (failure,) = sent["failures"]
    assert failure["runaway"] == "call exceeded its wall-time budget of 5 s"
    assert sent["runaway"].startswith(f"runaway tool get_pet (case {failure['name']!r}: call exceeded its wall-time")
    assert len(sent["skipped"]) == 2
    assert all(f"skipped: get_pet already ran away on case {failure['name']!r}" in s for s in sent["skipped"])
    assert "while True" not in (out / "tools.py").read_text()


def test_seed_rows_that_break_a_check_are_repaired_from_the_sqlite_error(
        defective: tuple[GenerationReport, int, Path, FakeLLM]):
    report, _, out, fake = defective
    assert report.db_repair_rounds == 1
    repair = fake.requests("db_repair")
    assert len(repair) == 1 and "appointments[1]" in repair[0].user and "CHECK constraint failed" in repair[0].user
    assert "13:30" not in (out / "seed.json").read_text()


def test_an_endpoint_that_only_fails_ends_with_exit_code_3_within_its_budget(fake: FakeLLM, tmp_path: Path):
    fake.always_fail = 500
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "generate", "pet care", "--model", "fake-model",
                           "--base-url", fake.base_url, "--out", str(tmp_path / "out" / "pet_care"), "--workdir",
                           str(tmp_path / "work"), "--retry-budget", "3", "--backoff", "0.01", "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 3, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert "retry budget" in report["status"] and "HTTP 500" in report["status"]
    # json_schema 500, one plain try 500 (no budget spent: maybe only the mode failed), then json_schema + 3
    assert report["retries_used"] == 3 and len(fake.requests()) == 6
    assert sum(r["retries"] for r in report["usage"]) == 3  # the table's retries agree with the budget
    assert not (tmp_path / "out" / "pet_care").exists()
    assert json.loads((tmp_path / "work" / "report.json").read_text())["status"] == report["status"]
    assert time.monotonic() - started < 30


def test_a_restart_reuses_the_store_and_fresh_ignores_it(fake: FakeLLM, tmp_path: Path):
    first, code, out = _generate(fake, tmp_path)
    assert code == 0
    asked = len(fake.requests(status="200"))
    again, code, second_out = _generate(fake, tmp_path, out=tmp_path / "again" / "pet_care")
    assert code == 0 and len(fake.requests(status="200")) == asked  # everything came from the workdir
    assert sum(r.calls for r in again.usage) == 0 and sum(r.stored_calls for r in again.usage) == asked
    fresh, code, _ = _generate(fake, tmp_path, out=tmp_path / "fresh" / "pet_care", fresh=True)
    assert code == 0 and len(fake.requests(status="200")) == 2 * asked  # every request asked again
    for name in ("domain.json", "tools.py", "tests.json", "seed.json"):
        assert (second_out / name).read_bytes() == (out / name).read_bytes()
