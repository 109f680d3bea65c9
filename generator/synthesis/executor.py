"""Execute a seed chain on a live episode, choosing each argument with its provenance.

Each call of the chain takes the id that links it to the previous call from that call's
result (the data-flow edge the chain was sampled along) and its other arguments from
earlier results or from facts the user will state. A call that errors is retried with
other choices (tool errors roll back, so the state is untouched); a read whose result does
not contain the entity the next call needs is retried too. What comes out is the action
list, one grounding record per argument, and the user facts those records point at.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.domain.task import TaskAction
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind
from scaleenv_mcp.errors import HarnessError
from scaleenv_mcp.generator.graph import is_key_name
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Candidate, Observation
from scaleenv_mcp.generator.synthesis.values import is_search_param
from scaleenv_mcp.generator.synthesis.world import Neighborhood
from scaleenv_mcp.verifier.paths import get_path, join_path, leaf_values

__all__ = ["CallFn", "ChainRun", "FactBook", "LinkSpec", "named_facts", "run_chain", "run_tool"]

CallFn = Callable[[str, dict[str, Any]], Awaitable[CallOutcome]]
ATTEMPTS = 8
_PAGING = {"limit", "offset", "page", "page_size", "cursor", "per_page"}


class FactBook:
    """User facts by key; the same key never holds two values. A second value is named by its role
    when one is given (the new member's email beside the user's own: ``home_member_email``), else
    it gets a number."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, key: str, value: Any, role: str | None = None, reserved: frozenset[str] = frozenset()) -> str:
        """``reserved`` keys name the user themself (email, full_name): another person's is role-named."""
        clash = (key in reserved or key in self.values) and self.values.get(key) != value
        if role and clash and not key.startswith(role):
            key = f"{role}_{key}"
        base, number = key, 1
        while key in self.values and self.values[key] != value:
            number += 1
            key = f"{base}_{number}"
        self.values[key] = value
        return key


@dataclass
class ChainRun:
    """Everything the task records about its reference solution."""

    actions: list[TaskAction] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    grounding: list[dict[str, Any]] = field(default_factory=list)
    facts: FactBook = field(default_factory=FactBook)
    optional_facts: set[str] = field(default_factory=set)
    identity_facts: frozenset[str] = frozenset()  # the persona's identification: said first, never withheld
    last_error: str = ""  # the last refusal, for the synthesis report
    last_error_code: str = ""  # its code (permission_denied: the persona may not use the tool at all)

    def checkpoint(self) -> tuple[int, int, int, dict[str, Any], set[str]]:
        return (len(self.actions), len(self.observations), len(self.grounding), dict(self.facts.values),
                set(self.optional_facts))

    def rollback(self, saved: tuple[int, int, int, dict[str, Any], set[str]]) -> None:
        """Forget what a chain that failed half-way recorded (its episode is dropped with it)."""
        actions, observations, grounding, facts, optional = saved
        del self.actions[actions:], self.observations[observations:], self.grounding[grounding:]
        self.facts.values = facts
        self.optional_facts = optional


@dataclass
class LinkSpec:
    tool: ToolSpec
    feeds: set[str] = field(default_factory=set)  # parameters that must come from an earlier result
    next_params: set[str] = field(default_factory=set)  # fields the next link needs from this result
    pinned: dict[str, Any] = field(default_factory=dict)  # parameters fixed to one value (anchor probes)
    only_pinned: bool = False  # no other argument, not even an optional one (an identification by natural keys)
    references: dict[str, tuple[int, tuple[str | int, ...]]] = field(default_factory=dict)  # param -> (chain step, path)


def _include_optional(tool: ToolSpec, param: str, attempt: int, near: Neighborhood | None, rng: random.Random,
                      manifest: DomainManifest) -> bool:
    if param in _PAGING:
        return False
    if tool.is_writing:
        return rng.random() < (0.25 if attempt < 2 else 0.5)
    in_near = bool(near and near.values.get(param)) and is_key_name(param, manifest)
    if attempt == 0:
        return in_near
    if attempt == 1:
        return is_search_param(param)
    return rng.random() < 0.4 and (in_near or is_search_param(param))


def _choose(cands: list[Candidate], attempt: int, rng: random.Random) -> Candidate:
    if attempt == 0 or len(cands) == 1:
        return cands[0]
    return cands[rng.randrange(min(len(cands), 2 + attempt))]


def _blamed(message: str, properties: dict[str, Any], arguments: dict[str, Any]) -> set[str]:
    """Parameters an error message points at: named in it, or whose value it quotes."""
    named = {p for p in properties if re.search(rf"\b{re.escape(p)}\b", message)}
    quoted = {p for p, v in arguments.items() if isinstance(v, str | int) and not isinstance(v, bool)
              and len(str(v)) >= 3 and re.search(rf"(?<![\w-]){re.escape(str(v))}(?![\w-])", message)}
    return named | quoted


