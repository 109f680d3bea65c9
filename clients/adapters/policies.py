"""The two reference policies of the adapter examples, over plain dicts: oracle and random.

The same brackets as ``scaleenv eval --agent oracle|random`` (clients/agents): the oracle replays
a task's reference actions, then tells the user what the task says it must (its communicate
facts), and scores 1; the random policy makes a few schema-valid calls on random tools, then
says it is done, and scores about 0. Standard library only (adapters run where this project is
not installed; scaleenv_mcp.clients.completion is plain too); each example turns a ``Step`` into its framework's
action.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from scaleenv_mcp.clients.adapters.schema_values import collect_strings, sample_value
from scaleenv_mcp.clients.completion import done_statement

__all__ = ["OraclePolicy", "RandomPolicy", "Step"]

@dataclass(frozen=True)
class Step:
    """A tool call (``tool`` set) or the final message to the user (``message`` set)."""

    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    message: str | None = None


class OraclePolicy:
    """The task's reference actions (``actions`` of the control API's task card), then the oracle's
    statement that they are done (as ``scaleenv eval --agent oracle`` says it) with the facts to tell."""

    def __init__(self, task: dict[str, Any]) -> None:
        self.pending = list(task["actions"])
        done = done_statement([a["tool"] for a in task["actions"]], task["opening"], task.get("kind") == "refusal")
        self.message = " ".join([done, *task.get("communicate", [])])

    def next(self, observation: Any = None) -> Step:
        if self.pending:
            action = self.pending.pop(0)
            return Step(tool=action["tool"], arguments=dict(action.get("arguments", {})))
        return Step(message=self.message)


class RandomPolicy:
    """1 to ``max_calls`` random tools with arguments drawn from their input schemas; strings prefer
    values seen in earlier results. ``tools`` are MCP tool dicts (``name``, ``inputSchema``)."""

    def __init__(self, tools: list[dict[str, Any]], seed: int, max_calls: int = 5) -> None:
        self.rng = random.Random(seed)
        self.tools = tools
        self.remaining = self.rng.randint(1, max_calls) if tools else 0
        self.seen: list[str] = []

    def next(self, observation: Any = None) -> Step:
        collect_strings(observation, self.seen)
        if self.remaining <= 0:
            return Step(message="Done.")
        self.remaining -= 1
        tool = self.rng.choice(self.tools)
        arguments = sample_value(tool.get("inputSchema") or tool.get("input_schema") or {}, self.rng, self.seen)
        return Step(tool=tool["name"], arguments=arguments if isinstance(arguments, dict) else {})
