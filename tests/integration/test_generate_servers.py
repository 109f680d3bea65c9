"""``scaleenv generate`` end to end against each common server's behaviour, and its report on every exit.

Per profile (tests/support_server_profiles.py), with json_schema answered by HTTP 500 the way
llama-cpp-python answers it: the run falls back to plain JSON, spends none of its retry
budget on it, finishes, and its report says to set ``structured = "plain"``; with
``structured = "tool"`` and tools answered by HTTP 500 (llama-server without --jinja), it falls
to json_schema (plain where that fails too) the same way. Then the exits
issue #31 found wrong: a stale report.json is removed at start, SIGTERM and SIGINT leave this run's
report, a model that never writes valid JSON exits 1 (bad output) not 3 (endpoint failed),
and the counters agree (retries spent vs the budget, tasks requested vs ``--tasks``).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.integration.test_generate_faults import _generate
from tests.support_llm_server import FakeLLM, Fault
from tests.support_server_profiles import PROFILES, ServerProfile


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_generate_falls_back_from_a_5xx_on_json_schema_and_finishes(fake: FakeLLM, tmp_path: Path, profile: str):
    fake.profile = ServerProfile(**{**PROFILES[profile].__dict__, "json_schema_status": 500})
    report, code, out = _generate(fake, tmp_path)
    assert code == 0, report.status
    assert (out / "tools.py").exists() and report.retries_used == 0
    assert sum(r.fallbacks for r in report.usage) >= 1
    assert any('structured = "plain"' in w for w in report.warnings)
    assert fake.answered_twice() == []


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_generate_in_tool_mode_falls_back_when_the_server_refuses_tools_and_finishes(fake: FakeLLM, tmp_path: Path,
                                                                                      profile: str):
    """structured = "tool" against a server that answers 500 to any request with tools (llama-server
    without --jinja): every role falls to json_schema (to plain where json_schema fails too, as on
    llama.cpp) without spending the retry budget, and the run finishes."""
    fake.profile = ServerProfile(**{**PROFILES[profile].__dict__, "tools_status": 500})
    report, code, out = _generate(fake, tmp_path, structured="tool")
    assert code == 0, report.status
    assert (out / "tools.py").exists() and report.retries_used == 0
    assert sum(r.fallbacks for r in report.usage) >= 1
    assert any('structured = "json_schema"' in w for w in report.warnings)
    assert fake.answered_twice() == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_leaves_this_runs_report_and_a_stale_one_never_survives(fake: FakeLLM, tmp_path: Path,
                                                                          signum: signal.Signals):
    """SIGTERM (a supervisor) and SIGINT (Ctrl-C): exit 128+N (143, 130), status interrupted, this run's report."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "report.json").write_text('{"status": "complete", "stale": true}')
    running: dict[str, int] = {}

    def terminate(role: str, marker: str | None) -> bool:
        if role == "db_schema" and "pid" in running:
            os.kill(running.pop("pid"), signum)
        return False

    fake.on_request = terminate
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "generate", "pet care", "--model", "fake-model",
                                "--base-url", fake.base_url, "--out", str(tmp_path / "out" / "pet_care"), "--workdir",
                                str(work), "--tasks", "2", "--backoff", "0.01", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    running["pid"] = process.pid
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signum == {"SIGTERM": 143, "SIGINT": 130}[signum.name], stderr[-2000:]
    report = json.loads((work / "report.json").read_text())
    assert report["status"].startswith(f"interrupted by {signum.name}") and "stale" not in report
    assert json.loads(stdout)["status"] == report["status"]
    assert report["tasks"]["requested"] == 2  # --tasks, even though the run never reached the tasks
    assert any(r["role"] == "domain_card" and r["calls"] == 1 for r in report["usage"])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_signal_again_while_the_run_stops_still_leaves_this_runs_report(fake: FakeLLM, tmp_path: Path,
                                                                             signum: signal.Signals):
    """``timeout`` sends SIGTERM twice (to the process, then to its process group) and people press
    Ctrl-C twice: the signal repeated from the first one until the report is on disk neither breaks
    off the cleanup nor meets the default action. Issue #31's real-server run under ``timeout 480``
    left a ``.report.json.*.tmp`` and no report: the second SIGTERM arrived after the handlers were
    removed, while the report was being written. Whether a repeat lands in that window is up to the
    scheduler, so three runs: the code before the fix lost its report in most runs."""
    for run in range(3):
        _stop_a_run_with_repeated_signals(fake, tmp_path / f"run{run}", signum)


