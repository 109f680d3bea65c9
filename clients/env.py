"""One dialogue episode as an environment: the agent acts, the env runs the tools and the user.

``EvalEnv`` is the engine under both the eval runner and the gym API. ``reset(task)``
creates an episode through the control API, connects to its MCP endpoint and returns the
user's opening and the tool list; ``step(action)`` runs a tool call over MCP or hands a
message (private reasoning stripped) to the simulated user. Only the user ends a dialogue
(``###STOP###``); budgets end it otherwise. The reward comes from the control API when the
episode is done. Every event is recorded with its timing in ``trace``. Infrastructure
failures raise ``InfraError``; they are never turned into a reward.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from scaleenv_mcp.clients.mcp_session import McpSession
from scaleenv_mcp.clients.models import (
    Action,
    EndReason,
    EpisodeTrace,
    InfraError,
    InfraKind,
    MessageAction,
    Observation,
    ResetResult,
    StepInfo,
    StepResult,
    ToolCallAction,
    TraceEvent,
)
from scaleenv_mcp.clients.reasoning import strip_private_reasoning
from scaleenv_mcp.clients.user_sim import UserSimulator, is_stop
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import EnvironmentFaultError, HarnessError, UsageError
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["Budgets", "EvalEnv", "mismatch_lines"]

_ACTION: TypeAdapter[Action] = TypeAdapter(Action)


class Budgets(BaseModel):
    max_turns: int = Field(default=20, ge=1, description="Agent messages to the user per episode.")
    max_calls: int = Field(default=50, ge=0, description="Tool calls per episode.")
    call_timeout: float = Field(default=60.0, gt=0, description="Seconds to wait for one tool call.")


def mismatch_lines(report: RewardReport, limit: int = 20) -> list[str]:
    """The reward's mismatches, readable: table, row, column, reason."""
    return [f"{m.table} {m.row} {m.column or ''}: {m.reason}".replace("  :", ":") for m in report.mismatches[:limit]]


def _infra(error: HarnessError) -> InfraError:
    """Control-API failures during an episode are infrastructure (transport when unreachable)."""
    unreachable = isinstance(error, EnvironmentFaultError) and "unreachable" in error.message
    return InfraError(InfraKind.transport if unreachable else InfraKind.environment, error.message)


