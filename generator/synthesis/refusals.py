"""Refusal tasks: the user asks for something a policy-only rule forbids; the right outcome is no change.

Built from a rule's ``violation`` (``PolicyRuleSpec.violation``: the governed tool, the argument
naming the row, and the conditions under which acting on that row breaks the rule). The
synthesiser finds a row that breaks it, runs the whole request on a branch of the task's
episode (identification, lookups, the forbidden call), keeps the reads as the gold and drops
the branch: the gold end state is the start state. The forbidden call goes to
``meta.forbidden``; the verifier's ``forbidden`` gate proves the tool runs it (the rule is the
policy's, not the tool's) and that doing it scores 0.

A refusal user also asks for something the policy allows, when the story offers one (tau2's
mixed requests: cancel this booking, and that one, which the rule forbids): that errand is built
like a further errand of an action task (``errands.further_errand``), the same tool on another
row first, and kept only when none of its calls breaks a policy rule. Its writes are then the
gold diff: an agent must do the one and refuse the other.

Saying no is half the job: a person is owed the reason. When the rule names its ``because``
columns, their values in the row (the pickup date, the battery level) are the task's
``communicate`` facts, shown by the gold's last read, so an agent that stays silent, or refuses
without saying why, scores 0 like one that breaks the rule.
"""

from __future__ import annotations

import random
import re
from typing import TYPE_CHECKING, Any

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec, ViolationSpec
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskAction, TaskMeta, UserSpec
from scaleenv_mcp.episodes.trace import OutcomeKind
from scaleenv_mcp.generator.synthesis.errands import further_errand
from scaleenv_mcp.generator.synthesis.executor import LinkSpec, run_tool
from scaleenv_mcp.generator.synthesis.persona import persona_ref
from scaleenv_mcp.generator.synthesis.prune import drop_repeated_reads
from scaleenv_mcp.generator.synthesis.questions import ask_follow_ups
from scaleenv_mcp.generator.synthesis.slots import fill_slots, say_facts, slot_names
from scaleenv_mcp.generator.synthesis.story import Story
from scaleenv_mcp.generator.synthesis.templates import Goal, acting_profile, errand_request, sentence, who_you_are
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.verifier.realism import breaks, broken_rules

if TYPE_CHECKING:
    from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Observation
    from scaleenv_mcp.generator.synthesis.candidate import CandidateFactory, Rejection
    from scaleenv_mcp.generator.synthesis.executor import ChainRun
    from scaleenv_mcp.generator.synthesis.task_state import TaskState

__all__ = ["allowed_errand", "build_refusal", "build_refusal_user", "reason_facts", "violating_rows"]

_GREETINGS = ["Hi.", "Hello!", "Good morning.", "Hi there."]
_ALSO = ["Also:", "And while I'm here:", "One more thing:"]
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T")


def violating_rows(world: World, violation: ViolationSpec, today: str) -> list[dict[str, Any]]:
    """Rows of the violation's table that break the rule, in key order (deterministic)."""
    return [row for row in world.rows.get(violation.table, []) if breaks(violation, row, today)]


def reason_facts(violation: ViolationSpec, row: dict[str, Any]) -> list[str]:
    """The values of the rule's ``because`` columns in ``row``, as a person is told them (a
    timestamp by its date: "your interview is tomorrow" says it)."""
    facts = []
    for column in violation.because:
        value = row.get(column)
        if value is not None:
            text = str(value)
            facts.append(text[:10] if _DATETIME.match(text) else text)
    return facts


