"""The gym API, async and sync, over a real host: reset gives the opening and the tools, step runs
tool calls over MCP and hands messages to the simulated user, the reward arrives when the user
ends it; budgets end it otherwise; an environment fault is an InfraError, never a reward."""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.clients.agents import AgentView, OracleAgent, RandomAgent
from scaleenv_mcp.clients.env import Budgets
from scaleenv_mcp.clients.examples.rollout import rollout
from scaleenv_mcp.clients.gym import ScaleEnvGym, SyncScaleEnvGym
from scaleenv_mcp.clients.models import EndReason, InfraError, InfraKind, MessageAction, ToolCallAction
from scaleenv_mcp.errors import UsageError
from tests.unit.clients.library_tasks import library, library_master  # noqa: F401 - fixtures

TOOLS = {"find_books", "get_member", "borrow_book", "return_book", "tally", "repeat_text"}


@pytest.mark.anyio
async def test_async_gym_episode_and_the_example_rollout_loop(library: Path):
    async with ScaleEnvGym.local([str(library / "tiny_library")]) as env:
        start = await env.reset("lend-ada-dune")
        assert start.observation.kind == "user_message" and start.observation.text == "Hi, I'd like to borrow Dune."
        assert {t.name for t in start.tools} == TOOLS and "Today is 2026-03-10" in start.instructions
        observation, reward, done, info = await env.step(
            {"kind": "tool_call", "name": "find_books", "arguments": {"text": "Dune"}, "call_id": "c1"})
        assert not done and reward == 0.0 and observation.call_id == "c1" and "BK-00001" in observation.text
        observation, reward, done, info = await env.step(MessageAction(text="Sure. What is your member id?"))
        assert observation.kind == "user_message" and "MEM-00001" in observation.text
        await env.step(ToolCallAction(name="borrow_book", arguments={"member_id": "MEM-00001", "book_id": "BK-00001"}))
        observation, reward, done, info = await env.step(
            MessageAction(text="<think>gold?</think>Your loan of Dune has been completed."))
        assert done and reward == 1.0 and observation is None and info.end_reason is EndReason.user_stop
        assert info.table_match == {"books": 1.0, "loans": 1.0} and (info.turns, info.calls) == (2, 2)
        assert [e.kind for e in env.trace.events] == ["user", "tool_call", "agent", "user", "tool_call", "agent", "user"]
        assert env.trace.events[-2].text == "Your loan of Dune has been completed."
        with pytest.raises(UsageError, match="reset"):
            await env.step(MessageAction(text="hello?"))

        # The documented rollout loop, with the oracle and the random baseline as policies.
        tasks = env.tasks
        solved = await rollout(env, "swap-solaris", lambda s: OracleAgent(tasks["swap-solaris"]))
        assert solved.reward == 1.0 and len(solved.steps) == 3
        random = await rollout(env, "lend-grace", lambda s: RandomAgent(AgentView(tools=s.tools, seed=5)))
        assert random.reward is not None and random.steps[-1]["done"]


def test_sync_gym_budgets_agent_mistakes_and_environment_faults(library: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SCALEENV_CALL_TIMEOUT", "1")  # the host started here: a runaway tool is cut after 1 s
    with SyncScaleEnvGym.local([str(library / "tiny_library")], budgets=Budgets(max_calls=2, max_turns=5)) as env:
        env.reset("lend-grace")
        observation, _, done, _ = env.step({"kind": "tool_call", "name": "drop_tables", "arguments": {}})
        assert observation.is_error and "unknown_tool" in observation.text and not done  # the agent's mistake
        observation, _, done, _ = env.step(ToolCallAction(name="get_member", arguments={"member_id": "MEM-404"}))
        assert observation.is_error and observation.text.startswith("not_found") and not done
        observation, reward, done, info = env.step(ToolCallAction(name="find_books", arguments={"text": "x"}))
        assert done and reward == 0.0 and info.end_reason is EndReason.call_budget
        assert [e.executed for e in env.trace.events if e.kind == "tool_call"] == [False, True]

        env.reset("lend-grace")
        with pytest.raises(InfraError) as fault:
            env.step(ToolCallAction(name="tally", arguments={"upto": 10**12}))
        assert fault.value.kind is InfraKind.environment
        start = env.reset("lend-grace")  # the host recovered: a new episode works
        assert start.observation.text.startswith("Hello!")