class EvalEnv:
    """Async env over a host's control API. ``user_factory`` builds the simulated user per task."""

    def __init__(self, control: ControlClient, user_factory: Callable[[Task], UserSimulator],
                 budgets: Budgets | None = None, episode_url: Callable[[str], str] = str) -> None:
        self.control = control
        self.episode_url = episode_url  # maps the control API's agent URL to one we can reach
        self.user_factory = user_factory
        self.budgets = budgets or Budgets()
        self.task: Task | None = None
        self.episode_id: str | None = None
        self.session: McpSession | None = None
        self.user: UserSimulator | None = None
        self.trace: EpisodeTrace | None = None
        self.report: RewardReport | None = None
        self.turns = self.calls = 0
        self._agent_ms = 0.0
        self.done = True
        self._start = self._returned = 0.0

    def _event(self, started: float, **fields: Any) -> None:
        now = time.perf_counter()
        assert self.trace is not None
        self.trace.events.append(TraceEvent(at_ms=round((started - self._start) * 1000, 3),
                                            duration_ms=round((now - started) * 1000, 3), **fields))

    async def reset(self, task: Task) -> ResetResult:
        """Start a fresh episode of ``task``; closes the previous one.

        Raises:
            InfraError: the host could not create or serve the episode.
            UsageError: the host does not know the task.
        """
        await self.close()
        self.task, self.report, self.turns, self.calls, self.done = task, None, 0, 0, False
        self._start = time.perf_counter()
        try:
            [info] = await self.control.create_episodes(task.domain, task.id)
        except UsageError:
            raise
        except HarnessError as error:
            raise _infra(error) from None
        self.episode_id = info.id
        self.trace = EpisodeTrace(key=f"{task.domain}/{task.id}", domain=task.domain, task_id=task.id, trial=0,
                                  episode_id=info.id)
        self.session = await McpSession.open(self.episode_url(info.agent_url), self.budgets.call_timeout)
        self.trace.instructions = self.session.instructions
        self.user = self.user_factory(task)
        started = time.perf_counter()
        opening = await self.user.opening()
        self._event(started, kind="user", text=opening)
        self._returned = time.perf_counter()
        return ResetResult(episode_id=info.id, observation=Observation(kind="user_message", text=opening),
                           tools=list(self.session.tools), instructions=self.session.instructions)

    def _info(self, end: EndReason | None = None) -> StepInfo:
        report = self.report
        return StepInfo(turns=self.turns, calls=self.calls, end_reason=end,
                        table_match=dict(report.table_match) if report else {},
                        mismatches=mismatch_lines(report) if report else [])

    async def step(self, action: Action | dict[str, Any]) -> StepResult:
        """Apply one agent action: a tool call, or a message to the user.

        Raises:
            InfraError: transport, environment or LLM (user simulator) failure.
            UsageError: the episode is done (call ``reset``).
        """
        if self.done or self.session is None or self.user is None:
            raise UsageError("the episode is done: call reset(task) to start another")
        self._agent_ms = round((time.perf_counter() - self._returned) * 1000, 3)
        if isinstance(action, dict):
            try:
                action = _ACTION.validate_python(action)
            except ValidationError as exc:
                raise UsageError(f"not an action ({{'kind': 'tool_call'|'message', ...}}): {exc.errors()[0]['msg']}") from None
        try:
            if isinstance(action, ToolCallAction):
                return await self._tool_call(action)
            return await self._message(action)
        finally:
            self._returned = time.perf_counter()

    async def _tool_call(self, action: ToolCallAction) -> StepResult:
        assert self.session is not None
        if self.calls >= self.budgets.max_calls:
            return await self._finish(EndReason.call_budget)
        self.calls += 1
        started = time.perf_counter()
        known = {t.name for t in self.session.tools}
        if action.arguments_error:
            text, is_error, structured, executed = f"invalid_argument: {action.arguments_error}", True, None, False
        elif action.name not in known:
            text, is_error, structured, executed = f"unknown_tool: no tool named {action.name!r}", True, None, False
        else:
            outcome = await self.session.call(action.name, action.arguments)
            text, is_error, structured, executed = outcome.text, outcome.is_error, outcome.structured, True
        self._event(started, kind="tool_call", agent_ms=self._agent_ms, tool=action.name, arguments=action.arguments,
                    call_id=action.call_id, result=text, is_error=is_error, executed=executed)
        observation = Observation(kind="tool_result", text=text, call_id=action.call_id, tool=action.name,
                                  is_error=is_error, structured=structured if not is_error else None)
        return StepResult(observation=observation, reward=0.0, done=False, info=self._info())

    async def _message(self, action: MessageAction) -> StepResult:
        assert self.user is not None
        self.turns += 1
        shown = strip_private_reasoning(action.text)
        self._event(time.perf_counter(), kind="agent", agent_ms=self._agent_ms, text=shown,
                    raw_text=action.text if action.text.strip() != shown else None)
        if self.turns >= self.budgets.max_turns:
            return await self._finish(EndReason.turn_budget)
        started = time.perf_counter()
        reply = await self.user.reply(shown)
        self._event(started, kind="user", text=reply)
        if is_stop(reply):
            return await self._finish(EndReason.user_stop)
        return StepResult(observation=Observation(kind="user_message", text=reply), reward=0.0, done=False,
                          info=self._info())

    async def end(self, reason: EndReason) -> StepResult:
        """End the episode now and score it: the agent can act no more (its conversation outgrew its
        model's context, ``EndReason.context_full``)."""
        if self.done or self.session is None:
            raise UsageError("the episode is done: call reset(task) to start another")
        return await self._finish(reason)

    async def _finish(self, reason: EndReason) -> StepResult:
        assert self.episode_id is not None
        self.done = True
        try:
            self.report = await self.control.reward(self.episode_id, self.trace.told() if self.trace else [])
        except UsageError:
            raise
        except HarnessError as error:
            raise _infra(error) from None
        return StepResult(observation=None, reward=self.report.reward, done=True, info=self._info(reason))

    async def close(self) -> None:
        """Disconnect and close the episode on the host (errors here are not the agent's business)."""
        session, episode_id = self.session, self.episode_id
        self.session, self.episode_id, self.done = None, None, True
        if session is not None:
            await session.close()
        if episode_id is not None:
            try:
                await self.control.close(episode_id)
            except HarnessError:
                pass  # the host may already have reaped it; nothing to score is lost here
