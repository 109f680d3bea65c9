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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.manifest import DomainManifest, QuestionSpec
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskMeta, UserSpec
from scaleenv_mcp.generator.synthesis.expansion import others_tools
from scaleenv_mcp.generator.synthesis.persona import persona_ref
from scaleenv_mcp.generator.synthesis.prune import drop_repeated_reads
from scaleenv_mcp.generator.synthesis.slots import fill_slots, say_facts, slot_names
from scaleenv_mcp.generator.synthesis.story import Story
from scaleenv_mcp.generator.synthesis.templates import acting_profile, sentence, who_you_are

if TYPE_CHECKING:
    from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver
    from scaleenv_mcp.generator.synthesis.candidate import CandidateFactory, Rejection
    from scaleenv_mcp.generator.synthesis.executor import ChainRun
    from scaleenv_mcp.generator.synthesis.task_state import TaskState

__all__ = ["FollowUp", "answer_row", "ask_follow_up", "ask_follow_ups", "build_question", "build_question_user", "wrong_asker"]

FOLLOW_UP_TRIES = 4  # questions tried before a task goes without a follow-up

_FIRST_PERSON = re.compile(r"\b(my|me|I)\b")
_GREETINGS = ["Hi.", "Hello!", "Good morning.", "Hi there.", "Hello, quick question."]
SECOND_QUESTION_SHARE = 0.85  # information tasks that ask a second thing about the same story
THIRD_QUESTION_SHARE = 0.5  # and of those, the ones that ask a third


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


def _related(row: dict[str, Any], anchor: dict[str, Any] | None, persona: Any) -> bool:
    """The row is about the anchor (shares one of its ids) or belongs to the persona."""
    ids = [(k, v) for k, v in row.items() if k.endswith("_id") and v is not None]
    return any((anchor is not None and anchor.get(k) == v) or (persona is not None and v == persona) for k, v in ids)


def answer_row(question: QuestionSpec, result: dict[str, Any], anchor: dict[str, Any] | None,
               rng: random.Random, persona: Any = None, story: Story | None = None) -> dict[str, Any] | None:
    """The row of ``result`` the question is about, or None when the slots cannot single one out
    (or, given a ``story``, when no row names it: a follow-up is about what the task is about)."""
    slots = slot_names(question.text)
    rows = [r for r in _rows(result) if r.get(question.answer) is not None and all(r.get(s) is not None for s in slots)]
    if story is not None:
        rows = [r for r in rows if story.names(r)]
    if not rows:
        return None
    mine = [r for r in rows if _related(r, anchor, persona)]
    row = mine[0] if mine else rng.choice(rows)
    same = [r for r in rows if all(r.get(s) == row.get(s) for s in slots)]
    if any(r.get(question.answer) != row.get(question.answer) for r in same):
        return None
    return row


def wrong_asker(question: QuestionSpec, row: dict[str, Any], factory: CandidateFactory,
                resolver: ArgumentResolver, first_person: bool = False) -> str | None:
    """Why the persona would not ask this question about this row, or None. A person does not name
    themselves ("What grade is on Arjun Sharma's certificate?" from Arjun Sharma: they say "my"), and
    "my certificate" is not about a row that names other people but not them (an instructor asking
    about a learner's; my order names its seller too: still mine). A question in neutral words
    ("What's the asking price of the Yamaha P-45?") may be about anyone's row the tool shows the
    persona; ``first_person`` treats it as "mine" all the same."""
    if resolver.principal is None:
        return None
    kind, key = resolver.principal
    if question.asked_by and kind not in question.asked_by:
        return f"a question only a {' or '.join(question.asked_by)} asks"
    own = factory.world.row(factory.manifest.principal(kind).table, key) or {}
    mine = {v for v in own.values() if isinstance(v, str) and len(v) >= 3}
    if isinstance(own.get("first_name"), str) and isinstance(own.get("last_name"), str):
        mine.add(f"{own['first_name']} {own['last_name']}")  # "my visit with Thomas Reyes" from Thomas Reyes
    if any(row.get(slot) in mine for slot in slot_names(question.text)):
        return "the question names the person asking it"
    people = {v for v in row.values() if isinstance(v, str | int) and not isinstance(v, bool) and v in factory.people}
    if (first_person or _FIRST_PERSON.search(question.text)) and people and key not in people:
        return "a question in the first person about someone else's row"
    return None


def asked_text(question: QuestionSpec, row: dict[str, Any], currency: str | None = None) -> str:
    """The question as the user asks it: its slots filled from the row it is about."""
    return fill_slots(question.text, row, currency)


def build_question_user(manifest: DomainManifest, asked: list[str], facts: dict[str, Any],
                        rng: random.Random, profile: str | None) -> UserSpec:
    """The user side of an information task and its questions as asked (the first in the opening,
    a follow-up once it is answered); every fact is known (nothing withheld: the agent must find the
    answer, not pry facts out of the user)."""
    known = {k: v for k, v in sorted(facts.items())}
    known_text = say_facts(known, manifest.currency)
    then = "".join(f" Once that is answered, ask: {sentence(a)}" for a in asked[1:])
    answers = "your answers" if then else "your answer"
    instruction = (f"{who_you_are(manifest, profile)} You want to know: {sentence(asked[0])}{then} "
                   f"Give these facts when the agent asks: {known_text}. "
                   "Do not ask for anything to be changed. Do not invent other details; say you do not know. "
                   f"End the conversation once you have {answers}.")
    return UserSpec(opening=f"{rng.choice(_GREETINGS)} {asked[0]}", instruction=instruction, known=known)


@dataclass
class FollowUp:
    """A question asked after the errand, about the same story, and the answer the agent must tell."""

    asked: str
    answer: str
    text: str = ""  # the question as the author wrote it, slots unfilled


