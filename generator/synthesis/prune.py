"""The gold an agent would take: no read whose result the solution never needed.

A chain is sampled along data-flow edges, so a read can sit in it only to pass on an id the
agent already had: a customer's agent listing every customer to find the customer it just
identified. Such a step reads as a strange request and pads the gold's length with a call
nobody needs. A value an earlier call returned at the top of its result (no list to pick it
from) is taken from there instead, and a read that no argument comes from any more goes.
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.generator.synthesis.executor import ChainRun, named_facts
from scaleenv_mcp.verifier.paths import list_levels

__all__ = ["drop_needless_reads", "drop_repeated_reads"]


def drop_needless_reads(run: ChainRun, manifest: DomainManifest, keep: frozenset[int] = frozenset()) -> int:
    """Re-point arguments to the earliest call that returned them plainly, drop the reads nothing
    comes from any more (never an index in ``keep``), renumber the rest; how many went."""
    _repoint(run)
    cited = {g["call"] for g in run.grounding if g.get("source") == "call"}
    needless = [i for i, action in enumerate(run.actions)
                if i not in cited and i not in keep and not manifest.tool(action.tool).is_writing]
    if not needless:
        return 0
    _remove(run, set(needless), forget=True)
    return len(needless)


def drop_repeated_reads(run: ChainRun, manifest: DomainManifest) -> int:
    """A read made again with the same arguments and no write in between (two questions one list
    answers) returns what the first did: what came from the second comes from the first, and
    the second goes. How many went."""
    first: dict[str, int] = {}  # the call's key -> its first index since the last write
    same: dict[int, int] = {}
    for index, action in enumerate(run.actions):
        if manifest.tool(action.tool).is_writing:
            first.clear()
            continue
        key = action.model_dump_json()
        if key in first:
            same[index] = first[key]
        else:
            first[key] = index
    if not same:
        return 0
    for record in run.grounding:
        if record.get("source") == "call" and record["call"] in same:
            record["call"] = same[record["call"]]
    _remove(run, set(same), forget=False)  # the same arguments: the facts they name stay named
    return len(same)


def _remove(run: ChainRun, gone: set[int], forget: bool) -> None:
    """Drop the actions at ``gone`` with their records and results, renumber the rest, and (with
    ``forget``, before any question adds facts no argument names) forget the facts nothing names."""
    new_index = {old: old - sum(1 for n in gone if n < old) for old in range(len(run.actions)) if old not in gone}
    run.actions = [a for i, a in enumerate(run.actions) if i not in gone]
    run.grounding = [_renumbered(g, new_index) for g in run.grounding if g["action"] not in gone]
    kept = [o for o in run.observations if o.index not in gone]
    for observation in kept:
        observation.index = new_index.get(observation.index, observation.index)
    run.observations = kept
    if not forget:
        return
    used = set(named_facts(run.grounding))
    for key in [k for k in run.facts.values if k not in used and k not in run.identity_facts]:
        del run.facts.values[key]
    run.optional_facts &= used


def _repoint(run: ChainRun) -> None:
    plain: dict[tuple[str, str], tuple[int, str]] = {}  # (leaf, repr(value)) -> the first call returning it plainly
    for observation in run.observations:
        for path, leaf, value in observation.leaves:
            if not list_levels(path):
                plain.setdefault((leaf, repr(value)), (observation.index, path))
    values = {(g["action"], g["argument"]): run.actions[g["action"]].arguments.get(g["argument"]) for g in run.grounding}
    for record in run.grounding:
        if record.get("source") != "call":
            continue
        leaf = record["field"].rpartition(".")[2]
        earlier = plain.get((leaf, repr(values[(record["action"], record["argument"])])))
        if earlier is not None and earlier[0] < record["call"]:
            record["call"], record["field"] = earlier
            record.pop("select_by", None)


def _renumbered(record: dict[str, Any], new_index: dict[int, int]) -> dict[str, Any]:
    out = dict(record, action=new_index[record["action"]])
    if out.get("source") == "call":
        out["call"] = new_index[out["call"]]
    return out
