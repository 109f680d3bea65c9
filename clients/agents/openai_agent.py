"""An LLM agent over the episode's MCP tools, through OpenAI-style function calling.

Its whole world is the MCP instructions (domain, date, policy), the tool list, the user's
messages and its tool results: the view any deployed agent has. It never sees the task.
One model reply may hold several tool calls; they are handed to the env one per step and
their results go back as ``tool`` messages before the model is asked again.
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.clients.agents.base import AgentView
from scaleenv_mcp.clients.llm import LLMClient
from scaleenv_mcp.clients.models import Action, MessageAction, Observation, TokenUsage, ToolCallAction

__all__ = ["OpenAIAgent", "function_tools"]

SYSTEM_PROMPT = """You are a support agent working for the service described below. Help the user by
calling the tools; ask the user for any information you need and cannot look up. Follow the
policy. When the request is handled, tell the user what you did.

"""


def function_tools(view: AgentView) -> list[dict[str, Any]]:
    """The episode's MCP tools as OpenAI function definitions (schemas as served)."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description,
                                              "parameters": t.input_schema}} for t in view.tools]


class OpenAIAgent:
    def __init__(self, view: AgentView, llm: LLMClient, model: str) -> None:
        self.llm = llm
        self.model = model
        self.seed = view.seed
        self.tools = function_tools(view)
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM_PROMPT + view.instructions}]
        self.queue: list[ToolCallAction] = []
        self.usage = TokenUsage()

    async def act(self, observation: Observation) -> Action:
        if observation.kind == "user_message":
            self.messages.append({"role": "user", "content": observation.text})
        else:
            self.messages.append({"role": "tool", "tool_call_id": observation.call_id, "content": observation.text})
        if self.queue:
            return self.queue.pop(0)
        reply = await self.llm.chat(self.model, self.messages, tools=self.tools, seed=self.seed)
        self.usage = self.usage.add(reply.usage)
        self.messages.append(reply.message)
        if reply.tool_calls:
            first, *self.queue = reply.tool_calls
            return first
        return MessageAction(text=reply.content or "")
