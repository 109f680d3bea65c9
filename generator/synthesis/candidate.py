"""One candidate task, from its index alone: plan, anchor, distractors, execution, expansion, user.

Candidate ``i`` of seed ``s`` draws every choice from ``random.Random(f"{slug}:{s}:{i}")``
and acts only on episodes of its own, so its outcome does not depend on which other
candidates run alongside it or in what order they finish: that is what makes the output
file byte-identical for a seed. The anchor (the row the end tool acts on) is chosen by
probing the end tool on copies of the seed state, so a task is not wasted on a row the
tool refuses (a returned loan, a suspended member).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import networkx as nx

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.domain.task import GoldSpec, Task, TaskMeta
from scaleenv_mcp.domain.task_file import rank_by_id_hash
from scaleenv_mcp.episodes.trace import CallOutcome
from scaleenv_mcp.errors import EnvironmentFaultError, HarnessError
from scaleenv_mcp.generator.graph import ToolGraphDocument
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Observation
from scaleenv_mcp.generator.synthesis.chain import ChainPlan, ChainSampler
from scaleenv_mcp.generator.synthesis.chain_code import ChainCodeError, ChainRequest, ChainWriter, parse_chain_code
from scaleenv_mcp.generator.synthesis.errands import further_errand
from scaleenv_mcp.generator.synthesis.executor import ChainRun, LinkSpec, named_facts, run_chain, run_tool
from scaleenv_mcp.generator.synthesis.expansion import ExpansionResult, complexity, expand_tools
from scaleenv_mcp.generator.synthesis.gate import MAX_CHAINS, ChainGate, ExpansionDecision, GateView, RuleGate
from scaleenv_mcp.generator.synthesis.lookups import lookup_sources
from scaleenv_mcp.generator.synthesis.persona import choose_persona, identify, persona_ref
from scaleenv_mcp.generator.synthesis.prune import drop_needless_reads, drop_repeated_reads
from scaleenv_mcp.generator.synthesis.questions import ask_follow_ups, build_question
from scaleenv_mcp.generator.synthesis.refusals import build_refusal
from scaleenv_mcp.generator.synthesis.start_state import DistractorBuilder
from scaleenv_mcp.generator.synthesis.story import Story
from scaleenv_mcp.generator.synthesis.task_state import TaskState
from scaleenv_mcp.generator.synthesis.templates import Goal, acting_profile, argument_slots, build_user, person_profile
from scaleenv_mcp.generator.synthesis.world import Neighborhood, World
from scaleenv_mcp.state.model import RowOp

if TYPE_CHECKING:
    from scaleenv_mcp.generator.synthesis.hosting import SynthesisHost

__all__ = ["CandidateFactory", "Rejection", "assign_splits", "difficulty_of"]

ANCHOR_TRIES = 3
INFORMATION_SHARE = 0.2  # of the candidates of a domain whose read tools carry questions
REFUSAL_SHARE = 0.15  # of the candidates of a domain whose policy-only rules say which rows they forbid
FOLLOW_UP_SHARE = 0.9  # action tasks whose user, the errand done, asks one thing about the same story
FOLLOW_UP_SHARES = (FOLLOW_UP_SHARE, 0.5)  # ... and of those, the ones that ask a second thing
PROBES = 16  # rows tried as the anchor; a refusal that names the row ends its probe after one or two calls


@dataclass
class WrittenPlan:
    """A chain writer's chain as a plan, its anchor, its code and the start-state rows it wrote that load."""

    plan: ChainPlan
    anchor: tuple[str, dict[str, Any]] | None
    code: str
    rows: list[RowOp]


@dataclass
class Rejection:
    reason: str
    detail: str = ""


def difficulty_of(steps: int, subgoals: int, distractors: int) -> str:
    score = (steps - subgoals) + 2 * (subgoals - 1) + (distractors >= 2) + (distractors >= 4)
    return "easy" if score <= 1 else "medium" if score <= 3 else "hard"


