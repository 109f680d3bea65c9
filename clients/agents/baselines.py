"""Reference agents: oracle (the gold actions, scores 1), noop (does nothing, scores 0).

They bracket every task: admission requires the oracle to score 1 and noop 0 (PAPER: peers'
lessons), and ``scaleenv eval --agent oracle|noop`` checks that on any host over real MCP.
"""

from __future__ import annotations

from scaleenv_mcp.clients.completion import done_statement
from scaleenv_mcp.clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction
from scaleenv_mcp.domain.task import Task

__all__ = ["NoopAgent", "OracleAgent", "done_message"]

NOOP_MESSAGE = "Sorry, I can't help with that."


class OracleAgent:
    """Replays the task's reference actions through MCP, then reports the goal done.

    Privileged by design (it reads ``task.actions``); the trace shows every replayed call.
    """

    def __init__(self, task: Task) -> None:
        self.done_message = done_message(task)
        self.pending = list(task.actions)
        self.communicate = list(task.communicate)
        self.usage = TokenUsage()
        self.index = 0

    async def act(self, observation: Observation) -> Action:
        if self.index < len(self.pending):
            action = self.pending[self.index]
            self.index += 1
            return ToolCallAction(name=action.tool, arguments=dict(action.arguments), call_id=f"oracle_{self.index}")
        facts = " ".join(self.communicate)
        return MessageAction(text=f"{self.done_message} {facts}".strip())


def done_message(task: Task) -> str:
    """The oracle's statement that it did the task (clients/completion.py ``done_statement``)."""
    return done_statement([a.tool for a in task.actions], task.user.opening, task.kind == "refusal")


class NoopAgent:
    """Never calls a tool; tells the user it cannot help."""

    def __init__(self) -> None:
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        return MessageAction(text=NOOP_MESSAGE)
