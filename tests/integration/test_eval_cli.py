"""``scaleenv eval`` as users run it (a subprocess): kill and resume, exit codes, the summary.

The kill test stops a real eval mid-run with SIGKILL (its whole process group: the host's
workers too), resumes it, and proves from the LLM server's request log that no finished
episode was run again (the LLM cache is off, so every rerun would show up there).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from typer.testing import CliRunner

from scaleenv_mcp.clients.cli import app
from scaleenv_mcp.domain.loader import load_domain
from tests.integration.eval_llm_server import serve_llm, write_scenario
from tests.support_processes import scaleenv_serve
from tests.unit.clients.library_tasks import library, library_master  # noqa: F401 - fixtures

SCALEENV = [sys.executable, "-m", "scaleenv_mcp"]


def _eval(*args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([*SCALEENV, "eval", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kwargs)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_killed_eval_resumes_without_rerunning_finished_episodes(library: Path, tmp_path: Path):
    tasks = load_domain(library / "tiny_library").tasks
    scenario = write_scenario(tmp_path / "scenario.json", list(tasks.values()), delay=0.03)
    out = tmp_path / "run"
    with serve_llm(scenario) as server:
        args = ["--domains", str(library / "tiny_library"), "--agent", "openai:test-agent", "--user", "openai:test-user",
                "--base-url", server.base_url, "--trials", "2", "--concurrency", "1", "--no-llm-cache", "--out", str(out)]
        first = _eval(*args)
        deadline = time.monotonic() + 60
        while len(_lines(out / "episodes.jsonl")) < 2 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)  # the eval and the host workers it started
        first.communicate()
        before = _lines(out / "episodes.jsonl")
        assert 2 <= len(before) < 8, "the eval must be killed mid-run"

        second = _eval(*args, "--resume")
        stdout, stderr = second.communicate(timeout=120)
        assert second.returncode == 0, stderr
        requests = list(server.requests)

    after = _lines(out / "episodes.jsonl")
    assert after[:len(before)] == before  # finished episodes untouched
    records = [json.loads(line) for line in after]
    assert sorted(r["key"] for r in records) == sorted(f"tiny_library/{t}#{i}" for t in tasks for i in range(2))
    assert all(r["status"] == "completed" and r["reward"] == 1.0 for r in records)
    assert f"[1/{8 - len(before)}]" in stderr and f"[{8 - len(before)}/{8 - len(before)}]" in stderr
    for record in map(json.loads, before):  # one episode's worth of agent requests, not two
        asked = [r for r in requests if r["model"] == "test-agent" and r["seed"] == record["seed"]]
        assert len(asked) == len(tasks[record["task_id"]].actions) + 2, record["key"]
    results = json.loads((out / "results.json").read_text())
    assert results["pass^k"] == 1.0 and results["overall"]["episodes"] == 8
    assert "pass^2" in stdout and "tiny_library" in stdout

    # --regrade needs only the run folder: it starts a host, replays the saved calls, scores them again.
    regraded = CliRunner().invoke(app, ["--regrade", "--out", str(out)])
    assert regraded.exit_code == 0, regraded.output
    assert "regraded 8 episode(s) from saved traces; 0 reward(s) changed" in regraded.output


def test_exit_codes_usage_and_harness_failure(library: Path, tmp_path: Path):
    """In-process through the same typer app (the subprocess test above covers the entry point)."""
    domain = str(library / "tiny_library")
    runner = CliRunner()
    bad_agent = runner.invoke(app, ["--domains", domain, "--agent", "gpt", "--out", str(tmp_path / "a")])
    assert bad_agent.exit_code == 2 and "--agent" in bad_agent.output
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "run.json").write_text("{}")
    busy = runner.invoke(app, ["--domains", domain, "--agent", "oracle", "--out", str(tmp_path / "busy")])
    assert busy.exit_code == 2 and "--resume" in busy.output
    # A host that is not there: every episode is an infrastructure failure, so the harness failed.
    (tmp_path / "token").write_text("t\n")
    dead = runner.invoke(app, ["--domains", domain, "--agent", "oracle", "--tasks", "lend-*", "--url",
                               "http://127.0.0.1:9", "--control-url", "http://127.0.0.1:9",
                               "--token-file", str(tmp_path / "token"), "--out", str(tmp_path / "dead")])
    assert dead.exit_code == 3, dead.output
    assert "every episode failed for infrastructure reasons; the first" in " ".join(dead.output.split())
    assert "transport:" in dead.output  # the reason itself, not only a count (#28)
    assert not (tmp_path / "dead").exists()  # the folder this run made holds nothing worth keeping: a retry starts clean
    # With more tasks than the early stop, the run stops once its first episodes all failed that way.
    stopped = runner.invoke(app, ["--domains", domain, "--agent", "oracle", "--trials", "3", "--concurrency", "1", "--url",
                                  "http://127.0.0.1:9", "--control-url", "http://127.0.0.1:9",
                                  "--token-file", str(tmp_path / "token"), "--out", str(tmp_path / "dead")])
    assert stopped.exit_code == 3, stopped.output
    assert "the first 4 episodes all failed for infrastructure reasons" in " ".join(stopped.output.split())
    assert not (tmp_path / "dead").exists()


def test_num_tasks_draws_the_same_tasks_for_the_same_seed(library: Path):
    from scaleenv_mcp.clients.task_set import load_task_set

    domain = [str(library / "tiny_library")]
    every = load_task_set(domain)
    assert len(every.tasks) > 3
    two = load_task_set(domain, num_tasks=2, seed=7)
    assert len(two.tasks) == 2 and {t.id for t in two.tasks} <= {t.id for t in every.tasks}
    assert load_task_set(domain, num_tasks=2, seed=7).hash == two.hash
    assert {load_task_set(domain, num_tasks=2, seed=s).hash for s in range(6)} != {two.hash}  # the seed draws
    assert load_task_set(domain, num_tasks=99).hash == every.hash


def test_the_summary_tells_the_model_s_misbehaviour_from_the_server_s_failures_and_the_role_limits_are_sent(
        library: Path, tmp_path: Path):
    """Issue #31: 0 tool calls in 25 requests and nothing said so; and the per-role limits must reach
    every request (max_tokens in the body, the timeout as the openai client's read timeout)."""
    tasks = load_domain(library / "tiny_library").tasks
    silent, down = "return-solaris", "swap-solaris"
    scenario = write_scenario(tmp_path / "scenario.json", list(tasks.values()), fail={down}, ask_first=False)
    data = json.loads(scenario.read_text())
    data["tasks"][tasks[silent].user.opening]["never_calls"] = True  # a model that never uses its tools
    scenario.write_text(json.dumps(data))
    with serve_llm(scenario) as server:
        done = _eval("--domains", str(library / "tiny_library"), "--agent", "openai:test-agent", "--user",
                     "openai:test-user", "--base-url", server.base_url, "--concurrency", "1", "--no-llm-cache",
                     "--llm-retries", "0", "--max-turns", "3", "--agent-max-tokens", "300", "--user-max-tokens", "77",
                     "--agent-timeout", "41", "--user-timeout", "23", "--out", str(tmp_path / "run"))
        stdout, stderr = done.communicate(timeout=120)
        requests, timeouts = list(server.requests), list(server.timeouts)
    assert done.returncode == 0, stderr[-2000:]

    progress = {line.split(": ", 1)[0].split("] ")[1]: line for line in stderr.splitlines() if line.startswith("[")}
    assert "warning: the agent made no tool call" in progress[f"tiny_library/{silent}#0"]
    assert "INFRA llm" in progress[f"tiny_library/{down}#0"]
    assert sum("no tool call" in line for line in progress.values()) == 1  # not for the outage, nor the others
    said = " ".join(stdout.split())  # rich wraps long lines in a pipe
    misbehaved, failed = said.index("the model misbehaved"), said.index("the server failed: 1 episode(s) not scored")
    assert misbehaved < failed
    assert "1 episode(s) without a single tool call" in said[misbehaved:failed]
    assert f"tiny_library/{silent}#0" in said[misbehaved:failed] and f"tiny_library/{down}#0" in said[failed:]
    assert f"tiny_library/{down}#0" not in said[misbehaved:failed]

    agent = [r for r in requests if r["model"] == "test-agent"]
    user = [r for r in requests if r["model"] == "test-user"]
    assert agent and user
    assert {r["max_tokens"] for r in agent} == {300} and {r["max_tokens"] for r in user} == {77}
    assert {t for m, t in timeouts if m == "test-agent"} == {"41.0"}
    assert {t for m, t in timeouts if m == "test-user"} == {"23.0"}


def test_against_a_live_host_a_wrong_token_is_one_line_and_a_token_file_with_blank_lines_works(
        library: Path, tmp_path: Path):
    """A real `scaleenv serve` and `scaleenv eval --url/--control-url/--token-file` processes (#28)."""
    with scaleenv_serve(library, tmp_path) as (agent_url, control_url, token):
        base = ["--domains", str(library / "tiny_library"), "--agent", "oracle", "--url", agent_url,
                "--control-url", control_url]

        (tmp_path / "wrong").write_text("not-the-token\n")
        wrong = subprocess.run([*SCALEENV, "eval", *base, "--token-file", str(tmp_path / "wrong"),
                                "--out", str(tmp_path / "run-wrong")], capture_output=True, text=True, timeout=120)
        assert wrong.returncode == 3, wrong.stderr
        (line,) = wrong.stderr.strip().splitlines()  # the reason at once: no episode was started on it
        assert line.startswith("error: control API refused the request (401): missing or wrong bearer token")
        assert str(tmp_path / "wrong") in line and "--token-file" in line
        assert not (tmp_path / "run-wrong").exists()

        (tmp_path / "padded").write_text(token.read_text().strip() + "\n\n\n")  # as an editor might save it
        right = subprocess.run([*SCALEENV, "eval", *base, "--token-file", str(tmp_path / "padded"),
                                "--out", str(tmp_path / "run")], capture_output=True, text=True, timeout=300)
        assert right.returncode == 0, right.stderr[-2000:]
        results = json.loads((tmp_path / "run" / "results.json").read_text())
        assert results["overall"]["episodes"] == 4 and results["pass^k"] == 1.0
