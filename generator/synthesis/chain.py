"""Seed chains C1: paths along id data-flow edges of the tool graph, ending in a state-changing tool.

The end tool of candidate ``i`` is taken round-robin from a seeded permutation of the
writing tools, so every writing tool gets tasks whatever the order in which candidates
finish; the chain then walks backwards to a random predecessor that can feed the current
first tool an id. Tools that neither read nor write (test helpers, calculators) are never
in a chain. Everything is sorted before ``random.Random`` picks, so no choice depends on
dict or set order or on PYTHONHASHSEED.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.generator.graph import EdgeType, ToolGraphDocument, is_key_name
from scaleenv_mcp.generator.synthesis.chain_code import ChainStep
from scaleenv_mcp.generator.synthesis.executor import LinkSpec
from scaleenv_mcp.generator.synthesis.expansion import others_tools
from scaleenv_mcp.generator.synthesis.lookups import is_lookup
from scaleenv_mcp.generator.synthesis.world import World

__all__ = ["ChainPlan", "ChainSampler"]


@dataclass
class ChainPlan:
    tools: list[str]
    links: list[LinkSpec]
    subject: str | None  # parameter of the anchor link that names the anchor entity
    anchor_table: str | None
    anchor_link: int = -1  # the link probed to choose the anchor row


def _next_steps(manifest: DomainManifest, document: ToolGraphDocument, writers: set[str]) -> frozenset[tuple[str, str]]:
    """(A, B) for writers where A makes B possible: B's preconditions name A (the graph's
    precondition edges), or state what one of A's postconditions brings about ("the order is
    delivered" after confirm_delivery, before complete_order)."""
    pairs = {(e.source, e.target) for e in document.edges
             if e.type is EdgeType.precondition and e.source in writers and e.target in writers}
    for before in sorted(writers):
        states = [s.lower().strip(" .") for s in manifest.tool(before).postconditions]
        for after in sorted(writers - {before}):
            needs = " ".join(manifest.tool(after).preconditions).lower()
            if any(len(state.split()) >= 3 and state in needs for state in states):
                pairs.add((before, after))
    return frozenset(pairs)


