"""Random agent arguments, role specs, the --domains spelling, a run folder that survives a kill, and the
folders an eval's Ray tasks are given."""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from scaleenv_mcp.clients.agents.random_agent import sample_value
from scaleenv_mcp.clients.cli import spread_domains
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus, EpisodeTrace
from scaleenv_mcp.clients.on_ray import EpisodeJob
from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.specs import AGENT_KINDS, USER_KINDS, parse_role
from scaleenv_mcp.clients.store import RunStore
from scaleenv_mcp.errors import UsageError

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library" / "domain.json"


def test_random_arguments_satisfy_every_tool_schema_and_follow_the_seed():
    tools = json.loads(FIXTURE.read_text())["tools"]
    extra = {"type": "object", "required": ["n", "tags", "when"], "properties": {
        "n": {"type": "integer", "minimum": 3, "maximum": 5}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}},
        "when": {"type": "string", "format": "date"}, "x": {"type": ["number", "null"]}}}
    for seed in range(20):
        for schema in [t["input_schema"] for t in tools] + [extra]:
            value = sample_value(schema, random.Random(seed), ["MEM-00001", "BK-00003"])
            jsonschema.validate(value, schema)
            assert value == sample_value(schema, random.Random(seed), ["MEM-00001", "BK-00003"])


def test_role_specs():
    assert str(parse_role("openai:gpt-4.1-mini", AGENT_KINDS, "--agent")) == "openai:gpt-4.1-mini"
    assert parse_role("oracle", AGENT_KINDS, "--agent").model is None
    for bad, allowed in (("openai", AGENT_KINDS), ("oracle:x", AGENT_KINDS), ("oracle", USER_KINDS), ("gpt", AGENT_KINDS)):
        with pytest.raises(UsageError):
            parse_role(bad, allowed, "--agent")


def test_domains_take_several_values_after_one_flag():
    assert spread_domains(["--domains", "a", "b", "--agent", "oracle", "--domains", "c"]) == [
        "--domains", "a", "--domains", "b", "--agent", "oracle", "--domains", "c"]


def _record(key: str, reward: float) -> EpisodeRecord:
    return EpisodeRecord(key=key, domain="d", task_id=key, trial=0, seed=1, status=EpisodeStatus.completed, reward=reward)


def test_a_torn_last_line_is_cut_and_the_last_record_of_a_key_wins(tmp_path: Path):
    store = RunStore(tmp_path / "run")
    store.prepare()
    store.append(_record("a", 1.0), EpisodeTrace(key="a", domain="d", task_id="a", trial=0))
    with store.records_path.open("a") as handle:
        handle.write('{"key": "b", "dom')  # killed mid-write
    store.prepare()  # what a resumed run does first
    store.append(_record("b", 0.0), EpisodeTrace(key="b", domain="d", task_id="b", trial=0))
    store.append(_record("a", 0.0), EpisodeTrace(key="a", domain="d", task_id="a", trial=0))
    assert {k: r.reward for k, r in store.records().items()} == {"a": 0.0, "b": 0.0}
    assert all(json.loads(line) for line in store.records_path.read_text().splitlines())


def test_eval_ray_tasks_get_the_run_and_cache_folders_as_absolute_paths(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    # a Ray task opens the LLM cache on its own node, in a worker whose working directory is Ray's choice
    monkeypatch.chdir(tmp_path)
    agent, user = parse_role("openai:m", AGENT_KINDS, "--agent"), parse_role("scripted", USER_KINDS, "--user")
    default = EpisodeJob(EvalConfig(domains=["x"], agent="openai:m", out=Path("runs/a")), agent, user, "u", "t", "v")
    assert (default.config.out, default.config.cache_dir) == (tmp_path / "runs" / "a", None)  # cache: OUT/llm-cache
    given = EpisodeJob(EvalConfig(domains=["x"], agent="openai:m", out=Path("runs/a"), cache_dir=Path("cache")),
                       agent, user, "u", "t", "v")
    assert given.config.cache_dir == tmp_path / "cache"