def _referenced(reference: tuple[int, tuple[str | int, ...]], earlier: list[Observation], resolver: ArgumentResolver,
                tool: ToolSpec, param: str, run: ChainRun, near: Neighborhood | None) -> list[Candidate]:
    """The value a written chain's path names in an earlier step's result (with the resolver's
    provenance when it offers the same value, e.g. a list element the user can name)."""
    step, path = reference
    if step >= len(earlier):
        return []
    try:
        value = get_path(earlier[step].result, join_path(path))
    except KeyError:
        return []
    same = [c for c in resolver.from_results(tool, param, run.observations, near) if c.value == value]
    return same or [Candidate(value, "call", call=earlier[step].index, path=join_path(path))]


async def _look_up(call: CallFn, tool: ToolSpec, param: str, resolver: ArgumentResolver, run: ChainRun,
                   near: Neighborhood | None, rng: random.Random) -> bool:
    """Call a read tool whose result holds ``param`` first, as an agent would to turn what the
    user says (a title, a date) into an internal id: the id then flows from that result, picked
    by a field the user can name. The first lookup that answers is kept; none, and the user says it."""
    # Without an identified person, a read that acts for someone would need their internal id.
    usable = [name for name in resolver.lookups.get((tool.name, param), [])
              if resolver.persona is not None or resolver.manifest.tool(name).acting is None]
    for name in usable[:3]:
        saved = run.checkpoint()
        link = LinkSpec(tool=resolver.manifest.tool(name), next_params={param})
        found = await run_tool(call, link, resolver, run, near, rng, attempts=3, lookups=False)
        if found is not None and resolver.from_results(tool, param, run.observations, near):
            return True
        run.rollback(saved)  # a read: nothing to undo in the episode
    return False


async def run_tool(call: CallFn, link: LinkSpec, resolver: ArgumentResolver, run: ChainRun,
                   near: Neighborhood | None, rng: random.Random, record: bool = True,
                   attempts: int = ATTEMPTS, earlier: list[Observation] | None = None,
                   lookups: bool = True) -> Observation | None:
    """Call one tool until it succeeds (and, for a read, returns what the next link needs).

    After a refusal, the parameters the error message names or quotes move to their next
    candidate (an optional one named is switched in or out) and the rest stay; when the
    message points at nothing, every choice is redrawn. In a domain that serves people, an
    internal id no earlier result holds is first looked up (``_look_up``).
    """
    tool = link.tool
    manifest = resolver.manifest
    properties = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required", []))
    # Ids first; a text that must fit an enum's value (``ToolSpec.text_fits``) after that enum.
    keys_first = sorted(properties, key=lambda p: (not is_key_name(p, manifest), p in tool.text_fits,
                                                   list(properties).index(p)))
    looked_up: set[str] = set()
    if lookups and record and resolver.hide_ids:
        for param in keys_first:
            if (param in required and param in resolver.internal and param not in link.pinned
                    and param not in link.feeds and param not in link.references
                    and not resolver.from_results(tool, param, run.observations, near)
                    and await _look_up(call, tool, param, resolver, run, near, rng)):
                looked_up.add(param)
    position: dict[str, int] = {}
    switched: dict[str, bool] = {}
    targeted = False
    unexplained = 0
    blamed: set[str] = set()
    previous: dict[str, str] = {}  # repr of each parameter's last value: unblamed ones keep it
    for attempt in range(attempts):
        arguments: dict[str, Any] = {}
        chosen: dict[str, Candidate] = {}
        rows: list[dict[str, Any]] = []
        feasible = True
        for param in keys_first:
            needed = param in required or param in link.feeds or param in link.pinned or param in link.references
            if link.only_pinned and param not in link.pinned:
                continue
            if not needed and not switched.get(param, _include_optional(tool, param, attempt, near, rng, manifest)):
                continue
            cands = resolver.from_results(tool, param, run.observations, near)
            if param in link.references:
                cands = _referenced(link.references[param], earlier or [], resolver, tool, param, run, near)
            elif param in link.pinned:
                cands = [Candidate(link.pinned[param], "user", fact_key=param)]
            elif param not in link.feeds:
                user = resolver.from_user(tool, param, near, rows, arguments)
                if param in looked_up:
                    pass  # what the lookup found, or nothing: a request about one thing, a gold about another is no task
                elif resolver.hide_ids and param in resolver.internal and cands:
                    cands = cands + user  # an id the agent looked up beats one the user would have to know
                else:
                    # Data flow first when an earlier result holds a wanted value, else what the user says.
                    cands = [c for c in cands if c.rank < 100] + user + [c for c in cands if c.rank >= 100]
            if not cands:
                feasible = feasible and not needed
                continue
            kept = next((c for c in cands if param not in blamed and repr(c.value) == previous.get(param)), None)
            if targeted and kept is not None:
                pick = kept
            elif targeted and position.get(param, 0) < len(cands):
                pick = cands[position.get(param, 0)]
            else:
                pick = _choose(cands, attempt, rng)
            arguments[param], chosen[param] = pick.value, pick
            table = resolver.world.key_table(param)
            if table and resolver.world.primary[table] == [param]:
                row = resolver.world.row(table, pick.value)
                if row is not None:
                    rows.append(row)
        if not feasible:
            return None
        previous = {param: repr(value) for param, value in arguments.items()}
        try:
            outcome = await call(tool.name, arguments)
        except HarnessError as error:  # a crash inside tool code: say which call, for the domain's author
            error.message = f"{error.message} [{tool.name} {json.dumps(arguments, default=str)[:200]}]"
            raise
        if outcome.kind is not OutcomeKind.success or outcome.result is None:
            run.last_error = f"{tool.name}: {outcome.error_code}: {outcome.message}"
            run.last_error_code = str(outcome.error_code or "")
            blamed = _blamed(outcome.message or "", properties, arguments)
            targeted = bool(blamed)
            unexplained += not blamed
            if link.pinned and (unexplained >= 2 or blamed & set(link.pinned)):
                return None  # an anchor probe: the refusal is about the pinned row itself, try another row
            for param in sorted(blamed):
                if param in required or param in link.feeds:
                    position[param] = position.get(param, 0) + 1
                elif param not in link.pinned:
                    switched[param] = param not in arguments
            continue
        targeted = False
        if link.next_params and not tool.is_writing:
            names = {leaf for _, leaf, value in leaf_values(outcome.result) if value is not None}
            if not link.next_params & names:
                run.last_error = f"{tool.name}: its result holds no {', '.join(sorted(link.next_params))}"
                continue
            wanted = [v for p in link.next_params for v in (near.values.get(p, [])[:1] if near else [])]
            have = {value for _, leaf, value in leaf_values(outcome.result) if leaf in link.next_params}
            if wanted and not set(wanted) & have and attempt < attempts - 1:
                continue
        index = len(run.actions) if record else -1
        if record:
            _record(run, tool, arguments, chosen, resolver, index)
        observation = Observation(index=index, tool=tool.name, result=outcome.result)
        if record:
            run.observations.append(observation)
        return observation
    return None