class ChainSampler:
    def __init__(self, manifest: DomainManifest, document: ToolGraphDocument, world: World, seed: int) -> None:
        self.manifest = manifest
        self.world = world
        self.chainable = sorted(t.name for t in manifest.tools if t.reads or t.writes)
        chainable = set(self.chainable)
        self.feeds: dict[tuple[str, str], list[str]] = {}
        for edge in document.edges:
            if edge.type is EdgeType.data_flow and edge.key and edge.source in chainable and edge.target in chainable:
                params = sorted({f.parameter for f in edge.fields if is_key_name(f.parameter, manifest)})
                if params:
                    self.feeds[(edge.source, edge.target)] = params
        self.predecessors: dict[str, list[str]] = {}
        # Identification opens every task that acts for someone (persona.identify): never a chain step.
        identifying = {path.tool for p in manifest.principals for path in p.identify}
        for source, target in sorted(self.feeds):
            if source not in identifying:
                self.predecessors.setdefault(target, []).append(source)
        writers = sorted(t.name for t in manifest.tools if t.writes and t.name in chainable)
        random.Random(f"end-tools:{seed}").shuffle(writers)
        self.writers = writers
        self.follows = _next_steps(manifest, document, set(writers))

    def end_tool(self, index: int, offset: int = 0) -> str:
        return self.writers[(index + offset) % len(self.writers)]

    def _specificity(self, param: str) -> tuple[int, int]:
        table = self.world.key_table(param)
        if table is None or not self.world.rows.get(table):
            return (1, 0)
        return (0, -len(self.manifest.table(table).foreign_keys))

    def _weight(self, source: str, target: str) -> float:
        """Look-ups before actions, and feeds of the target's own entity id over context ids."""
        weight = 1.0 if self.manifest.tool(source).writes else 3.0
        spec = self.manifest.tool(target)
        keys = [p for p in spec.input_schema.get("required", []) if is_key_name(p, self.manifest)]
        if keys and min(keys, key=self._specificity) in self.feeds[(source, target)]:
            weight *= 3.0
        return weight

    def _finds(self, source: str, target: str) -> bool:
        """``source`` gives ``target`` an id it did not need itself, the way a person's agent would
        get it: a write that makes it (book, then pay), or a read of that id's own table (the rooms
        of a home, to move a device into one). Not a read that passes its own input on (the
        automations of a home, then the rooms of that same home), nor one that only mentions the id
        (a device found through a scene's actions, a home through one of its scenes)."""
        tool = self.manifest.tool(source)
        needs = set(tool.input_schema.get("required", []))
        return any(param not in needs and (tool.writes or is_lookup(tool, self.world.key_table(param), self.manifest))
                   for param in self.feeds[(source, target)])

    def sample(self, end: str, length: int, rng: random.Random, kind: str | None = None) -> ChainPlan:
        """A chain ending in ``end``; given the persona's ``kind``, only of steps such a person may
        take (a member's errand does not go through a moderator's tool)."""
        theirs = others_tools(self.manifest, kind)
        tools = [end]
        while len(tools) < length:
            options = [p for p in self.predecessors.get(tools[0], [])
                       if p not in tools and p not in theirs and self._finds(p, tools[0])]
            if not options:
                break
            tools.insert(0, rng.choices(options, weights=[self._weight(p, tools[0]) for p in options])[0])
        links = [LinkSpec(tool=self.manifest.tool(name)) for name in tools]
        for position in range(1, len(tools)):
            fed = set(self.feeds[(tools[position - 1], tools[position])])
            links[position].feeds = fed
            links[position - 1].next_params = fed
        # The anchor is what the user's request is about. When the end tool acts on something an
        # earlier writing call creates (borrow -> return), the anchor is that earlier call's subject.
        anchor = len(tools) - 1
        while anchor > 0 and self.manifest.tool(tools[anchor - 1]).writes:
            anchor -= 1
        subject, table = self.subject(tools[anchor], links[anchor].feeds)
        return ChainPlan(tools=tools, links=links, subject=subject, anchor_table=table, anchor_link=anchor)

    def subject(self, tool: str, fed: set[str] | frozenset[str] = frozenset()) -> tuple[str | None, str | None]:
        """The parameter naming the most specific entity a call needs (a firmware update over the
        acting user), a fed id on ties, and the table of that entity when it has rows."""
        spec = self.manifest.tool(tool)
        properties = list(spec.input_schema.get("properties", {}))
        required = [p for p in properties if p in spec.input_schema.get("required", [])]
        keyed = sorted((p for p in required if is_key_name(p, self.manifest) or p in fed),
                       key=lambda p: (self._specificity(p), p not in fed, properties.index(p)))
        subject = keyed[0] if keyed else None
        table = self.world.key_table(subject) if subject else None
        if table is not None and not self.world.rows.get(table):
            table = None
        return subject, table

    def from_steps(self, steps: list[ChainStep]) -> ChainPlan:
        """The plan of a chain an LLM wrote as code: its literals pinned, its references fed."""
        tools = [step.tool for step in steps]
        links = [LinkSpec(tool=self.manifest.tool(step.tool), pinned=dict(step.literals),
                          feeds=set(step.references), references=dict(step.references)) for step in steps]
        anchor = len(tools) - 1
        while anchor > 0 and self.manifest.tool(tools[anchor - 1]).writes:
            anchor -= 1
        subject, table = self.subject(tools[anchor], links[anchor].feeds)
        return ChainPlan(tools=tools, links=links, subject=subject, anchor_table=table, anchor_link=anchor)

    def story_ends(self, index: int, taken: set[str], chains: int, tables: frozenset[str],
                   kind: str | None = None) -> list[str]:
        """End tools for chain ``chains + 1``, round the permutation from a start of their own: writers
        not used yet whose subject lives in one of the story's ``tables`` (a refund of the order
        the task is about, a review of the order it placed) and that a principal of ``kind`` (the
        persona's) may take at all: a patient's next errand is never a clinician's prescription."""
        start = index + chains * (len(self.writers) // 2 + 1)
        ordered = [self.writers[(start + step) % len(self.writers)] for step in range(len(self.writers))]
        # The step a done errand makes possible comes first (paid, so now the label; delivered, so
        # now complete it): the same order moving on through its states is what a person asks next.
        ordered.sort(key=lambda writer: not any((done, writer) in self.follows for done in taken))
        out = []
        for writer in ordered:
            param, _ = self.subject(writer)
            acting = self.manifest.tool(writer).acting
            allowed = kind is None or acting is None or kind in acting.kinds
            if writer not in taken and allowed and param is not None and self.world.key_table(param) in tables:
                out.append(writer)
        return out
