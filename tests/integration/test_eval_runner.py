"""``run_eval`` end to end over real HTTP: a host's control API and MCP endpoint, and the loopback
OpenAI-compatible server playing agent and user through the real ``openai`` client.

Oracle 1.0 and noop 0 on the fixture tasks; the LLM agent scores what its actions earn;
infrastructure failures are counted apart; private reasoning never reaches the user; the
agent never sees the simulator's instruction; seeds reach every LLM request; the cache
replays a run exactly with the LLM server gone; regrading from traces gives the same rewards.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.clients import EvalConfig, regrade_run, run_eval
from scaleenv_mcp.clients.models import EpisodeStatus, InfraKind
from scaleenv_mcp.domain.loader import load_domain
from tests.integration.eval_llm_server import PRIVATE, serve_llm, write_scenario
from tests.unit.clients.library_tasks import HostThread, library, library_master  # noqa: F401 - fixtures

LIBRARY_TASKS = 4


@pytest.fixture
def shared_host(library: Path, tmp_path: Path) -> Iterator[HostThread]:
    with HostThread([library], tmp_path / "token") as running:
        yield running


def _remote(host: HostThread) -> dict:
    return {"url": host.url, "control_url": host.control_url, "token_file": host.token_file}


def _events(out: Path) -> dict[str, list[dict]]:
    return {json.loads(line)["key"]: json.loads(line)["events"] for line in (out / "traces.jsonl").read_text().splitlines()}


def test_oracle_scores_one_on_a_host_the_eval_starts_and_noop_zero_on_a_running_one(library: Path, tmp_path: Path,
                                                                    shared_host: HostThread):
    domain = str(library / "tiny_library")
    oracle = anyio.run(run_eval, EvalConfig(domains=[domain], agent="oracle", trials=2, out=tmp_path / "oracle"))
    assert (oracle.avg_at_k, oracle.pass_at_k, oracle.pass_hat_k) == (1.0, 1.0, 1.0)
    assert oracle.overall.episodes == 2 * LIBRARY_TASKS and not oracle.infra_failures
    assert oracle.overall.mean_table_match == 1.0
    saved = json.loads((tmp_path / "oracle" / "results.json").read_text())
    assert {"avg@k", "pass@k", "pass^k", "overall", "domains", "stamp", "infra_failures"} <= set(saved)
    assert saved["stamp"]["task_set_hash"] and saved["stamp"]["host_version"] and saved["stamp"]["agent"] == "oracle"
    # The trace shows the oracle's privileged replay: exactly the gold actions, over MCP.
    tasks = load_domain(library / "tiny_library").tasks
    for key, events in _events(tmp_path / "oracle").items():
        task = tasks[key.split("/")[1].split("#")[0]]
        calls = [(e["tool"], e["arguments"]) for e in events if e["kind"] == "tool_call"]
        assert calls == [(a.tool, a.arguments) for a in task.actions]
        assert events[-1] == {**events[-1], "kind": "user", "text": "###STOP###"}

    noop = anyio.run(run_eval, EvalConfig(domains=[domain], agent="noop", trials=1, out=tmp_path / "noop",
                                          **_remote(shared_host)))
    assert (noop.avg_at_k, noop.pass_at_k, noop.pass_hat_k) == (0.0, 0.0, 0.0)
    assert noop.overall.episodes == LIBRARY_TASKS


def test_llm_agent_and_user_over_loopback_with_an_outage_counted_apart(library: Path, tmp_path: Path,
                                                                        shared_host: HostThread):
    tasks = list(load_domain(library / "tiny_library").tasks.values())
    instructions = [t.user.instruction for t in tasks]
    scenario = write_scenario(tmp_path / "scenario.json", tasks, fail={"return-solaris"}, parallel={"swap-solaris"})
    config = EvalConfig(domains=[str(library / "tiny_library")], agent="openai:test-agent", user="openai:test-user",
                        trials=2, seed=11, out=tmp_path / "llm", llm_retries=1, llm_backoff=0.01, concurrency=3,
                        **_remote(shared_host))
    with serve_llm(scenario) as server:
        config = config.model_copy(update={"base_url": server.base_url})
        results = anyio.run(run_eval, config)
        requests = list(server.requests)

    # Three tasks solved by following the gold actions; the fourth's LLM answered 500 forever.
    assert results.overall.episodes == 6 and results.avg_at_k == 1.0 and results.pass_hat_k == 1.0
    assert [(f.key, f.kind) for f in results.infra_failures] == [
        ("tiny_library/return-solaris#0", InfraKind.llm), ("tiny_library/return-solaris#1", InfraKind.llm)]
    assert results.overall.infra_failures == 2 and results.overall.tasks_short == 1
    records = {json.loads(x)["key"]: json.loads(x) for x in (config.out / "episodes.jsonl").read_text().splitlines()}
    assert len(records) == 2 * LIBRARY_TASKS
    assert records["tiny_library/return-solaris#0"]["status"] == EpisodeStatus.infra_failure.value
    assert records["tiny_library/return-solaris#0"]["reward"] is None
    assert all(r["agent_tokens"]["prompt"] > 0 for k, r in records.items() if "return-solaris" not in k)
    assert results.agent_tokens.requests > 0 and results.user_tokens.requests > 0
    assert results.stamp.agent_model == "test-agent" and results.stamp.user_model == "test-user"

    agent_calls = [r for r in requests if r["model"] == "test-agent"]
    user_calls = [r for r in requests if r["model"] == "test-user"]
    # Hygiene: the agent never sees the simulator's instruction; the user never sees private reasoning.
    assert not any(i in json.dumps(r) for r in agent_calls for i in instructions)
    assert not any(PRIVATE in json.dumps(r) or "<think>" in json.dumps(r) for r in user_calls)
    assert all(isinstance(r.get("seed"), int) for r in requests)
    assert len({r["seed"] for r in agent_calls}) == 2 * LIBRARY_TASKS  # one seed per (task, trial)
    # The trace keeps every message and tool call with timings; the agent's raw text keeps its reasoning.
    events = _events(config.out)["tiny_library/swap-solaris#1"]
    assert [e["kind"] for e in events] == ["user", "agent", "user", "tool_call", "tool_call", "agent", "user"]
    assert all(e["agent_ms"] is not None for e in events if e["kind"] in ("agent", "tool_call"))
    assert PRIVATE in events[1]["raw_text"] and PRIVATE not in events[1]["text"]

    # Exact rerun from the on-disk cache, with the LLM server gone: same dialogues, same scores.
    again = anyio.run(run_eval, config.model_copy(update={"out": tmp_path / "rerun", "cache_dir": config.out / "llm-cache",
                                                        "tasks": "lend-*,swap-*"}))
    assert again.avg_at_k == 1.0 and again.agent_tokens.cached == again.agent_tokens.requests > 0
    first, second = _events(config.out), _events(tmp_path / "rerun")
    strip = lambda evs: [{k: v for k, v in e.items() if k not in ("at_ms", "duration_ms", "agent_ms")} for e in evs]  # noqa: E731
    assert {k: strip(v) for k, v in second.items()} == {k: strip(first[k]) for k in second}

    # Regrade from the saved traces: replayed on fresh episodes, the same rewards.
    before = (config.out / "episodes.jsonl").read_text()
    report = anyio.run(functools.partial(regrade_run, config.out, **_remote(shared_host)))
    assert report.regraded == 6 and report.changed == [] and report.failed == {}
    assert report.results.avg_at_k == results.avg_at_k and len(report.results.infra_failures) == 2
    after = {json.loads(x)["key"]: json.loads(x)["reward"] for x in (config.out / "episodes.jsonl").read_text().splitlines()}
    assert after == {json.loads(x)["key"]: json.loads(x)["reward"] for x in before.splitlines()}


def test_regrade_scores_the_saved_calls_against_the_current_gold(library: Path, tmp_path: Path,
                                                                  shared_host: HostThread):
    """A regrade replays only what the agent did: a wrong call saved in the trace scores 0 again."""
    domain = str(library / "tiny_library")
    config = EvalConfig(domains=[domain], agent="random", seed=3, tasks="lend-ada-dune", trials=3,
                        out=tmp_path / "random", **_remote(shared_host))
    results = anyio.run(run_eval, config)
    report = anyio.run(functools.partial(regrade_run, config.out, **_remote(shared_host)))
    saved = {json.loads(x)["key"]: json.loads(x)["reward"] for x in (config.out / "episodes.jsonl").read_text().splitlines()}
    assert report.changed == [] and report.regraded == 3
    assert results.avg_at_k == sum(saved.values()) / 3
    assert any(e["kind"] == "tool_call" for evs in _events(config.out).values() for e in evs)