async def ask_follow_up(factory: CandidateFactory, state: TaskState, resolver: ArgumentResolver, run: ChainRun,
                        anchor: tuple[str, dict[str, Any]] | None, story: Story, rng: random.Random,
                        skip: frozenset[str] = frozenset(), tries: int = FOLLOW_UP_TRIES) -> FollowUp | None:
    """Record one more read (its lookups included) whose answer is about the task's story (``Story``:
    the anchor, its neighbours, what the task wrote), as a person asks "and when does it arrive?"
    once the errand is done; None, and nothing
    recorded, when no question of the domain fits. An answer the user already states is no question,
    nor one the persona would not ask (``wrong_asker``). ``tries`` questions are tried, drawn in random order."""
    kind = resolver.principal[0] if resolver.principal else None
    theirs = others_tools(factory.manifest, kind)
    options = [(t, q) for t, q in factory.questions if q.text not in skip and t not in theirs
               and (kind is None or not q.asked_by or kind in q.asked_by)]
    # A question that needs a look the agent has not taken yet comes first: one the last list
    # already answers is fair too, but tests less (and is one call for two questions).
    looked = {a.tool for a in run.actions}
    fresh = [o for o in options if o[0] not in looked]
    stale = [o for o in options if o[0] in looked]
    ordered = [*rng.sample(fresh, len(fresh)), *rng.sample(stale, len(stale))]
    for tool, question in ordered[:tries]:
        saved = run.checkpoint()
        plan = factory.sampler.sample(tool, 1, rng)
        if not await factory.run_goal(state, plan, anchor, resolver, run, rng, []):
            run.rollback(saved)
            continue
        persona = resolver.principal[1] if resolver.principal else None
        row = answer_row(question, run.observations[-1].result, anchor[1] if anchor else None, rng, persona, story)
        known = {str(v) for v in run.facts.values.values()}
        if (row is None or str(row[question.answer]) in known
                or wrong_asker(question, row, factory, resolver)):
            run.rollback(saved)
            continue
        for slot in slot_names(question.text):  # what the question names, the user knows
            run.facts.add(slot, row[slot])
        return FollowUp(asked=asked_text(question, row, factory.manifest.currency), answer=str(row[question.answer]),
                        text=question.text)
    return None


async def ask_follow_ups(factory: CandidateFactory, state: TaskState, resolver: ArgumentResolver, run: ChainRun,
                         anchor: tuple[str, dict[str, Any]] | None, story: Story, rng: random.Random,
                         shares: tuple[float, ...], asked: tuple[str, ...] = (), answers: tuple[str, ...] = (),
                         tries: int = FOLLOW_UP_TRIES) -> list[FollowUp]:
    """Up to one more question per share, each asked with its chance once the one before was
    answered (and then when does it arrive? and what did it cost?), never a question already
    asked (``asked``: the author's texts) or one whose answer was already given (``answers``);
    the first unanswerable one ends the run. ``tries`` questions are tried for the first."""
    out: list[FollowUp] = []
    skip, given = set(asked), set(answers)
    for position, share in enumerate(shares):
        if not factory.questions or rng.random() >= share:
            break
        more = await ask_follow_up(factory, state, resolver, run, anchor, story, rng, frozenset(skip),
                                   tries=tries if position == 0 else FOLLOW_UP_TRIES)
        if more is None or more.answer in given:
            break
        out.append(more)
        skip.add(more.text)
        given.add(more.answer)
    return out


async def build_question(factory: CandidateFactory, index: int, rng: random.Random) -> Task | Rejection:
    """An information task: identify, look up, read; the answer is what the agent must tell."""
    from scaleenv_mcp.generator.synthesis.candidate import ANCHOR_TRIES, Rejection, difficulty_of

    tool, question = rng.choice(factory.questions)
    plan = factory.sampler.sample(tool, 1, rng)
    follow = random.Random(f"{factory.slug}:{factory.seed}:{index}:follow-up")
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
            wrong = wrong_asker(question, row, factory, resolver)
            if wrong:
                last = Rejection("question_failed", f"{tool}: {wrong}")
                continue
            for slot in slot_names(question.text):
                run.facts.add(slot, row[slot])
            asked, answers = [asked_text(question, row, factory.manifest.currency)], [str(row[question.answer])]
            lone = len(run.actions) == 1  # a lone lookup is a search box, not a conversation: it must ask more
            story = Story.around(factory.manifest, state.world, anchor, factory.people, more=[row])
            for more in await ask_follow_ups(factory, state, resolver, run, anchor, story, follow,
                                             (1.0 if lone else SECOND_QUESTION_SHARE, THIRD_QUESTION_SHARE),
                                             (question.text,), tuple(answers),
                                             tries=len(factory.questions) if lone else FOLLOW_UP_TRIES):
                asked.append(more.asked)
                answers.append(more.answer)
            drop_repeated_reads(run, factory.manifest)  # two questions one list answers: one call
            if len(run.actions) == 1:
                last = Rejection("question_failed", f"{tool}: one read and no follow-up question about the same story")
                continue
            user = build_question_user(factory.manifest, asked, run.facts.values, rng,
                                       acting_profile(state.world, factory.manifest, run.actions))
            return Task(id=factory.task_id(index), domain=factory.slug,
                        difficulty=difficulty_of(len(run.actions), len(asked), 0),
                        kind="information", persona=persona_ref(resolver), user=user, actions=run.actions, communicate=answers,
                        gold=GoldSpec(diff=await state.diff(), fingerprint=await state.fingerprint()),
                        meta=TaskMeta(seed_chain=plan.tools, chains=[plan.tools], expanded_tools=plan.tools,
                                      expanded_size=1, synthesis_seed=factory.seed, grounding=run.grounding))
        finally:
            await state.close()
    return last
