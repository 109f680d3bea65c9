"""Example: collect RL rollouts with the gym API, with any policy that maps observations to actions.

    python -m scaleenv_mcp.clients.examples.rollout --domain smart_home --model gpt-4.1-mini --base-url http://127.0.0.1:8000/v1

A policy is anything with ``async act(observation) -> action`` (the eval agents qualify; an
RL trainer's policy wraps its model the same way). The environment plays the user; the
reward arrives when the user ends the dialogue. A rollout that raised ``InfraError`` is
dropped, not scored: the world failed, not the policy.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.clients.gym import ScaleEnvGym
from scaleenv_mcp.clients.models import InfraError, Observation, ResetResult

__all__ = ["Rollout", "rollout"]


class Rollout(BaseModel):
    task_id: str
    reward: float | None  # None: dropped for an infrastructure failure
    steps: list[dict[str, Any]]


async def rollout(env: ScaleEnvGym, task_id: str, make_policy: Callable[[ResetResult], Any]) -> Rollout:
    """One episode: reset, then step the policy's actions until done."""
    steps: list[dict[str, Any]] = []
    try:
        start = await env.reset(task_id)
        policy = make_policy(start)
        observation: Observation | None = start.observation
        done, reward = False, 0.0
        while not done:
            assert observation is not None
            action = await policy.act(observation)
            observation, reward, done, info = await env.step(action)
            steps.append({"action": action.model_dump(), "reward": reward, "done": done})
    except InfraError:
        return Rollout(task_id=task_id, reward=None, steps=steps)
    return Rollout(task_id=task_id, reward=reward, steps=steps)


async def _main(domain: str, model: str, base_url: str | None, limit: int) -> None:
    from scaleenv_mcp.clients.agents import AgentView, OpenAIAgent
    from scaleenv_mcp.clients.llm import LLMClient, LLMSettings

    llm = LLMClient(LLMSettings(base_url=base_url))
    try:
        async with ScaleEnvGym.local([domain], user="scripted") as env:
            for n, task_id in enumerate(sorted({t.id for t in env.tasks.values()})[:limit]):
                result = await rollout(env, task_id, lambda s: OpenAIAgent(
                    AgentView(tools=s.tools, instructions=s.instructions, seed=n), llm, model))
                print(f"{task_id}: reward {result.reward} after {len(result.steps)} steps")
    finally:
        await llm.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--base-url")
    parser.add_argument("--limit", type=int, default=3)
    options = parser.parse_args()
    asyncio.run(_main(options.domain, options.model, options.base_url, options.limit))
