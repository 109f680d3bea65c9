"""Reference agents: oracle (the gold actions, scores 1), noop (does nothing, scores 0).

They bracket every task: admission requires the oracle to score 1 and noop 0 (PAPER: peers'
lessons), and ``scaleenv eval --agent oracle|noop`` checks that on any host over real MCP.
"""

from __future__ import annotations

from clients.completion import as_clause
from clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction
from scaleenv_mcp.domain.task import Task

__all__ = ["NoopAgent", "OracleAgent", "done_message"]

DONE_MESSAGE = "All done: I have completed {what} for you, as you asked ({request})."
REFUSE_MESSAGE = "I have looked into your request ({request}), but I can't do that."
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
    """What the oracle did, said as the user's stop rule needs it (clients/completion.py): the steps
    and the user's own request, so the statement names the goal ("All done" alone does not); for a
    refusal task, that it cannot be done (the user leaves on that too)."""
    what = ", ".join(dict.fromkeys(a.tool.replace("_", " ") for a in task.actions)) or "your request"
    request = as_clause(task.user.opening)
    if task.kind == "refusal":  # the policy forbids it: saying "done" would be a lie in the trace
        return REFUSE_MESSAGE.format(request=request)
    return DONE_MESSAGE.format(what=what, request=request)


class NoopAgent:
    """Never calls a tool; tells the user it cannot help."""

    def __init__(self) -> None:
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        return MessageAction(text=NOOP_MESSAGE)
