"""Agents the eval clients can run: oracle, noop, random and openai (function calling over MCP)."""

from __future__ import annotations

from scaleenv_mcp.clients.agents.base import Agent, AgentView
from scaleenv_mcp.clients.agents.baselines import NoopAgent, OracleAgent
from scaleenv_mcp.clients.agents.openai_agent import OpenAIAgent
from scaleenv_mcp.clients.agents.random_agent import RandomAgent
from scaleenv_mcp.clients.llm import LLMClient
from scaleenv_mcp.clients.specs import RoleSpec
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import UsageError

__all__ = ["Agent", "AgentView", "NoopAgent", "OpenAIAgent", "OracleAgent", "RandomAgent", "build_agent"]


def build_agent(spec: RoleSpec, view: AgentView, task: Task, llm: LLMClient | None) -> Agent:
    """The agent ``spec`` names, for one episode. Only the oracle is given the task."""
    if spec.kind == "oracle":
        return OracleAgent(task)
    if spec.kind == "noop":
        return NoopAgent()
    if spec.kind == "random":
        return RandomAgent(view)
    if spec.kind == "openai" and llm is not None and spec.model:
        return OpenAIAgent(view, llm, spec.model)
    raise UsageError(f"cannot build agent {spec}")
