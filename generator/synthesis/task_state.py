"""The live state a candidate task is built on, and the patches that make its world answer.

A candidate's start state is the seed plus its setup rows (distractors, then patches); its
main episode holds that state with the task's chains run on it. The expansion probes tools
on forks of the main episode. When an added tool errors whatever arguments it is given
(every order is already shipped, no device is offline), the state is patched: a clone of a
row the tool acts on, with another status, is added to the setup, the chains are replayed
on a fresh episode of the patched setup (they must still succeed), and the tool is called
on the new row. If it answers, the patch is kept and the patched episode becomes the main
one; the task's gold is then taken from it, so the patch is part of the task's world (paper
phase 2, step 4: "execute it on the state and patch the state if it errors").
"""

from __future__ import annotations

import random
from itertools import count
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, TaskAction
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind
from scaleenv_mcp.errors import EnvironmentFaultError, HarnessError
from scaleenv_mcp.generator.synthesis.start_state import DistractorBuilder
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.model import RowOp

if TYPE_CHECKING:
    from scaleenv_mcp.generator.synthesis.hosting import SynthesisHost

__all__ = ["TaskState"]

PATCH_SOURCES = 2  # rows whose variants are tried
PATCH_CANDIDATES = 4  # patched start states tried (each one replays the task) before a tool is given up


class TaskState:
    """The main episode of one candidate, its setup rows and the patches made to them."""

    def __init__(self, host: SynthesisHost, slug: str, manifest: DomainManifest, builder: DistractorBuilder, world: World,
                 name: str, setup: list[RowOp], used: dict[str, int]) -> None:
        self.host, self.slug, self.manifest, self.builder = host, slug, manifest, builder
        self.name = name
        self.setup = list(setup)
        self.world = world
        self.used = used  # key counters shared with the distractors: a patch never reuses their ids
        self.patches: list[RowOp] = []
        self.episode_id: str | None = None
        self._drafts = count()

    @property
    def ops(self) -> list[RowOp]:
        return self.setup + self.patches

    async def _episode(self, ops: list[RowOp]) -> str:
        draft = Task(id=f"{self.name}:{next(self._drafts)}", domain=self.slug, difficulty="easy",
                     user={"opening": "", "instruction": ""}, setup=ops, actions=[])
        await self.host.stage_tasks(self.slug, [draft])
        try:
            return (await self.host.create_episode(self.slug, draft.id)).id
        finally:
            await self.host.unstage_tasks(self.slug, [draft.id])

    async def open(self) -> None:
        self.episode_id = await self._episode(self.ops)

    async def close(self) -> None:
        if self.episode_id is not None:
            await self.host.close(self.episode_id)
            self.episode_id = None

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        assert self.episode_id is not None
        return await self.host.call(self.episode_id, tool, arguments)

    async def fork(self) -> str:
        assert self.episode_id is not None
        return (await self.host.fork(self.episode_id)).id

    async def adopt(self, episode_id: str) -> None:
        """Make ``episode_id`` the main episode (the old one is closed)."""
        await self.close()
        self.episode_id = episode_id

    async def branch(self) -> str:
        """Go on in a fork of the main episode (a further chain that may fail); returns the main one."""
        previous = self.episode_id
        assert previous is not None
        self.episode_id = await self.fork()
        return previous

    async def settle(self, previous: str, keep: bool) -> None:
        """Keep the branch as the main episode, or drop it and go back to ``previous``."""
        if keep:
            await self.host.close(previous)
        else:
            await self.adopt(previous)

    async def diff(self) -> StateDiff:
        assert self.episode_id is not None
        return await self.host.diff(self.episode_id)

    async def fingerprint(self) -> str:
        assert self.episode_id is not None
        return await self.host.fingerprint(self.episode_id)

    async def _replayed(self, ops: list[RowOp], actions: list[TaskAction]) -> str | None:
        """A fresh episode of ``ops`` with ``actions`` replayed, or None when one of them now fails."""
        try:
            episode = await self._episode(ops)
        except HarnessError:
            return None  # the patch does not load next to the other setup rows
        for action in actions:
            try:
                outcome = await self.host.call(episode, action.tool, action.arguments)
            except EnvironmentFaultError:  # a tool that crashes on the patched rows: the patch is not usable
                outcome = None
            if outcome is None or outcome.kind is not OutcomeKind.success:
                await self.host.close(episode)
                return None
        return episode

    def patch_candidates(self, table: str, near_rows: list[dict[str, Any]], rng: random.Random) -> list[RowOp]:
        """Rows of ``table`` in other states (clones of a row near the anchor first) that fit the schema."""
        sources = list(near_rows)
        others = [row for row in self.world.rows[table] if row not in sources]
        sources += rng.sample(others, min(len(others), PATCH_SOURCES))
        candidates: list[RowOp] = []
        for row in sources[:PATCH_SOURCES]:
            candidates += self.builder.variants(table, row, rng, self.used, self.ops, limit=2)
        return candidates[:PATCH_CANDIDATES]

    async def try_patch(self, op: RowOp, actions: list[TaskAction]) -> str | None:
        """The main episode rebuilt with ``op`` added to the setup, as a new episode (the old one stays)."""
        return await self._replayed(self.ops + [op], actions)

    async def keep_patch(self, op: RowOp, episode_id: str) -> None:
        self.patches.append(op)
        self.world = self.world.with_ops([op])
        await self.adopt(episode_id)
