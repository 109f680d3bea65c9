"""What an agent is to the eval clients: a policy from observations to actions.

An agent sees the episode's tools, the MCP instructions (domain, date, policy) and the
observations the env gives it: the user's messages and its own tool results. It never gets
the task (gold, actions, instruction, withheld facts): ``AgentView`` has no field for them.
The oracle is the one exception, built with the task on purpose, and its trace shows it.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from scaleenv_mcp.clients.models import Action, ListedTool, Observation, TokenUsage

__all__ = ["Agent", "AgentView"]


class AgentView(BaseModel):
    """Everything a (non-oracle) agent may know about its episode."""

    tools: list[ListedTool]
    instructions: str = ""
    seed: int = Field(description="Seed of this episode's agent (random choices, LLM calls).")


class Agent(Protocol):
    usage: TokenUsage

    async def act(self, observation: Observation) -> Action:
        """The next action after ``observation`` (a user message or the last tool result)."""
        ...
