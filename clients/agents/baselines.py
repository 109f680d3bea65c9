"""Reference agents: oracle (the gold actions, scores 1), noop (does nothing, scores 0).

They bracket every task: admission requires the oracle to score 1 and noop 0 (PAPER: peers'
lessons), and ``scaleenv eval --agent oracle|noop`` checks that on any host over real MCP.
"""

from __future__ import annotations

from clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction
from scaleenv_mcp.domain.task import Task

__all__ = ["NoopAgent", "OracleAgent"]

DONE_MESSAGE = "All done: your request has been completed."
NOOP_MESSAGE = "Sorry, I can't help with that."


class OracleAgent:
    """Replays the task's reference actions through MCP, then reports the goal done.

    Privileged by design (it reads ``task.actions``); the trace shows every replayed call.
    """

    def __init__(self, task: Task) -> None:
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
        return MessageAction(text=f"{DONE_MESSAGE} {facts}".strip())


class NoopAgent:
    """Never calls a tool; tells the user it cannot help."""

    def __init__(self) -> None:
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        return MessageAction(text=NOOP_MESSAGE)