def assign_splits(tasks: list[Task], test_share: float = 0.2) -> list[Task]:
    """Exactly round(share * n) tasks go to test: those whose id hashes lowest (order-free, seeded by the ids)."""
    ranked = rank_by_id_hash(tasks)
    test = {t.id for t in ranked[:round(test_share * len(tasks))]}
    return [t.model_copy(update={"split": "test" if t.id in test else "train"}) for t in tasks]


class CandidateFactory:
    def __init__(self, host: SynthesisHost, package: DomainPackage, document: ToolGraphDocument, seed: int,
                 gate: ChainGate | None = None, writer: ChainWriter | None = None) -> None:
        self.host, self.package, self.seed = host, package, seed
        self.gate: ChainGate = gate or RuleGate()
        self.writer = writer
        self.chain_code: Counter[str] = Counter()  # written chains: used, refused (by the parser), failed (fell back)
        self.chain_code_examples: dict[str, str] = {}
        self.further: Counter[str] = Counter()  # errands after the first: kept, gate_declined, no_story_end, failed, off_story, undoes
        self.slug = package.slug
        self.manifest = package.manifest
        self.world = World(self.manifest, package.seed)
        self.builder = DistractorBuilder(self.manifest, package.schema_sql, package.seed, self.world)
        self.sampler = ChainSampler(self.manifest, document, self.world, seed)
        self.graph = nx.DiGraph()
        self.graph.add_nodes_from(n.name for n in document.nodes)
        self.graph.add_edges_from((e.source, e.target) for e in document.edges if e.source != e.target)
        chainable = self.graph.subgraph(self.sampler.chainable)
        self.whole = complexity(chainable.number_of_nodes(), chainable.number_of_edges())
        self.bases: list[str] = []
        self.fits: dict[tuple[str, str, str], bool] = {}
        self.actors: dict[int, Any] = {}  # candidate index -> the acting principal its end tool answered for
        self.questions = [(t.name, q) for t in self.manifest.tools if not t.is_writing for q in t.questions]
        self.refusals = [r for r in self.manifest.policy_rules if r.violation is not None]
        self.lookups = lookup_sources(self.manifest, document, self.world)
        # every person the domain serves: a follow-up asked in the first person is about no one else
        self.people = {row[p.key] for p in self.manifest.principals for row in self.world.rows.get(p.table, [])
                       if row.get(p.key) is not None}

    async def start(self, copies: int) -> None:
        """Seed-state episodes the anchor probes fork from (one per worker, to spread the load)."""
        for _ in range(max(1, copies)):
            self.bases.append((await self.host.create_episode(self.slug)).id)

    def task_id(self, index: int) -> str:
        return f"{self.slug}-{self.seed}-{index:04d}"

    def plan(self, index: int, rng: random.Random) -> tuple[ChainPlan, int, int]:
        """The seed chain C1, the length later chains aim for, and the distractor density."""
        length = rng.choices([1, 2, 3, 4], weights=[15, 30, 30, 25])[0]
        density = rng.choices([0, 1, 2, 3], weights=[20, 35, 30, 15])[0]
        return self.sampler.sample(self.sampler.end_tool(index), length, rng), max(1, length - 1), density

    async def probe_anchor(self, plan: ChainPlan, index: int, rng: random.Random) -> tuple[str, dict[str, Any]] | None:
        """A row of the anchor table on which the end tool, called alone, succeeds."""
        if plan.anchor_table is None:
            return None
        rows = self.world.rows[plan.anchor_table]
        resolver = ArgumentResolver(self.manifest, self.world, rng, self.fits)
        base = self.bases[index % len(self.bases)]
        for row in rng.sample(rows, min(PROBES, len(rows))):
            near = self.world.neighborhood([(plan.anchor_table, row)])
            fork = await self.host.fork(base)
            used: dict[str, Any] = {}
            try:
                async def call(tool: str, arguments: dict[str, Any]) -> Any:
                    used.clear()
                    used.update(arguments)
                    return await self.host.call(fork.id, tool, arguments)

                link = LinkSpec(tool=plan.links[plan.anchor_link].tool,
                                pinned={plan.subject: self.world.key_of(plan.anchor_table, row)} if plan.subject else {})
                if await run_tool(call, link, resolver, ChainRun(), near, rng, record=False):
                    acting = link.tool.acting
                    if acting is not None:
                        self.actors[index] = used.get(acting.argument)
                    return plan.anchor_table, row
            finally:
                await self.host.close(fork.id)
        return plan.anchor_table, rng.choice(rows)

    async def build(self, index: int) -> Task | Rejection:
        try:
            return await self._build(index)
        except HarnessError as error:
            return Rejection("environment", f"{error.code}: {error.message}")

    async def written_chain(self, index: int, sampled: ChainPlan, rng: random.Random) -> WrittenPlan | None:
        """The seed chain the chain writer writes as code for this candidate, read (never run) into a
        plan, with the start-state rows it wrote that load (the others are refused and counted)."""
        assert self.writer is not None
        anchor = await self.probe_anchor(sampled, index, rng)
        nearby = self.world.neighborhood([anchor]).rows[1:9] if anchor else []
        request = ChainRequest(
            task_id=self.task_id(index), end_tool=sampled.tools[-1], hint=sampled.tools, subject=sampled.subject,
            anchor=anchor[1] if anchor else None, nearby=[{"table": t, "row": r} for _, t, r in nearby],
            tools=[{"name": t.name, "description": t.description, "parameters": t.input_schema}
                   for t in self.manifest.tools if t.name in self.sampler.chainable],
            tables=[t.model_dump(mode="json", include={"name", "columns", "primary_key", "foreign_keys"})
                    for t in self.manifest.tables])
        written = await self.writer(request)
        try:
            steps = parse_chain_code(written.code, self.manifest)
        except ChainCodeError as error:
            self.chain_code["refused"] += 1
            self.chain_code_examples.setdefault("refused", str(error))
            return None
        rows, refused = self.builder.check_rows(
            [RowOp(op="insert", table=r.table, row=r.row, distractor=r.distractor) for r in written.rows], [])
        self.chain_code["rows_kept"] += len(rows)
        self.chain_code["rows_refused"] += len(refused)
        if refused:
            self.chain_code_examples.setdefault("rows_refused", refused[0][:300])
        world = self.world.with_ops(rows)
        plan = self.sampler.from_steps(steps)
        named = plan.links[plan.anchor_link].pinned.get(plan.subject) if plan.subject else None
        row = world.row(plan.anchor_table, named) if plan.anchor_table and named is not None else None
        return WrittenPlan(plan, (plan.anchor_table, row) if row is not None else anchor, written.code, rows)

    def kind_of(self, index: int) -> str:
        """The kind candidate ``index`` builds, drawn apart from its main stream (its own seed)."""
        draw = random.Random(f"{self.slug}:{self.seed}:{index}:kind").random()
        if self.questions and draw < INFORMATION_SHARE:
            return "information"
        if self.refusals and draw > 1 - REFUSAL_SHARE:
            return "refusal"
        return "action"

    def kinds(self) -> set[str]:
        """The kinds this domain can build: questions need read tools that carry them, refusals rules with violations."""
        return {"action"} | ({"information"} if self.questions else set()) | ({"refusal"} if self.refusals else set())

    async def _build(self, index: int) -> Task | Rejection:
        kind = random.Random(f"{self.slug}:{self.seed}:{index}:kind")
        kind.random()  # the draw kind_of made
        if self.kind_of(index) == "information":
            return await build_question(self, index, kind)
        if self.kind_of(index) == "refusal":
            return await build_refusal(self, index, kind)
        rng = random.Random(f"{self.slug}:{self.seed}:{index}")
        first, later_length, density = self.plan(index, rng)
        written = await self.written_chain(index, first, rng) if self.writer is not None else None
        last = Rejection("chain_failed")
        for attempt in range(ANCHOR_TRIES):
            code, rows = None, []
            if written is not None and attempt == 0:  # the written chain first; the sampled one if it fails
                plan, anchor, code, rows = written.plan, written.anchor, written.code, written.rows
            else:
                plan, anchor = first, await self.probe_anchor(first, index, rng)
            # The last try goes without distractors: a look-alike row can itself block the chain
            # (one more open loan of the same member reaches the loan limit).
            spread = density if attempt < ANCHOR_TRIES - 1 else 0
            used: dict[str, int] = {}
            ops = rows + (self.builder.build([anchor], spread, rng, with_parents=spread == 3, used=used, existing=rows)
                          if spread and anchor else [])
            world = self.world.with_ops(ops)
            state = TaskState(self.host, self.slug, self.manifest, self.builder, world,
                              f"draft:{self.seed}:{index}:{attempt}", ops, used)
            await state.open()
            persona = choose_persona(self.manifest, plan, anchor, state.world, self.actors.get(index), attempt,
                                     ArgumentResolver(self.manifest, state.world,
                                                      random.Random(f"{self.slug}:{self.seed}:{index}:persona"), self.fits))
            try:
                outcome = await self._grow(index, state, plan, anchor, later_length, rng, persona)
            finally:
                await state.close()
            if code is not None:
                self.chain_code["failed" if isinstance(outcome, Rejection) else "used"] += 1
                if isinstance(outcome, Rejection):
                    self.chain_code_examples.setdefault("failed", f"{outcome.reason}: {outcome.detail}"[:300])
            if isinstance(outcome, Rejection):
                last = outcome
                continue
            if code is not None:
                outcome = outcome.model_copy(update={"meta": outcome.meta.model_copy(update={"seed_chain_code": code})})
            return outcome
        return last

    def _recording_resolver(self, world: World, rng: random.Random) -> ArgumentResolver:
        """The resolver of a task's recorded run: the domain's lookups, and no internal id from the
        user in a domain that serves people."""
        resolver = ArgumentResolver(self.manifest, world, rng, self.fits)
        resolver.lookups = self.lookups
        resolver.hide_ids = bool(self.manifest.principals)
        return resolver

    async def begin(self, index: int, attempt: int, plan: ChainPlan, anchor: tuple[str, dict[str, Any]] | None,
                    rng: random.Random, probed: Any, tag: str) -> tuple[TaskState, ArgumentResolver, ChainRun] | None:
        """An open task state on the seed, a resolver and a run with the persona (if the plan acts for
        anyone) identified; None (the state closed) when identification fails. The caller closes the state."""
        state = TaskState(self.host, self.slug, self.manifest, self.builder, self.world,
                          f"draft:{self.seed}:{index}:{tag}{attempt}", [], {})
        await state.open()
        resolver = self._recording_resolver(state.world, rng)
        run = ChainRun()
        persona = choose_persona(self.manifest, plan, anchor, state.world, probed, attempt,
                                 ArgumentResolver(self.manifest, state.world,
                                                  random.Random(f"{self.slug}:{self.seed}:{index}:persona"), self.fits))
        if persona is not None and not await identify(state, self.manifest, persona, resolver, run, rng):
            await state.close()
            return None
        return state, resolver, run

    async def run_goal(self, state: TaskState, plan: ChainPlan, anchor: tuple[str, dict[str, Any]] | None,
                        resolver: ArgumentResolver, run: ChainRun, rng: random.Random,
                        goals: list[Goal]) -> bool:
        """Run one chain on the main episode and record its goal (the writing tools and the facts they need)."""
        first, first_action = len(run.grounding), len(run.actions)
        near = state.world.neighborhood([anchor]) if anchor else None
        if not await run_chain(state.call, plan.links, resolver, run, near, rng):
            return False
        keys = named_facts(run.grounding[first:])
        writing = [t for t in plan.tools if self.manifest.tool(t).writes]
        acts = {i for i in range(first_action, len(run.actions)) if self.manifest.tool(run.actions[i].tool).writes}
        goals.append((writing, {k: run.facts.values[k] for k in keys if k}, argument_slots(run.grounding[first:], acts)))
        return True

    async def _grow(self, index: int, state: TaskState, first: ChainPlan, anchor: tuple[str, dict[str, Any]] | None,
                    later_length: int, rng: random.Random, persona: tuple[str, Any] | None = None) -> Task | Rejection:
        """Identification of the persona, C1, its expansion, then further chains while the gate accepts;
        the gold from the main episode."""
        resolver = self._recording_resolver(state.world, rng)
        run = ChainRun()
        goals: list[Goal] = []
        if persona is not None and not await identify(state, self.manifest, persona, resolver, run, rng):
            return Rejection("identification", f"no identification path found {persona[0]} {persona[1]}")
        if not await self.run_goal(state, first, anchor, resolver, run, rng, goals):
            return Rejection("chain_failed", f"{' -> '.join(first.tools)}; last refusal {run.last_error}")
        chains = [first]
        near = state.world.neighborhood([anchor]) if anchor else None
        expansion = await self._expand(state, chains[-1].tools, resolver, run, near, rng, None)
        decision = ExpansionDecision(add_chain=False, feasibility=expansion.answered_share)
        while len(chains) < MAX_CHAINS:
            taken = {t for plan in chains for t in plan.tools}
            story = Story.around(self.manifest, state.world, anchor, self.people, await state.diff())
            ends = self.sampler.story_ends(index, taken, len(chains), story.tables,
                                           resolver.principal[0] if resolver.principal else None)
            if not ends:  # nothing left to do about this story: no other errand to ask the gate about
                self.further["no_story_end"] += 1
                break
            view = GateView(task_id=self.task_id(index), complexity=expansion.complexity, whole=self.whole,
                            expanded=expansion.tools,
                            chains=[c.tools for c in chains], answered=expansion.answered_share,
                            left=[t for t in self.sampler.chainable if t not in expansion.tools])
            decision = await self.gate(view, rng)
            if not decision.add_chain:
                self.further["gate_declined"] += 1
                break
            plan = await further_errand(self, state, story, ends, anchor, later_length, resolver, run, rng, goals)
            if plan is None:
                break
            chains.append(plan)
            expansion = await self._expand(state, plan.tools, resolver, run, near, rng, expansion)
        diff = await state.diff()
        if diff.is_empty:
            return Rejection("no_effect", "the chain changed nothing")
        identification = frozenset(g["action"] for g in run.grounding if g.get("fact") in run.identity_facts)
        if drop_needless_reads(run, self.manifest, keep=identification):
            goals = [(tools, {k: v for k, v in facts.items() if k in run.facts.values}, slots)
                     for tools, facts, slots in goals]
        # Drawn apart from the main stream, so whether a task asks one more thing moves no other choice.
        follow = random.Random(f"{self.slug}:{self.seed}:{index}:follow-up")
        story = Story.around(self.manifest, state.world, anchor, self.people, diff)
        asked = await ask_follow_ups(self, state, resolver, run, anchor, story, follow, FOLLOW_UP_SHARES)
        drop_repeated_reads(run, self.manifest)
        fingerprint = await state.fingerprint()
        distractors = sum(1 for op in state.setup if op.distractor)
        difficulty = difficulty_of(len(run.actions), len(chains) + len(asked), distractors)
        user = build_user(self.manifest, goals, run.facts.values, run.optional_facts, difficulty, rng,
                          profile=acting_profile(state.world, self.manifest, run.actions)
                          or person_profile(state.world, run.facts.values), identity=run.identity_facts,
                          questions=[q.asked for q in asked], kind=resolver.principal[0] if resolver.principal else None)
        return Task(id=self.task_id(index), domain=self.slug, difficulty=difficulty, user=user,
                    communicate=[q.answer for q in asked],
                    persona=persona_ref(resolver), setup=state.ops, actions=run.actions, gold=GoldSpec(diff=diff, fingerprint=fingerprint),
                    meta=TaskMeta(seed_chain=first.tools, chains=[c.tools for c in chains],
                                  expanded_tools=expansion.tools, expanded_size=len(expansion.tools),
                                  complexity=expansion.complexity, feasibility=decision.feasibility,
                                  patched_tools=expansion.patched, distractors=distractors,
                                  synthesis_seed=self.seed, grounding=run.grounding))

    async def _expand(self, state: TaskState, chain_tools: list[str], resolver: ArgumentResolver, run: ChainRun,
                      near: Neighborhood | None, rng: random.Random, before: ExpansionResult | None) -> ExpansionResult:
        """Expand H on a fork of the main episode, patching the start state for tools that only error."""
        probe = ProbeEpisode(self.host, await state.fork())
        patcher = StatePatcher(self, state, probe, run, resolver, near, rng)
        try:
            return await expand_tools(probe.call, self.graph, self.manifest, chain_tools, resolver, run, near, rng,
                                      self.sampler.chainable, patch=patcher, before=before)
        finally:
            await probe.close()


