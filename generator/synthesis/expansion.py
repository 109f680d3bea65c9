"""Controlled expansion (paper phase 2, step 4): grow the tool set H around the seed chain.

Starting from H1 = the chain's tools, a dependency-aware breadth-first search adds tools
that an edge connects to H (their ids can come from H's results), executes each once on a
copy of the task's end state, and keeps it when it answers with a real observation. When a
call errors, other arguments are tried first; when they all fail, the ``patch`` hook patches
the task's start state so that the tool answers (``scaleenv_mcp.generator.synthesis.task_state``), and
the search goes on in the patched world. When the neighbourhood runs dry before |H| reaches
min(20, tools), the remaining tools are merged as extra roots, like the paper's random extra
chains. Expanding again after a further chain continues from the H so far. The result is
recorded in the task meta: H, |H|, c(H) = (|V| + 0.5 |E|) / 50 over the graph's edges
inside H, and the tools that answer only thanks to a patch.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Awaitable, Callable

import networkx as nx

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Observation
from scaleenv_mcp.generator.synthesis.executor import CallFn, ChainRun, LinkSpec, run_tool
from scaleenv_mcp.generator.synthesis.world import Neighborhood

__all__ = ["ExpansionResult", "PatchFn", "complexity", "expand_tools", "others_tools"]

TARGET = 20
ARGUMENT_ATTEMPTS = 3  # an added tool gets this many argument choices before the state is patched
PATCH_TRIES = 3  # tools a single expansion may try to patch the state for (each costs replays)

PatchFn = Callable[[ToolSpec], Awaitable[Observation | None]]


class ExpansionResult:
    def __init__(self, tools: list[str], edges: int, tried: int, answered: int, patched: list[str]) -> None:
        self.tools, self.edges, self.tried, self.answered, self.patched = tools, edges, tried, answered, patched

    @property
    def complexity(self) -> float:
        return complexity(len(self.tools), self.edges)

    @property
    def answered_share(self) -> float:
        """Share of the tools tried that gave an observation: the measured feasibility of H. A tool
        the persona may not use (another kind's, or one that refused them permission) is not tried
        or not counted: it is someone else's to use."""
        return round(self.answered / self.tried, 4) if self.tried else 1.0


def others_tools(manifest: DomainManifest, kind: str | None) -> set[str]:
    """Tools no principal of ``kind`` may use: another kind's acting tools and identification
    (a member does not identify as a moderator). None (no persona): none."""
    if kind is None:
        return set()
    mine = {path.tool for p in manifest.principals if p.kind == kind for path in p.identify}
    theirs = {path.tool for p in manifest.principals if p.kind != kind for path in p.identify} - mine
    return theirs | {t.name for t in manifest.tools if t.acting is not None and kind not in t.acting.kinds}


def complexity(vertices: int, edges: int) -> float:
    return round((vertices + 0.5 * edges) / 50, 4)


async def expand_tools(call: CallFn, graph: nx.DiGraph, manifest: DomainManifest, chain_tools: list[str],
                       resolver: ArgumentResolver, run: ChainRun, near: Neighborhood | None,
                       rng: random.Random, chainable: list[str], patch: PatchFn | None = None,
                       before: ExpansionResult | None = None) -> ExpansionResult:
    """BFS over ``graph`` (the simple tool graph) from H so far and the chain's tools, executing each added tool once.

    After a patch, ``call`` (the caller's closure) reaches the patched episode.
    """
    target = min(TARGET, len(chainable))
    allowed = set(chainable) - others_tools(manifest, resolver.principal[0] if resolver.principal else None)
    tools: list[str] = list(before.tools) if before else []
    for name in chain_tools:
        if name not in tools:
            tools.append(name)
    probe = ChainRun(observations=list(run.observations), facts=run.facts)
    queue: deque[str] = deque()
    queued = set(tools)

    def enqueue(names: list[str]) -> None:
        fresh = sorted({n for n in names if n not in queued and n in allowed})
        rng.shuffle(fresh)
        for name in fresh:
            queued.add(name)
            queue.append(name)

    for name in tools:
        enqueue(list(graph.successors(name)) + list(graph.predecessors(name)))
    tried, answered = (before.tried, before.answered) if before else (0, 0)
    patched: list[str] = list(before.patched) if before else []
    patch_tries = 0
    while len(tools) < target:
        if not queue:
            enqueue([n for n in chainable if n not in queued])  # merge extra roots
            if not queue:
                break
        name = queue.popleft()
        probe.last_error_code = ""
        observation = await run_tool(call, LinkSpec(tool=manifest.tool(name)), resolver, probe, near, rng, record=False,
                                     attempts=ARGUMENT_ATTEMPTS)
        if observation is None and probe.last_error_code == "permission_denied":
            # Not this persona's tool (a seller's step asked of the buyer): it says nothing of how
            # feasible the task is, and no patch of the world should make it theirs.
            continue
        tried += 1
        if observation is None and patch is not None and patch_tries < PATCH_TRIES:
            patch_tries += 1
            observation = await patch(manifest.tool(name))
            if observation is not None:
                patched.append(name)
        if observation is None:
            continue
        answered += 1
        probe.observations.append(observation)
        tools.append(name)
        enqueue(list(graph.successors(name)) + list(graph.predecessors(name)))
    edges = graph.subgraph(tools).number_of_edges()
    return ExpansionResult(tools, edges, tried, answered, patched)
