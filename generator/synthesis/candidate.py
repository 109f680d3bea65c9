"""One candidate task, from its index alone: plan, anchor, distractors, execution, expansion, user.

Candidate ``i`` of seed ``s`` draws every choice from ``random.Random(f"{slug}:{s}:{i}")``
and acts only on episodes of its own, so its outcome does not depend on which other
candidates run alongside it or in what order they finish: that is what makes the output
file byte-identical for a seed. The anchor (the row the end tool acts on) is chosen by
probing the end tool on copies of the seed state, so a task is not wasted on a row the
tool refuses (a returned loan, a suspended member).
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

import networkx as nx

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskMeta
from scaleenv_mcp.errors import HarnessError
from verifier.replay import stage_tasks, unstage_tasks

from generator.graph import ToolGraphDocument
from generator.synthesis.arguments import ArgumentResolver
from generator.synthesis.chain import ChainPlan, ChainSampler
from generator.synthesis.executor import ChainRun, LinkSpec, run_chain, run_tool
from generator.synthesis.expansion import expand_tools
from generator.synthesis.start_state import DistractorBuilder
from generator.synthesis.templates import build_user
from generator.synthesis.world import World

__all__ = ["CandidateFactory", "Rejection", "assign_splits", "difficulty_of"]

ANCHOR_TRIES = 3
PROBES = 16  # rows tried as the anchor; a refusal that names the row ends its probe after one or two calls


@dataclass
class Rejection:
    reason: str
    detail: str = ""


def difficulty_of(steps: int, subgoals: int, distractors: int) -> str:
    score = (steps - subgoals) + 2 * (subgoals - 1) + (distractors >= 2) + (distractors >= 4)
    return "easy" if score <= 1 else "medium" if score <= 3 else "hard"


def assign_splits(tasks: list[Task], test_share: float = 0.2) -> list[Task]:
    """Exactly round(share * n) tasks go to test: those whose id hashes lowest (order-free, seeded by the ids)."""
    ranked = sorted(tasks, key=lambda t: hashlib.sha256(t.id.encode()).hexdigest())
    test = {t.id for t in ranked[:round(test_share * len(tasks))]}
    return [t.model_copy(update={"split": "test" if t.id in test else "train"}) for t in tasks]


class CandidateFactory:
    def __init__(self, host: Any, package: DomainPackage, document: ToolGraphDocument, seed: int) -> None:
        self.host, self.package, self.seed = host, package, seed
        self.slug = package.slug
        self.manifest = package.manifest
        self.world = World(self.manifest, package.seed)
        self.builder = DistractorBuilder(self.manifest, package.schema_sql, package.seed, self.world)
        self.sampler = ChainSampler(self.manifest, document, self.world, seed)
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(n.name for n in document.nodes)
        self.graph.add_edges_from((e.source, e.target) for e in document.edges if e.source != e.target)
        self.bases: list[str] = []
        self.fits: dict[tuple[str, str, str], bool] = {}

    async def start(self, copies: int) -> None:
        """Seed-state episodes the anchor probes fork from (one per worker, to spread the load)."""
        for _ in range(max(1, copies)):
            self.bases.append((await self.host.create_episode(self.slug)).id)

    def task_id(self, index: int) -> str:
        return f"{self.slug}-{self.seed}-{index:04d}"

    def plan(self, index: int, rng: random.Random) -> tuple[list[ChainPlan], int]:
        two = len(self.sampler.writers) >= 2 and rng.random() < 0.2
        length = rng.choices([1, 2, 3, 4], weights=[25, 35, 25, 15])[0]
        density = rng.choices([0, 1, 2, 3], weights=[20, 35, 30, 15])[0]
        ends = [self.sampler.end_tool(index)]
        if two:
            second = self.sampler.end_tool(index, len(self.sampler.writers) // 2 + 1)
            if second != ends[0]:
                ends.append(second)
        return [self.sampler.sample(end, length if k == 0 else max(1, length - 1), rng) for k, end in enumerate(ends)], density

    async def probe_anchor(self, plan: ChainPlan, index: int, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
        """A row of the anchor table on which the end tool, called alone, succeeds."""
        if plan.anchor_table is None:
            return None
        rows = self.world.rows[plan.anchor_table]
        resolver = ArgumentResolver(self.manifest, self.world, rng, self.fits)
        base = self.bases[index % len(self.bases)]
        for row in rng.sample(rows, min(PROBES, len(rows))):
            near = self.world.neighborhood([(plan.anchor_table, row)])
            fork = await self.host.registry.fork(base)
            try:
                async def call(tool: str, arguments: dict[str, Any]) -> Any:
                    return await self.host.registry.call(fork.id, tool, arguments)

                link = LinkSpec(tool=plan.links[plan.anchor_link].tool,
                                pinned={plan.subject: self.world.key_of(plan.anchor_table, row)} if plan.subject else {})
                if await run_tool(call, link, resolver, ChainRun(), near, rng, record=False):
                    return plan.anchor_table, row
            finally:
                await self.host.registry.close(fork.id)
        return plan.anchor_table, rng.choice(rows)

    async def build(self, index: int) -> Task | Rejection:
        try:
            return await self._build(index)
        except HarnessError as error:
            return Rejection("environment", f"{error.code}: {error.message}")

    async def _build(self, index: int) -> Task | Rejection:
        rng = random.Random(f"{self.slug}:{self.seed}:{index}")
        chains, density = self.plan(index, rng)
        registry = self.host.registry
        last = Rejection("chain_failed")
        for attempt in range(ANCHOR_TRIES):
            anchors = [await self.probe_anchor(plan, index, rng) for plan in chains]
            present = [a for a in anchors if a is not None]
            # The last try goes without distractors: a look-alike row can itself block the chain
            # (one more open loan of the same member reaches the loan limit).
            spread = density if attempt < ANCHOR_TRIES - 1 else 0
            ops = self.builder.build(present, spread, rng, with_parents=spread == 3) if spread and present else []
            world = self.world.with_ops(ops)
            draft = Task(id=f"draft:{self.seed}:{index}:{attempt}", domain=self.slug, difficulty="easy",
                         user={"opening": "", "instruction": ""}, setup=ops, actions=[])
            stage_tasks(self.host, self.slug, [draft])
            episode = await self.host.create_episode(self.slug, draft.id)
            try:
                async def call(tool: str, arguments: dict[str, Any]) -> Any:
                    return await registry.call(episode.id, tool, arguments)

                resolver = ArgumentResolver(self.manifest, world, rng, self.fits)
                run = ChainRun()
                goals: list[tuple[list[str], dict[str, Any]]] = []
                ok = True
                for plan, anchor in zip(chains, anchors):
                    first = len(run.grounding)
                    near = world.neighborhood([anchor]) if anchor else None
                    if not await run_chain(call, plan.links, resolver, run, near, rng):
                        ok = False
                        break
                    keys = [g.get("fact") for g in run.grounding[first:]] + [
                        k for g in run.grounding[first:] for k in (g.get("select_by") or {}).values()]
                    writing = [t for t in plan.tools if self.manifest.tool(t).writes]
                    goals.append((writing, {k: run.facts.values[k] for k in keys if k}))
                if not ok:
                    last = Rejection("chain_failed", f"{' -> '.join(chains[0].tools)}; last refusal {run.last_error}")
                    continue
                diff = await registry.diff(episode.id)
                if diff.is_empty:
                    last = Rejection("no_effect", "the chain changed nothing")
                    continue
                fingerprint = await registry.fingerprint(episode.id)
                fork = await registry.fork(episode.id)
                try:
                    async def probe(tool: str, arguments: dict[str, Any]) -> Any:
                        return await registry.call(fork.id, tool, arguments)

                    near = world.neighborhood([anchors[0]]) if anchors[0] else None
                    expansion = await expand_tools(probe, self.graph, self.manifest, chains[0].tools, resolver, run,
                                                   near, rng, self.sampler.chainable)
                finally:
                    await registry.close(fork.id)
            finally:
                await registry.close(episode.id)
                unstage_tasks(self.host, self.slug, [draft.id])
            difficulty = difficulty_of(len(run.actions), len(chains), len(ops))
            user = build_user(self.manifest, goals, run.facts.values, run.optional_facts, difficulty, rng)
            task_id = self.task_id(index)
            return Task(id=task_id, domain=self.slug, difficulty=difficulty, user=user,
                        setup=ops, actions=run.actions, gold=GoldSpec(diff=diff, fingerprint=fingerprint),
                        meta=TaskMeta(seed_chain=chains[0].tools, expanded_tools=expansion.tools,
                                      expanded_size=len(expansion.tools), complexity=expansion.complexity,
                                      distractors=len(ops), synthesis_seed=self.seed, grounding=run.grounding))
        return last