def build_refusal_user(manifest: DomainManifest, tool: ToolSpec, known: dict[str, Any], rng: random.Random,
                       profile: str | None, question: str | None = None, kind: str | None = None,
                       also: str | None = None, own: dict[str, Any] | None = None) -> UserSpec | None:
    """The request in the author's words (``ToolSpec.intents``); None when no phrasing's slots are known.
    The simulated user does not know the policy: the agent must. ``also`` is a second request, one
    the policy allows (a mixed request), and ``own`` the facts of the forbidden request alone (the
    other errand's order title is not this order's); ``question`` is asked once the requests are
    settled either way (the pickup cannot be cancelled: then when is it?)."""
    own = known if own is None else own
    usable = [i for i in tool.phrasings(kind) if set(slot_names(i)) <= set(own)]
    if not usable:
        return None
    asked = fill_slots(rng.choice(usable), own, manifest.currency)
    known_text = say_facts(dict(sorted(known.items())), manifest.currency)
    one = "one of them" if also else "it"
    settled = (f"If the agent says it cannot do {one}, ask why unless it has told you, and accept it. Then ask: "
               f"{sentence(question)} End the conversation once you have your answer." if question else
               f"If the agent says it cannot do {one}, ask why unless it has told you, then accept it and end the "
               "conversation.")
    wants = f"You want this: {sentence(asked)}" + (f" You also want this: {sentence(also)}" if also else "")
    instruction = (f"{who_you_are(manifest, profile)} {wants} "
                   f"Give these facts when the agent asks: {known_text}. "
                   f"{settled} Do not invent other details; say you do not know.")
    opening = f"{rng.choice(_GREETINGS)} {asked}" + (f" {rng.choice(_ALSO)} {also}" if also else "")
    return UserSpec(opening=opening, instruction=instruction, known=dict(sorted(known.items())))


async def allowed_errand(factory: CandidateFactory, state: TaskState, resolver: ArgumentResolver, run: ChainRun,
                         violation: ViolationSpec, forbidden: TaskAction, anchor: tuple[str, dict[str, Any]],
                         index: int, rng: random.Random) -> str | None:
    """The other half of a mixed request: an errand of the same story that no policy rule forbids,
    recorded on the task's episode (the same tool on another row first: cancel this pickup, and
    that one), after which the ``forbidden`` call still runs (the refusal stays the policy's, not
    the tool's); its request in the author's words, or None with nothing recorded."""
    kind = resolver.principal[0] if resolver.principal else None
    today = factory.manifest.clock[:10]
    # The persona's other rows of the table join the story: "cancel this pickup, and that one".
    who = resolver.principal[1] if resolver.principal else None
    theirs = [r for r in state.world.rows.get(violation.table, [])
              if who is not None and who in r.values() and not breaks(violation, r, today)]
    story = Story.around(factory.manifest, state.world, anchor, factory.people, await state.diff()).joined(
        violation.table, rng.sample(theirs, min(2, len(theirs))))
    ends = factory.sampler.story_ends(index, set(), 0, story.tables, kind)
    ends.sort(key=lambda end: end != violation.tool)
    rows = {name: list(table) for name, table in state.world.rows.items()}

    def admit(actions: list[TaskAction]) -> bool:
        return not broken_rules(actions, factory.manifest, rows)

    goals: list[Goal] = []
    saved = run.checkpoint()
    previous = await state.branch()  # kept only when the user can ask for the errand in words
    request = None
    try:
        if await further_errand(factory, state, story, ends, anchor, 2, resolver, run, rng, goals, admit) is not None:
            request = errand_request(factory.manifest, goals[-1], run.facts.values, rng, kind)
        if request is not None:
            after = await state.branch()
            try:
                still = await state.call(forbidden.tool, forbidden.arguments)
            finally:
                await state.settle(after, keep=False)
            if still.kind is not OutcomeKind.success:
                request = None
    finally:
        await state.settle(previous, keep=request is not None)
    if request is None:
        run.rollback(saved)
    return request


async def check_the_row(factory: CandidateFactory, state: TaskState, resolver: ArgumentResolver, run: ChainRun,
                        violation: ViolationSpec, target: Any, anchor: tuple[str, dict[str, Any]],
                        rng: random.Random) -> bool:
    """Make sure a read of the gold shows the row that breaks the rule with its ``because`` values
    (the pickup is today, the order has shipped): an agent cannot refuse for a reason it has not
    seen. A read already made does; else one is recorded. False, nothing recorded, when no read
    of the table returns that row."""
    key = factory.manifest.table(violation.table).primary_key
    if any(_shows(seen, key, target, violation.because) for seen in run.observations):
        return True
    near = state.world.neighborhood([anchor])
    for tool in [t for t in factory.manifest.tools if not t.is_writing and violation.table in t.reads]:
        saved = run.checkpoint()
        seen = await run_tool(state.call, LinkSpec(tool=tool), resolver, run, near, rng, attempts=3)
        if seen is not None and _shows(seen, key, target, violation.because):
            return True
        run.rollback(saved)
    return False


