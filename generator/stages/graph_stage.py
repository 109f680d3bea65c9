"""Stage 6: the tool dependency graph: computed edges plus LLM-judged pre-condition edges.

``scaleenv_mcp.generator.graph`` computes data-flow, state and declared-condition edges from the
manifest. What it cannot see is a pre-condition nobody wrote down: "book_appointment needs
a registered pet" when the words never name register_pet. Candidate pairs (a writing tool
whose tables another tool uses, with no declared condition edge between them) are judged by
the model in batches; an accepted edge is written into the target's ``preconditions`` as a
sentence naming the source, so the graph stays derivable from the package alone (graph.json
is rebuildable with ``scaleenv graph``) and agents read the condition too.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.generator.drafts import EdgeJudgement, EdgeJudgements
from scaleenv_mcp.generator.graph import EdgeType, ToolGraphDocument, build_graph, build_tool_graph
from scaleenv_mcp.generator.stages.context import RunContext, StageScope

__all__ = ["GraphResult", "candidate_pairs", "run_graph"]

BATCH = 12


class GraphResult(BaseModel):
    tools: list[ToolSpec] = Field(description="The tools with accepted LLM-judged preconditions added.")
    accepted: list[EdgeJudgement] = Field(default_factory=list)


def candidate_pairs(manifest: DomainManifest) -> list[tuple[str, str, list[str]]]:
    """(source, target, shared tables) where source writes what target uses and no condition edge exists."""
    graph = build_tool_graph(manifest)
    declared = {(s, t) for s, t, kind in graph.edges(keys=True)
                if kind in (EdgeType.precondition.value, EdgeType.postcondition.value)}
    pairs = []
    for source in sorted(manifest.tools, key=lambda t: t.name):
        for target in sorted(manifest.tools, key=lambda t: t.name):
            shared = sorted(set(source.writes) & (set(target.reads) | set(target.writes)))
            if source.name != target.name and shared and (source.name, target.name) not in declared:
                pairs.append((source.name, target.name, shared))
    return pairs


def _with_edges(tools: list[ToolSpec], accepted: list[EdgeJudgement]) -> list[ToolSpec]:
    extra: dict[str, list[str]] = {}
    for edge in accepted:
        reason = edge.reason.strip().rstrip(".") or "it establishes the state this tool needs"
        extra.setdefault(edge.target, []).append(f"{edge.source} has run first ({reason})")
    return [t.model_copy(update={"preconditions": [*t.preconditions, *extra.get(t.name, [])]}) for t in tools]


async def run_graph(run: RunContext, manifest: DomainManifest) -> tuple[DomainManifest, ToolGraphDocument, int]:
    """The manifest with judged preconditions, its graph document, and the number of edges added."""
    pairs = candidate_pairs(manifest)
    compact = [{"name": t.name, "description": t.description, "reads": t.reads, "writes": t.writes,
                "preconditions": t.preconditions} for t in manifest.tools]

    async def compute(scope: StageScope) -> GraphResult:
        accepted: list[EdgeJudgement] = []
        allowed = {(s, t) for s, t, _ in pairs}
        for index in range(0, len(pairs), BATCH):
            batch = [{"source": s, "target": t, "shared_tables": shared} for s, t, shared in pairs[index:index + BATCH]]
            answer = await scope.ask("graph_edges", EdgeJudgements, batch=str(index // BATCH + 1), tools=compact,
                                     pairs=batch)
            accepted += [e for e in answer.edges if e.required and (e.source, e.target) in allowed]
        unique = {(e.source, e.target): e for e in accepted}
        chosen = [unique[k] for k in sorted(unique)]
        return GraphResult(tools=_with_edges(list(manifest.tools), chosen), accepted=chosen)

    result = await run.stage("graph", {"manifest": manifest.model_dump(mode="json")}, GraphResult, compute)
    judged = manifest.model_copy(update={"tools": result.tools})
    return judged, build_graph(judged), len(result.accepted)
