"""A gym-style API for RL frameworks: ``reset(task)`` and ``step(action)``, async and sync.

The environment runs the simulated user itself, so a policy only ever emits actions (a
tool call or a message to the user) and reads observations (tool results, user messages):

    async with ScaleEnvGym.local(["tiny_library"]) as env:
        start = await env.reset("lend-grace")            # opening message + tool list
        observation, reward, done, info = await env.step({"kind": "tool_call", "name": ..., "arguments": {...}})

``SyncScaleEnvGym`` offers the same calls from plain threads (it owns an event loop in a
background thread). The reward is 0 until the user ends the dialogue or a budget does;
then it is the control API's reward. An ``InfraError`` from ``reset`` or ``step`` means
the rollout should be dropped, not scored (see docs/eval.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from scaleenv_mcp.clients.env import Budgets, EvalEnv
from scaleenv_mcp.clients.hosting import connect
from scaleenv_mcp.clients.llm import LLMClient, LLMSettings
from scaleenv_mcp.clients.models import Action, EpisodeTrace, Observation, ResetResult, StepInfo
from scaleenv_mcp.clients.specs import USER_KINDS, parse_role
from scaleenv_mcp.clients.task_set import load_task_set
from scaleenv_mcp.clients.user_sim import build_user
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import UsageError

__all__ = ["ScaleEnvGym", "SyncScaleEnvGym"]

T = TypeVar("T")
Step = tuple[Observation | None, float, bool, StepInfo]


class ScaleEnvGym:
    """Async gym env over one host. ``tasks`` lets ``reset`` take a task id instead of a Task."""

    def __init__(self, control: ControlClient, *, user: str = "scripted", llm: LLMClient | None = None,
                 budgets: Budgets | None = None, seed: int = 0, tasks: list[Task] | None = None,
                 episode_url: Callable[[str], str] = str) -> None:
        self.user_spec = parse_role(user, USER_KINDS, "user")
        if self.user_spec.kind == "openai" and llm is None:
            raise UsageError("an openai: user needs an LLMClient (llm=...)")
        self.llm, self.seed, self.resets = llm, seed, 0
        self.tasks = {key: t for t in tasks or [] for key in (t.id, f"{t.domain}/{t.id}")}
        self.budgets = budgets or Budgets()
        self.env = EvalEnv(control, self._user, self.budgets, episode_url)

    def _user(self, task: Task) -> Any:
        return build_user(self.user_spec, task.user, self.seed + self.resets, self.llm, self.budgets.max_turns)

    @classmethod
    @contextlib.asynccontextmanager
    async def local(cls, domains: list[str], domain_dirs: list[Path] | None = None, *, user: str = "scripted",
                    base_url: str | None = None, budgets: Budgets | None = None, seed: int = 0,
                    url: str | None = None, control_url: str | None = None,
                    token_file: Path | None = None) -> AsyncIterator[ScaleEnvGym]:
        """An env over a host started here for ``domains`` (or the remote host the URLs name)."""
        task_set = load_task_set(domains, domain_dirs)
        llm = LLMClient(LLMSettings(base_url=base_url)) if user.startswith("openai:") else None
        paths = [str(p) for p in task_set.domain_paths.values()]
        try:
            async with connect(paths, domain_dirs, url=url, control_url=control_url, token_file=token_file) as conn:
                env = cls(conn.control, user=user, llm=llm, budgets=budgets, seed=seed, tasks=task_set.tasks,
                          episode_url=conn.episode_url)
                try:
                    yield env
                finally:
                    await env.close()
        finally:
            if llm is not None:
                await llm.aclose()

    async def reset(self, task: Task | str) -> ResetResult:
        """Start an episode of ``task`` (a Task, or an id known to this env): the opening and the tools."""
        if isinstance(task, str):
            if task not in self.tasks:
                raise UsageError(f"unknown task {task!r}")
            task = self.tasks[task]
        self.resets += 1
        return await self.env.reset(task)

    async def step(self, action: Action | dict[str, Any]) -> Step:
        """``(observation, reward, done, info)``; observation is None once done."""
        result = await self.env.step(action)
        return result.observation, result.reward, result.done, result.info

    @property
    def trace(self) -> EpisodeTrace | None:
        """Every message and tool call of the current episode, with timings."""
        return self.env.trace

    async def close(self) -> None:
        await self.env.close()


class SyncScaleEnvGym:
    """The same env for synchronous code: ``with SyncScaleEnvGym.local([...]) as env: env.reset(...)``.

    An owner coroutine on a private loop enters (and later exits) the async env, so every
    async context is left by the task that entered it, whatever thread calls us.
    """

    def __init__(self, factory: Callable[[], contextlib.AbstractAsyncContextManager[ScaleEnvGym]]) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="scaleenv-gym", daemon=True)
        self._thread.start()
        self._ready: asyncio.Future[ScaleEnvGym] = self._loop.create_future()
        self._closing = asyncio.Event()
        self._holder = asyncio.run_coroutine_threadsafe(self._hold(factory), self._loop)
        try:
            self.env: ScaleEnvGym = self._run(self._await_ready())
        except BaseException:
            self.close()
            raise

    @classmethod
    def local(cls, domains: list[str], domain_dirs: list[Path] | None = None, **options: Any) -> SyncScaleEnvGym:
        return cls(lambda: ScaleEnvGym.local(domains, domain_dirs, **options))

    async def _hold(self, factory: Callable[[], contextlib.AbstractAsyncContextManager[ScaleEnvGym]]) -> None:
        try:
            async with factory() as env:
                self._ready.set_result(env)
                await self._closing.wait()
        except BaseException as exc:
            if not self._ready.done():
                self._ready.set_exception(exc)
            raise

    async def _await_ready(self) -> ScaleEnvGym:
        return await self._ready

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()

    def reset(self, task: Task | str) -> ResetResult:
        return self._run(self.env.reset(task))

    def step(self, action: Action | dict[str, Any]) -> Step:
        return self._run(self.env.step(action))

    @property
    def trace(self) -> EpisodeTrace | None:
        return self.env.trace

    def close(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._closing.set)
            with contextlib.suppress(Exception):
                self._holder.result(timeout=30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)

    def __enter__(self) -> SyncScaleEnvGym:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
