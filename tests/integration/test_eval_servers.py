"""Eval against each common model server's behaviour (tests/support_server_profiles.py), issue #31.

Per profile, over real HTTP and the real openai client: a scripted model that follows the
gold actions scores 1 (so the server saw its tools, and our tool-call turns went back in a
form it accepts); a model that writes to its token limit scores 0 as its own failed turns,
counted under ``model_problems``, never as infrastructure. And a server that never shows the
model its tools is reported: the trial made no tool call. On a shipped domain, whose tool
schemas hold ``pattern`` keys, a server that refuses them (llama.cpp) still gets scored
episodes: eval retries once with the schemas reduced, remembers that, and says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.clients import EvalConfig, run_eval
from scaleenv_mcp.clients.models import EpisodeStatus
from scaleenv_mcp.clients.report import print_results
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.errors import HarnessError
from tests.integration.eval_llm_server import serve_llm, write_scenario
from tests.integration.test_eval_shipped import REPO, sample_task_ids
from tests.support_server_profiles import PROFILES, uses_keyword
from tests.unit.clients.library_tasks import HostThread, library, library_master  # noqa: F401 - fixtures

RAMBLER = "return-solaris"
MALFORMED = "lend-ada-dune"


@pytest.fixture(scope="module")
def module_host(library_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostThread]:
    with HostThread([library_master], tmp_path_factory.mktemp("host") / "token") as running:
        yield running


def _config(host: HostThread, library_master: Path, out: Path, base_url: str) -> EvalConfig:
    return EvalConfig(domains=[str(library_master / "tiny_library")], agent="openai:test-agent", user="scripted",
                      out=out, base_url=base_url, url=host.url, control_url=host.control_url,
                      token_file=host.token_file, llm_retries=0, llm_backoff=0.01, max_turns=4, max_calls=6,
                      agent_max_tokens=300, concurrency=2)


@pytest.mark.parametrize("usage", [True, False], ids=["usage", "no-usage"])
@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_an_oracle_like_model_scores_1_and_a_rambler_0_as_its_own_failure(profile: str, usage: bool,
                                                                          library_master: Path,
                                                                          module_host: HostThread, tmp_path: Path):
    """Without ``usage`` in the replies, a cut tool call that the server reports as "tool_calls"
    (llama.cpp) is told from its arguments, which never close. A malformed tool call (vLLM's docs:
    auto-parsed arguments may be malformed) is the agent's failed call, and goes back in the history
    as ``{}``: vLLM and SGLang answer 400 to a history whose arguments are not JSON."""
    tasks = list(load_domain(library_master / "tiny_library").tasks.values())
    scenario = write_scenario(tmp_path / "scenario.json", tasks, profile=profile, ramble={RAMBLER},
                              malformed={MALFORMED}, usage=usage)
    config = _config(module_host, library_master, tmp_path / "run", "")
    # llama.cpp dies on the served maxLength of a called tool: eval is run there with --portable-schemas (below)
    config.portable_schemas = PROFILES[profile].dies_on_max_length is not None
    with serve_llm(scenario) as server:
        results = anyio.run(run_eval, config.model_copy(update={"base_url": server.base_url}))
        requests = list(server.requests)

    records = {json.loads(x)["key"]: json.loads(x) for x in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()}
    assert results.infra_failures == [] and all(r["status"] == EpisodeStatus.completed.value for r in records.values())
    rewards = {k.split("/")[1].split("#")[0]: r["reward"] for k, r in records.items()}
    assert rewards.pop(RAMBLER) == 0.0
    assert set(rewards.values()) == {1.0}, rewards
    problems = results.model_problems
    assert problems.truncated_episodes == [f"tiny_library/{RAMBLER}#0"] and problems.truncated_replies >= 2
    # where the server's parser gives up on a cut call (vLLM, SGLang) the rambler made no tool call at all
    cut_as_text = PROFILES[profile].cut_auto_call_as_text
    assert problems.no_tool_call == ([f"tiny_library/{RAMBLER}#0"] if cut_as_text else [])
    # What every server needs from us: tools with tool_choice auto, a token cap, never a null content,
    # never tool-call arguments that are not JSON.
    with_tools = [r for r in requests if r.get("tools")]
    assert with_tools and all(r["tool_choice"] == "auto" and r["max_tokens"] == 300 for r in with_tools)
    assert not any(m.get("content") is None for r in requests for m in r["messages"])
    sent = [c["function"]["arguments"] for r in requests for m in r["messages"] for c in m.get("tool_calls") or []]
    assert "{}" in sent and all(isinstance(json.loads(a), dict) for a in sent)


@pytest.mark.parametrize("profile", sorted(p for p in PROFILES if PROFILES[p].context_error))
def test_a_conversation_that_outgrows_the_context_is_the_models_end_not_infrastructure(
        profile: str, library_master: Path, module_host: HostThread, tmp_path: Path):
    """Issue #31's sweep: llama-cpp-python ignores max_tokens with tool_choice auto, a tool call's
    arguments ran to the end of the 1,536-token context, and the next request was refused (400, "maximum
    context length"): an infrastructure failure, though the model filled its own context. It ends the
    episode, scored, ``end_reason`` context_full, listed in ``model_problems``."""
    tasks = list(load_domain(library_master / "tiny_library").tasks.values())
    overflowing = tasks[0].id
    scenario = write_scenario(tmp_path / "scenario.json", tasks, profile=profile, ask_first=False,
                              overflow={overflowing})
    config = _config(module_host, library_master, tmp_path / "run", "")
    config.portable_schemas = PROFILES[profile].dies_on_max_length is not None
    with serve_llm(scenario) as server:
        results = anyio.run(run_eval, config.model_copy(update={"base_url": server.base_url}))
    assert results.infra_failures == []
    records = {json.loads(x)["task_id"]: json.loads(x) for x in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()}
    full = records.pop(overflowing)
    assert full["status"] == "completed" and full["end_reason"] == "context_full" and full["reward"] == 0.0
    assert {r["reward"] for r in records.values()} == {1.0}
    key = f"tiny_library/{overflowing}#0"
    assert results.model_problems.context_full == [key] and key in results.model_problems.truncated_episodes


def test_tools_the_model_never_saw_are_reported_as_no_tool_call(library_master: Path, module_host: HostThread,
                                                                tmp_path: Path):
    """The issue's first finding: 0 tool calls in 25 requests, and nothing said so."""
    tasks = list(load_domain(library_master / "tiny_library").tasks.values())[:1]
    scenario = write_scenario(tmp_path / "scenario.json", tasks, profile="llama.cpp", ask_first=False)
    scenario.write_text(scenario.read_text().replace('"actions": [', '"never_calls": true, "actions": ['))
    config = _config(module_host, library_master, tmp_path / "run", "")
    with serve_llm(scenario) as server:
        results = anyio.run(run_eval, config.model_copy(update={"base_url": server.base_url,
                                                                "tasks": tasks[0].id}))
    assert results.model_problems.no_tool_call == [f"tiny_library/{tasks[0].id}#0"]
    assert results.avg_at_k == 0.0 and results.infra_failures == []


def test_a_server_that_dies_on_a_served_schema_is_scored_with_portable_schemas(
        library_master: Path, module_host: HostThread, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """Issue #31's sweep: llama-cpp-python (chatml-function-calling) died building a grammar from the
    ``maxLength`` the host gives every string, on the first tool the model called. A dropped connection
    is no refusal, so the automatic fallback cannot help: every episode was an infrastructure failure.
    ``portable_schemas`` (``--portable-schemas``) sends reduced schemas from the first request."""
    tasks = list(load_domain(library_master / "tiny_library").tasks.values())
    ids = sorted(t.id for t in tasks)
    scenario = write_scenario(tmp_path / "scenario.json", tasks, profile="llama.cpp", ask_first=False)
    config = _config(module_host, library_master, tmp_path / "run", "").model_copy(update={"concurrency": 1})

    with serve_llm(scenario) as server, pytest.raises(HarnessError, match="every episode failed for infrastructure "
                                                                     "reasons.*APIConnectionError"):
        anyio.run(run_eval, config.model_copy(update={"base_url": server.base_url}))
    assert server.dead  # as served, the first call killed it: nothing was scored

    with serve_llm(scenario) as server:
        results = anyio.run(run_eval, config.model_copy(update={"base_url": server.base_url, "out": tmp_path / "again",
                                                                "portable_schemas": True}))
        requests = list(server.requests)
        assert not server.dead
    assert results.infra_failures == [] and results.avg_at_k == 1.0
    with_tools = [r for r in requests if r.get("tools")]
    assert with_tools and not any(uses_keyword(r["tools"], "maxLength") for r in with_tools)
    assert "at most 10000 characters" in json.dumps(with_tools[0]["tools"])  # the bound is still told
    fallback = results.schema_fallback
    assert fallback is not None and "--portable-schemas" in fallback.reason and fallback.episodes == len(ids)
    print_results(results)  # asked for, not a refusal: the summary does not blame the server
    said = " ".join(capsys.readouterr().out.split())
    assert "the tool schemas went reduced, as asked (--portable-schemas)" in said and "refused" not in said


def test_a_server_that_refuses_pattern_still_scores_a_shipped_domain(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]):
    """Issue #31: llama-cpp-python answers 500 to "pattern" in a tool schema, and every shipped domain
    has hundreds; each episode used to be an infrastructure failure."""
    domain = REPO / "domains" / "smart_home"
    ids = sample_task_ids(domain)
    tasks = [load_domain(domain).tasks[i] for i in ids]
    scenario = write_scenario(tmp_path / "scenario.json", tasks, profile="llama.cpp", ask_first=False)
    with HostThread([domain], tmp_path / "token", skip_validation=True) as host, serve_llm(scenario) as server:
        config = EvalConfig(domains=[str(domain)], tasks=",".join(ids), agent="openai:test-agent", user="scripted",
                            out=tmp_path / "run", base_url=server.base_url, url=host.url, control_url=host.control_url,
                            token_file=host.token_file, llm_retries=0, llm_backoff=0.01, concurrency=1)
        results = anyio.run(run_eval, config)
        requests = list(server.requests)

    assert results.infra_failures == [] and results.overall.episodes == len(ids)
    assert results.avg_at_k == 1.0, (tmp_path / "run" / "episodes.jsonl").read_text()[:3000]
    # One refused request with the schemas as served, then reduced schemas for the rest of the run.
    with_tools = [r for r in requests if r.get("tools")]
    assert [uses_keyword(r["tools"], "pattern") for r in with_tools].count(True) == 1
    assert uses_keyword(with_tools[0]["tools"], "pattern")
    fallback = results.schema_fallback
    assert fallback is not None and "pattern" in fallback.reason and "500" in fallback.reason
    assert fallback.episodes == len(ids) and fallback.requests == len(with_tools) - 1
    records = [json.loads(x) for x in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert all(r["end_reason"] == "user_stop" and r["schema_fallback"] == fallback.reason for r in records)
    # What the dropped keywords said is still told to the model.
    described = json.dumps(with_tools[1]["tools"])
    assert "must match ^" in described
    # ... and the summary says it once.
    print_results(results)
    said = " ".join(capsys.readouterr().out.split())
    assert said.count("the server refused the tool schemas as served") == 1
    assert f"{len(ids)} episode(s) got them reduced to type, properties" in said