def _stop_a_run_with_repeated_signals(fake: FakeLLM, root: Path, signum: signal.Signals) -> None:
    work = root / "work"
    work.mkdir(parents=True)
    (work / "report.json").write_text('{"status": "complete", "stale": true}')
    waiting = threading.Event()

    def hold(role: str, marker: str | None) -> bool:
        if role == "db_schema":
            waiting.set()
        return False

    fake.reset()
    fake.on_request = hold
    fake.faults = [Fault("db_schema", "slow", seconds=120)]  # the run waits on it until signalled
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "generate", "pet care", "--model", "fake-model",
                                "--base-url", fake.base_url, "--out", str(root / "out" / "pet_care"), "--workdir",
                                str(work), "--tasks", "2", "--backoff", "0.01"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert waiting.wait(60), "the run never reached the database schema"
        sent, deadline = 0, time.monotonic() + 60
        while process.poll() is None and not (work / "report.json").exists():
            assert time.monotonic() < deadline, f"no report after {sent} signals in 60 s"  # never a hang
            os.kill(process.pid, signum)
            sent += 1
            # a short pause, not a busy loop: thousands of repeats a second still land in every window
            # of the stop, and the run being stopped is not starved of CPU on a loaded 2-core machine
            # (a busy loop sent 4.5 million signals in 60 s in one loaded run and no report came)
            time.sleep(0.0002)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert (work / "report.json").exists(), f"no report after {sent} signals, exit {process.returncode}"
    report = json.loads((work / "report.json").read_text())
    assert report["status"].startswith(f"interrupted by {signum.name}") and "stale" not in report, stderr[-2000:]
    assert not list(work.glob(".report.json.*")), "a report's temporary file was left behind"
    # 128+N from our handler; -N if one more signal came after the report was written (the default action then)
    assert process.returncode in (128 + signum, -signum), (sent, stderr[-2000:])


def test_a_run_in_a_worker_thread_installs_no_signal_handlers_and_cancelling_it_writes_its_report(
        fake: FakeLLM, tmp_path: Path):
    """Outside the main thread asyncio refuses signal handlers (as a platform without them does, with
    NotImplementedError): the run goes on without them, and the embedding application stops it by
    cancelling its task, which still writes the report (generator/pipeline.py, ``_signals_cancel``)."""
    from scaleenv_mcp.generator.pipeline import generate
    from scaleenv_mcp.generator.roles import RoleSettings, RolesFile, resolve_roles
    from scaleenv_mcp.generator.stages.context import GenerateSettings

    work = tmp_path / "work"
    reached = threading.Event()

    def note(role: str, marker: str | None) -> bool:
        if role == "db_schema":
            reached.set()
        return False

    fake.on_request = note
    fake.faults = [Fault("db_schema", "slow", seconds=120)]  # the run waits on it until cancelled
    settings = GenerateSettings.model_validate({"keyword": "pet care", "slug": "pet_care", "out": tmp_path / "out" / "pet_care",
                                                "workdir": work, "tasks": 0, "mutation": False})
    roles = resolve_roles(RolesFile(default=RoleSettings()), model="fake-model", base_url=fake.base_url, timeout=30.0)
    loop = asyncio.new_event_loop()
    outcome: list[BaseException | None] = []

    def embedding_application() -> None:
        task = loop.create_task(generate(settings, roles, backoff=0.01))
        try:
            loop.run_until_complete(task)
            outcome.append(None)
        except BaseException as error:  # noqa: BLE001 - what the thread's run ended with, asserted below
            outcome.append(error)
        finally:
            loop.close()

    thread = threading.Thread(target=embedding_application)
    thread.start()
    assert reached.wait(60), "the run never reached the database schema"
    loop.call_soon_threadsafe(lambda: [t.cancel() for t in asyncio.all_tasks(loop)])
    thread.join(60)
    assert not thread.is_alive(), "cancelling the run's task did not end it"
    assert isinstance(outcome[0], asyncio.CancelledError), outcome
    report = json.loads((work / "report.json").read_text())
    assert report["status"] == "failed: cancelled"
    assert any(r["role"] == "domain_card" and r["calls"] == 1 for r in report["usage"])


def test_a_model_that_never_writes_valid_json_is_bad_output_exit_1_not_an_endpoint_failure(fake: FakeLLM,
                                                                                            tmp_path: Path):
    fake.faults = [Fault("domain_card", "missing_field", times=20)]
    report, code, _ = _generate(fake, tmp_path, tasks=3)
    assert code == 1, report.status
    assert "no valid output" in report.status and report.retries_used == 0
    assert report.tasks.requested == 3 and report.tasks.status == "not reached"
    assert json.loads((tmp_path / "work" / "report.json").read_text())["status"] == report.status
