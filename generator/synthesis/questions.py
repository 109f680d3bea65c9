"""Information tasks: the user asks something, the agent must find it and tell them.

Built from a read tool's ``questions`` (``ToolSpec.questions``: "When is {title} due back?",
answer ``due_on``). The gold is the identification, the lookups and the read; the end state is
the start state, and the answer is the task's ``communicate`` fact, scored on the agent's
messages (``scaleenv_mcp.state.communicate``). The row asked about is the anchor's when the
read returns it, else one the slots tell apart from every other row of the result: a question
two rows would answer differently is not asked.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.manifest import DomainManifest, QuestionSpec
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskMeta, UserSpec

from generator.synthesis.persona import persona_ref
from generator.synthesis.templates import acting_profile, sentence, who_you_are

if TYPE_CHECKING:
    from generator.synthesis.candidate import CandidateFactory, Rejection

__all__ = ["answer_row", "build_question", "build_question_user"]

_SLOT = re.compile(r"\{([a-z0-9_]+)\}")
_GREETINGS = ["Hi.", "Hello!", "Good morning.", "Hi there.", "Hello, quick question."]


def _rows(result: Any) -> list[dict[str, Any]]:
    """Every object in a result, the result itself first."""
    found: list[dict[str, Any]] = []
    stack = [result]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            found.append(item)
            stack += [v for v in item.values() if isinstance(v, dict | list)]
        elif isinstance(item, list):
            stack += item
    return found


def answer_row(question: QuestionSpec, result: dict[str, Any], anchor: dict[str, Any] | None,
               rng: random.Random) -> dict[str, Any] | None:
    """The row of ``result`` the question is about, or None when the slots cannot single one out."""
    slots = _SLOT.findall(question.text)
    rows = [r for r in _rows(result) if r.get(question.answer) is not None and all(r.get(s) is not None for s in slots)]
    if not rows:
        return None
    mine = [r for r in rows if anchor and any(anchor.get(k) == v for k, v in r.items() if k.endswith("_id"))]
    row = mine[0] if mine else rng.choice(rows)
    same = [r for r in rows if all(r.get(s) == row.get(s) for s in slots)]
    if any(r.get(question.answer) != row.get(question.answer) for r in same):
        return None
    return row


def build_question_user(manifest: DomainManifest, question: QuestionSpec, row: dict[str, Any], facts: dict[str, Any],
                        rng: random.Random, profile: str | None) -> UserSpec:
    """The user side of an information task and the question as asked; every fact is known (nothing
    withheld: the agent must find the answer, not pry facts out of the user)."""
    asked = _SLOT.sub(lambda m: str(row[m.group(1)]), question.text)
    known = {k: v for k, v in sorted(facts.items())}
    for slot in _SLOT.findall(question.text):
        known.setdefault(slot, row[slot])
    known_text = ", ".join(f"{k} = {v!r}" for k, v in known.items())
    instruction = (f"{who_you_are(manifest, profile)} You want to know: {sentence(asked)} "
                   f"Give these facts when the agent asks: {known_text}. "
                   "Do not ask for anything to be changed. Do not invent other details; say you do not know. "
                   "End the conversation once you have your answer.")
    return UserSpec(opening=f"{rng.choice(_GREETINGS)} {asked}", instruction=instruction, known=known)


async def build_question(factory: CandidateFactory, index: int, rng: random.Random) -> Task | Rejection:
    """An information task: identify, look up, read; the answer is what the agent must tell."""
    from generator.synthesis.candidate import ANCHOR_TRIES, Rejection, difficulty_of

    tool, question = rng.choice(factory.questions)
    plan = factory.sampler.sample(tool, 1, rng)
    last = Rejection("question_failed")
    for attempt in range(ANCHOR_TRIES):
        anchor = await factory.probe_anchor(plan, index, rng)
        begun = await factory.begin(index, attempt, plan, anchor, rng, factory.actors.get(index), "q")
        if begun is None:
            last = Rejection("identification", tool)
            continue
        state, resolver, run = begun
        try:
            if not await factory.run_goal(state, plan, anchor, resolver, run, rng, []):
                last = Rejection("question_failed", f"{tool}; last refusal {run.last_error}")
                continue
            row = answer_row(question, run.observations[-1].result, anchor[1] if anchor else None, rng)
            if row is None:
                last = Rejection("question_failed", f"{tool}: no row its slots single out")
                continue
            user = build_question_user(factory.manifest, question, row, run.facts.values, rng,
                                       acting_profile(state.world, factory.manifest, run.actions))
            return Task(id=factory.task_id(index), domain=factory.slug, difficulty=difficulty_of(len(run.actions), 1, 0),
                        kind="information", persona=persona_ref(resolver), user=user, actions=run.actions, communicate=[str(row[question.answer])],
                        gold=GoldSpec(diff=await state.diff(), fingerprint=await state.fingerprint()),
                        meta=TaskMeta(seed_chain=plan.tools, chains=[plan.tools], expanded_tools=plan.tools,
                                      expanded_size=1, synthesis_seed=factory.seed, grounding=run.grounding))
        finally:
            await state.close()
    return last