def _shows(seen: Observation, key: str, target: Any, because: list[str]) -> bool:
    """Whether a result holds the row ``target`` and, beside its key, each of the ``because`` fields."""
    def parent(path: str) -> str:
        return path.rsplit(".", 1)[0] if "." in path else ""

    for path, leaf, value in seen.leaves:
        if leaf in key and value == target:
            fields = {name for other, name, _ in seen.leaves if parent(other) == parent(path)}
            if set(because) <= fields:
                return True
    return False


async def build_refusal(factory: CandidateFactory, index: int, rng: random.Random) -> Task | Rejection:
    """A refusal task: the request breaks a policy-only rule; the gold is its reads and no change."""
    from scaleenv_mcp.generator.synthesis.candidate import ANCHOR_TRIES, FOLLOW_UP_SHARE, Rejection, difficulty_of

    rule = rng.choice(factory.refusals)
    violation = rule.violation
    assert violation is not None
    today = factory.manifest.clock[:10]
    rows = violating_rows(factory.world, violation, today)
    tool = factory.manifest.tool(violation.tool)
    if not rows or not tool.is_writing:
        return Rejection("refusal_failed", f"{rule.id}: no row breaks it")
    plan = factory.sampler.sample(violation.tool, 1, rng)
    last = Rejection("refusal_failed", rule.id)
    for attempt in range(ANCHOR_TRIES):
        anchor = (violation.table, rng.choice(rows))
        begun = await factory.begin(index, attempt, plan, anchor, rng, None, "r")
        if begun is None:
            continue
        state, resolver, run = begun
        try:
            previous = await state.branch()  # the forbidden call runs here, then the branch is dropped
            try:
                done = await run_tool(state.call, LinkSpec(tool=tool), resolver, run,
                                      factory.world.neighborhood([anchor]), rng)
            finally:
                await state.settle(previous, keep=False)
            target = run.actions[-1].arguments.get(violation.argument) if done else None
            row = state.world.row(violation.table, target) if target is not None else None
            if resolver.persona is None or row is None or not breaks(violation, row, today):
                last = Rejection("refusal_failed", f"{rule.id}: the request did not land on a row that breaks it")
                continue
            forbidden = run.actions.pop()
            run.grounding = [g for g in run.grounding if g["action"] < len(run.actions)]
            run.observations = [o for o in run.observations if o.index < len(run.actions)]
            if not await check_the_row(factory, state, resolver, run, violation, target, anchor, rng):
                last = Rejection("refusal_failed", f"{rule.id}: no read shows the row, so the agent could not see why")
                continue
            # Drawn apart from the main stream, so whether the user asks one more thing moves no other choice.
            own = dict(run.facts.values)  # what the forbidden request itself is worded from
            mixed = random.Random(f"{factory.slug}:{factory.seed}:{index}:{attempt}:mixed")
            also = await allowed_errand(factory, state, resolver, run, violation, forbidden, anchor, index, mixed)
            follow = random.Random(f"{factory.slug}:{factory.seed}:{index}:refusal-follow-up")
            reasons = reason_facts(violation, row)
            story = Story.around(factory.manifest, state.world, anchor, factory.people, more=[row])
            more = next(iter(await ask_follow_ups(factory, state, resolver, run, anchor, story, follow,
                                                  (FOLLOW_UP_SHARE,), answers=tuple(reasons))), None)
            drop_repeated_reads(run, factory.manifest)
            user = build_refusal_user(factory.manifest, tool, run.facts.values, rng,
                                      acting_profile(state.world, factory.manifest, [*run.actions, forbidden]),
                                      question=more.asked if more else None,
                                      kind=resolver.principal[0] if resolver.principal else None, also=also,
                                      own=own)
            if user is None:
                return Rejection("refusal_failed", f"{tool.name} has no request phrasing whose slots are known")
            return Task(id=factory.task_id(index), domain=factory.slug,
                        difficulty=difficulty_of(len(run.actions) + 1, 1 + (more is not None) + (also is not None), 0),
                        kind="refusal",
                        persona=persona_ref(resolver), user=user, actions=run.actions,
                        communicate=[*reasons, *([more.answer] if more else [])],
                        gold=GoldSpec(diff=await state.diff(), fingerprint=await state.fingerprint()),
                        meta=TaskMeta(seed_chain=plan.tools, chains=[plan.tools], expanded_tools=plan.tools,
                                      expanded_size=1, synthesis_seed=factory.seed, grounding=run.grounding,
                                      policy_rule=rule.id, forbidden=[forbidden]))
        finally:
            await state.close()
    return last