def _record(run: ChainRun, tool: ToolSpec, arguments: dict[str, Any], chosen: dict[str, Candidate],
            resolver: ArgumentResolver, index: int) -> None:
    run.actions.append(TaskAction(tool=tool.name, arguments=arguments))
    required = set(tool.input_schema.get("required", []))
    for param in arguments:
        pick = chosen[param]
        entry: dict[str, Any] = {"action": index, "argument": param, "source": pick.source}
        table = resolver.world.key_table(param)
        if table:
            entry["table"] = table
        role = tool.name.partition("_")[2] or None  # add_home_member -> home_member
        if pick.source == "user":
            entry["fact"] = run.facts.add(pick.fact_key or param, pick.value, role=role,
                                          reserved=resolver.identity_keys if resolver.persona is not None else frozenset())
            if param not in required:
                run.optional_facts.add(entry["fact"])
        else:
            entry["call"], entry["field"] = pick.call, pick.path
            if pick.select_by:
                entry["select_by"] = {name: run.facts.add(key, value) for name, (key, value) in pick.select_by.items()}
            if pick.names:
                entry["names"] = {name: run.facts.add(key, value) for name, (key, value) in pick.names.items()}
        run.grounding.append(entry)


def named_facts(records: list[dict[str, Any]]) -> list[str]:
    """The user facts grounding records name: the facts arguments were given, then the selectors
    that pick list elements and the labels of referenced rows (``_record`` writes them)."""
    return [g["fact"] for g in records if g.get("fact")] + [
        key for g in records for key in [*(g.get("select_by") or {}).values(), *(g.get("names") or {}).values()]]


async def run_chain(call: CallFn, links: list[LinkSpec], resolver: ArgumentResolver, run: ChainRun,
                    near: Neighborhood | None, rng: random.Random) -> bool:
    """Run every link in order; False as soon as one cannot be made to succeed."""
    earlier: list[Observation] = []
    for link in links:
        observation = await run_tool(call, link, resolver, run, near, rng, earlier=earlier)
        if observation is None:
            return False
        earlier.append(observation)
    return True