class ProbeEpisode:
    """The episode the expansion calls tools on; a kept patch moves it to the patched world."""

    def __init__(self, host: SynthesisHost, episode_id: str) -> None:
        self.host, self.episode_id = host, episode_id

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallOutcome:
        return await self.host.call(self.episode_id, tool, arguments)

    async def move(self, episode_id: str) -> None:
        await self.host.close(self.episode_id)
        self.episode_id = episode_id

    async def close(self) -> None:
        await self.host.close(self.episode_id)


class StatePatcher:
    """The expansion's patch hook: clone a row the failing tool acts on into the setup until it answers."""

    def __init__(self, factory: CandidateFactory, state: TaskState, probe: ProbeEpisode, run: ChainRun,
                 resolver: ArgumentResolver, near: Neighborhood | None, rng: random.Random) -> None:
        self.factory, self.state, self.probe, self.run = factory, state, probe, run
        self.resolver, self.near, self.rng = resolver, near, rng

    async def __call__(self, tool: ToolSpec) -> Observation | None:
        param, table = self.factory.sampler.subject(tool.name)
        if param is None or table is None:
            return None
        host = self.factory.host
        near_rows = self.near.rows_of(table)[:1] if self.near else []
        for op in self.state.patch_candidates(table, near_rows, self.rng):
            episode = await self.state.try_patch(op, self.run.actions)
            if episode is None:
                continue
            fork = (await host.fork(episode)).id
            world = self.state.world.with_ops([op])
            resolver = ArgumentResolver(self.factory.manifest, world, self.rng, self.factory.fits)

            async def call(name: str, arguments: dict[str, Any]) -> CallOutcome:
                return await host.call(fork, name, arguments)

            link = LinkSpec(tool=tool, pinned={param: world.key_of(table, op.row or {})})
            scratch = ChainRun(observations=list(self.run.observations), facts=self.run.facts)
            try:
                observation = await run_tool(call, link, resolver, scratch, self.near, self.rng, record=False, attempts=2)
            except EnvironmentFaultError:
                observation = None  # the tool crashes on this patched row (a domain bug the synthesis report names elsewhere)
            if observation is None:
                await host.close(fork)
                await host.close(episode)
                continue
            await self.state.keep_patch(op, episode)
            self.resolver.world = self.state.world
            await self.probe.move(fork)
            return observation
        return None
