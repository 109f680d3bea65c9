"""Controlled expansion (paper phase 2, step 4): grow the tool set H around the seed chain.

Starting from H1 = the chain's tools, a dependency-aware breadth-first search adds tools
that an edge connects to H (their ids can come from H's results), executes each once on a
copy of the task's end state, and keeps it when it answers with a real observation; when a
call errors, other arguments are tried (the patch step; state patches are not made). When
the neighbourhood runs dry before |H| reaches min(20, tools), the remaining tools are merged
as extra roots, like the paper's random extra chains. The result is recorded in the task
meta: H, |H| and c(H) = (|V| + 0.5 |E|) / 50 over the graph's edges inside H.
"""

from __future__ import annotations

import random
from collections import deque

import networkx as nx

from scaleenv_mcp.domain.manifest import DomainManifest

from generator.synthesis.arguments import ArgumentResolver
from generator.synthesis.executor import CallFn, ChainRun, LinkSpec, run_tool
from generator.synthesis.world import Neighborhood

__all__ = ["ExpansionResult", "complexity", "expand_tools"]

TARGET = 20
PATCH_ATTEMPTS = 3  # an added tool gets this many argument choices before it is left out


class ExpansionResult:
    def __init__(self, tools: list[str], edges: int, tried: int) -> None:
        self.tools, self.edges, self.tried = tools, edges, tried

    @property
    def complexity(self) -> float:
        return complexity(len(self.tools), self.edges)


def complexity(vertices: int, edges: int) -> float:
    return round((vertices + 0.5 * edges) / 50, 4)


async def expand_tools(call: CallFn, graph: nx.DiGraph, manifest: DomainManifest, chain_tools: list[str],
                       resolver: ArgumentResolver, run: ChainRun, near: Neighborhood | None,
                       rng: random.Random, chainable: list[str]) -> ExpansionResult:
    """BFS over ``graph`` (the simple tool graph) from the chain's tools, executing each added tool once."""
    target = min(TARGET, len(chainable))
    allowed = set(chainable)
    tools: list[str] = []
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
    tried = 0
    while len(tools) < target:
        if not queue:
            enqueue([n for n in chainable if n not in queued])  # merge extra roots
            if not queue:
                break
        name = queue.popleft()
        tried += 1
        observation = await run_tool(call, LinkSpec(tool=manifest.tool(name)), resolver, probe, near, rng, record=False,
                                     attempts=PATCH_ATTEMPTS)
        if observation is None:
            continue
        probe.observations.append(observation)
        tools.append(name)
        enqueue(list(graph.successors(name)) + list(graph.predecessors(name)))
    edges = graph.subgraph(tools).number_of_edges()
    return ExpansionResult(tools, edges, tried)
