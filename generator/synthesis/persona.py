"""Who a task is for, and the identification the gold starts with.

A domain that declares principals serves identified people (docs/authoring-domains.md). Its
tasks are for one persona, chosen before any chain runs, and their gold starts as the policy
says a conversation does: the agent identifies the person by what they know (their email;
their name and date of birth). Every acting argument after that comes from the
identification's result (``ArgumentResolver.persona``), so the agent acts only for someone it
identified, and a task whose chains would need another person fails instead of mixing people.
"""

from __future__ import annotations

import random
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import PersonaRef
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Candidate
from scaleenv_mcp.generator.synthesis.chain import ChainPlan
from scaleenv_mcp.generator.synthesis.executor import ChainRun, LinkSpec, run_tool
from scaleenv_mcp.generator.synthesis.task_state import TaskState
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.verifier.paths import leaf_values

__all__ = ["choose_persona", "identify", "persona_ref"]


def choose_persona(manifest: DomainManifest, plan: ChainPlan, anchor: tuple[str, dict[str, Any]] | None, world: World,
                   probed: Any, attempt: int, resolver: ArgumentResolver) -> tuple[str, Any] | None:
    """(principal kind, key) of the person the task is for, or None when no tool of the chain acts
    for anyone. ``probed``, the person the end tool answered for in the anchor probe, comes first;
    later attempts take the next person tied to the anchor row."""
    tools = [manifest.tool(t) for t in plan.tools]
    acting = [t for t in tools if t.acting is not None and t.is_writing] or [t for t in tools if t.acting is not None]
    if not acting:
        return None
    tool = acting[-1]
    assert tool.acting is not None
    near = world.neighborhood([anchor]) if anchor else None
    people = [c.value for c in resolver.acting_candidates(tool, tool.acting.argument, near,
                                                           [anchor[1]] if anchor else [], None)]
    people = ([probed] if probed is not None else []) + [p for p in people if p != probed]
    if not people:
        return None
    who = people[min(attempt, len(people) - 1)]
    for kind in tool.acting.kinds:
        if world.row(manifest.principal(kind).table, who) is not None:
            return kind, who
    return None


async def identify(state: TaskState, manifest: DomainManifest, persona: tuple[str, Any], resolver: ArgumentResolver,
                   run: ChainRun, rng: random.Random) -> bool:
    """Record the identification call (natural keys only) and pin the persona on ``resolver``."""
    kind, who = persona
    principal = manifest.principal(kind)
    row = state.world.row(principal.table, who)
    if row is None:
        return False
    paths = [p for p in principal.identify if all(row.get(k) is not None for k in p.keys)]
    for path in rng.sample(paths, len(paths)):
        saved = run.checkpoint()
        link = LinkSpec(tool=manifest.tool(path.tool), pinned={k: row[k] for k in path.keys}, only_pinned=True)
        observation = await run_tool(state.call, link, resolver, run, None, rng, attempts=1)
        found = [p for p, leaf, value in leaf_values(observation.result) if leaf == principal.key and value == who
                 ] if observation is not None else []
        if found and observation is not None:
            resolver.persona = Candidate(who, "call", call=observation.index, path=found[0], rank=0)
            resolver.principal = persona
            # who they are is what the user says first, never a withheld detail
            run.identity_facts = frozenset(g["fact"] for g in run.grounding[saved[2]:] if "fact" in g)
            run.optional_facts -= run.identity_facts
            return True
        run.rollback(saved)  # a read: the episode is unchanged, only the record goes
    return False


def persona_ref(resolver: ArgumentResolver) -> PersonaRef | None:
    """The task's ``persona``: the person identified first, whom the verifier then holds every
    gold write and the user's words to."""
    if resolver.principal is None:
        return None
    kind, who = resolver.principal
    return PersonaRef(kind=kind, id=str(who))
