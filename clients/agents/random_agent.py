"""A seeded random baseline: a few schema-valid tool calls, then it says it is done.

It is the floor an agent must beat with the same tools: arguments are drawn from each
tool's input JSON Schema, and strings prefer values seen in earlier results (ids, names), so
its calls reach the tools' logic instead of bouncing off validation. Same seed, same calls.
"""

from __future__ import annotations

import random

from scaleenv_mcp.clients.adapters.schema_values import collect_strings, sample_value
from scaleenv_mcp.clients.agents.base import AgentView
from scaleenv_mcp.clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction

__all__ = ["RandomAgent", "sample_value"]


class RandomAgent:
    def __init__(self, view: AgentView, max_calls: int = 5) -> None:
        self.rng = random.Random(view.seed)
        self.tools = view.tools
        self.remaining = self.rng.randint(1, max_calls) if self.tools else 0
        self.seen: list[str] = []
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        collect_strings(observation.structured, self.seen)
        if observation.kind == "user_message":
            self.seen += [w.strip(".,!?") for w in observation.text.split() if any(c.isdigit() for c in w)]
        if self.remaining <= 0:
            return MessageAction(text="Done.")
        self.remaining -= 1
        tool = self.rng.choice(self.tools)
        arguments = sample_value(tool.input_schema, self.rng, self.seen)
        return ToolCallAction(name=tool.name, arguments=arguments if isinstance(arguments, dict) else {},
                              call_id=f"random_{self.remaining}")
