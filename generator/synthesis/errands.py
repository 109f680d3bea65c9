"""Further errands: the next thing the same person asks about the same story, once an errand is done.

A task grows by chains C2..C3 when the gate accepts (``gate.py``). Each further chain is an
errand of the task's own story (``story.Story``): it ends in a writer whose subject lives in a
story table, the step a done errand makes possible first (paid, so ship it; ``ChainSampler.story_ends``),
it is tried on the rows the task made first (book it, then pay for it), then on those it changed
(delivered, so complete it), then on other start-state story rows, and it is kept only when one of its writes names a story row and it
undoes nothing the task did (deposit then withdraw, book then cancel, refill then discontinue).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.generator.synthesis.story import Story, written_rows

if TYPE_CHECKING:
    from scaleenv_mcp.domain.task import TaskAction
    from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver
    from scaleenv_mcp.generator.synthesis.candidate import CandidateFactory
    from scaleenv_mcp.generator.synthesis.chain import ChainPlan
    from scaleenv_mcp.generator.synthesis.executor import ChainRun
    from scaleenv_mcp.generator.synthesis.task_state import TaskState
    from scaleenv_mcp.generator.synthesis.templates import Goal

__all__ = ["STORY_ENDS", "STORY_ROWS", "further_errand"]

STORY_ENDS = 12  # end tools tried for a further errand of the same story
STORY_ROWS = 2  # rows the task added, and start-state story rows, each end tool is tried on


async def further_errand(factory: CandidateFactory, state: TaskState, story: Story, ends: list[str],
                       anchor: tuple[str, dict[str, Any]] | None, length: int, resolver: ArgumentResolver,
                       run: ChainRun, rng: random.Random, goals: list[Goal],
                       admit: Callable[[list[TaskAction]], bool] | None = None) -> ChainPlan | None:
    """The next errand of the same story, recorded on the task's episode: a chain ending in one of
    ``ends`` whose write names a story row (and whose calls ``admit`` accepts, when given); None,
    nothing kept, when no such chain runs."""
    before = story.written  # the story was built from the task's diff as it stands
    for end in ends[:STORY_ENDS]:
        plan = factory.sampler.sample(end, length, rng, resolver.principal[0] if resolver.principal else None)
        rows = story.rows_of(plan.anchor_table) if plan.anchor_table else []
        added = story.added_of(plan.anchor_table) if plan.anchor_table else []
        changed = [row for row in rows if story.wrote(factory.manifest, plan.anchor_table, row)]
        others = [row for row in rows if row not in changed]
        # The rows the task made come first (book it, then pay for it), then those it changed (now
        # delivered, so complete it), then other start-state story rows; with none, the chain acts
        # on whatever data flow feeds it, near the task's anchor.
        tries = [(plan.anchor_table, row) for row in
                 [*added[:STORY_ROWS], *changed[:STORY_ROWS], *rng.sample(others, min(STORY_ROWS, len(others)))]
                 ] or [anchor]
        for extra in tries:
            saved, kept = run.checkpoint(), len(goals)
            previous = await state.branch()
            try:
                ran = await factory.run_goal(state, plan, extra, resolver, run, rng, goals)
                writes = [(a, factory.manifest.tool(a.tool)) for a in run.actions[saved[0]:]]
                on_story = ran and any(story.touched_by(a.arguments, spec.acting.argument if spec.acting else None)
                                       for a, spec in writes if spec.writes)
                undoes = on_story and (not before <= written_rows(factory.manifest, await state.diff())
                                       or any(story.undoes(a.tool, a.arguments) for a, spec in writes if spec.writes))
            except BaseException:
                await state.settle(previous, keep=False)
                raise
            if on_story and not undoes and admit is not None and not admit(run.actions[saved[0]:]):
                factory.further["not_admitted"] += 1
            elif undoes:
                factory.further["undoes"] += 1
            elif on_story:
                factory.further["kept"] += 1
                await state.settle(previous, keep=True)
                return plan
            else:
                factory.further["off_story" if ran else "failed"] += 1
            run.rollback(saved)
            del goals[kept:]
            await state.settle(previous, keep=False)
    return None
