"""The tool dependency graph of a domain (paper phase 1, step 6): which tool can feed which.

Edges are typed: ``data_flow`` (an output field, nested ones included, has the name and a
compatible JSON type of another tool's input parameter; the field mapping is recorded),
``state`` (the target reads a table the source writes: manifest, plus the tables validation
saw each tool touch when given, e.g. ``scaleenv graph D --observed`` with a ``scaleenv
validate --json`` report; validation refuses a tool that touches an undeclared table, so
for a served domain they confirm the manifest's edges rather than add new ones), ``precondition`` / ``postcondition`` (a tool named in the declared conditions).
Task synthesis walks the ``data_flow`` edges over ids (``key``); the picture and the
statistics are for people. The saved document is deterministic: sorted nodes and edges,
no timestamps, so ``graph.json`` only changes when the domain does. Drawing lives in
``graph_render``; this module never imports the verifier's replay or an LLM client.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from pathlib import Path
from typing import Any

import networkx as nx
from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec

__all__ = [
    "EdgeType", "FieldMapping", "GraphEdge", "GraphNode", "GraphStats", "ToolGraphDocument", "build_graph",
    "build_tool_graph", "is_key_name", "json_types", "output_leaves", "write_graph",
]

LONGEST_PATH_BUDGET = 50_000  # DFS steps; the graph has cycles, so the exact search is bounded


class EdgeType(str, Enum):
    data_flow = "data_flow"
    state = "state"
    precondition = "precondition"
    postcondition = "postcondition"


class FieldMapping(BaseModel):
    output: str = Field(description="Output field of the source tool, e.g. items[].book_id.")
    parameter: str = Field(description="Input parameter of the target tool it can fill.")


class GraphEdge(BaseModel):
    source: str
    target: str
    type: EdgeType
    fields: list[FieldMapping] = Field(default_factory=list, description="data_flow: output field -> parameter.")
    key: bool = Field(default=False, description="data_flow: at least one mapped field is an id (a key).")
    tables: list[str] = Field(default_factory=list, description="state: tables the source writes and the target reads.")
    text: str | None = Field(default=None, description="pre/postcondition: the declared sentence naming the tool.")


class GraphNode(BaseModel):
    name: str
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)
    writing: bool = Field(description="True when the tool changes state.")


class GraphStats(BaseModel):
    nodes: int
    edges: int = Field(description="Typed edges in all.")
    edges_by_type: dict[str, int]
    density: float = Field(description="Density of the simple directed graph (any edge type).")
    weak_components: int
    longest_data_flow_length: int = Field(description="Tools on the longest simple path over id data-flow edges.")
    longest_data_flow_path: list[str]
    longest_path_exact: bool = Field(description="True when the path is known to be longest: the search was "
                                     "exhaustive or the path reached the upper bound.")
    longest_path_upper_bound: int = Field(default=0, description="No simple id data-flow path has more tools: the "
                                          "heaviest path through the strongly connected components.")


class ToolGraphDocument(BaseModel):
    domain: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    stats: GraphStats

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def json_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a schema admits, with integer folded into number and null dropped."""
    declared = schema.get("type")
    if declared is None and "enum" in schema:
        declared = sorted({type(v).__name__ for v in schema["enum"]})
    names = [declared] if isinstance(declared, str) else list(declared or [])
    mapped = {"integer": "number", "int": "number", "float": "number", "str": "string", "bool": "boolean"}
    return {mapped.get(n, n) for n in names if n not in ("null", "NoneType")}


def output_leaves(schema: dict[str, Any], prefix: str = "") -> list[tuple[str, str, dict[str, Any]]]:
    """(path, leaf name, leaf schema) of every scalar or scalar-array field of an output schema."""
    leaves: list[tuple[str, str, dict[str, Any]]] = []
    for name, sub in sorted((schema.get("properties") or {}).items()):
        path = f"{prefix}.{name}" if prefix else name
        kinds = json_types(sub)
        if "object" in kinds and sub.get("properties"):
            leaves.extend(output_leaves(sub, path))
        elif "array" in kinds and isinstance(sub.get("items"), dict) and "object" in json_types(sub["items"]):
            leaves.extend(output_leaves(sub["items"], path + "[]"))
        else:
            leaves.append((path, name, sub))
    return leaves


def is_key_name(name: str, manifest: DomainManifest) -> bool:
    """Ids: *_id / *_ids parameters and primary- or foreign-key columns of the manifest."""
    if name.endswith("_id") or name.endswith("_ids") or name == "id":
        return True
    for table in manifest.tables:
        if name in table.primary_key and table.column(name).type == "TEXT":
            return True
        if any(name in fk.columns for fk in table.foreign_keys):
            return True
    return False


def _data_flow(source: ToolSpec, target: ToolSpec, manifest: DomainManifest) -> list[FieldMapping]:
    params = target.input_schema.get("properties") or {}
    mappings = []
    for path, name, leaf in output_leaves(source.output_schema):
        if name in params and json_types(leaf) & json_types(params[name]):
            mappings.append(FieldMapping(output=path, parameter=name))
    return mappings


def build_tool_graph(manifest: DomainManifest, observed: dict[str, dict[str, list[str]]] | None = None) -> nx.MultiDiGraph:
    """The typed multigraph (edge key = edge type). ``observed``: tool -> {"reads", "writes"} seen in validation."""
    graph = nx.MultiDiGraph(domain=manifest.slug)
    tools = sorted(manifest.tools, key=lambda t: t.name)
    access = {t.name: (set(t.reads), set(t.writes)) for t in tools}
    for name, seen in (observed or {}).items():
        if name in access:
            access[name][0].update(seen.get("reads", []))
            access[name][1].update(seen.get("writes", []))
    for tool in tools:
        reads, writes = access[tool.name]
        graph.add_node(tool.name, reads=sorted(reads), writes=sorted(writes), writing=bool(writes))
    names = [t.name for t in tools]
    mention = {n: re.compile(rf"\b{re.escape(n)}\b") for n in names}
    for source in tools:
        for target in tools:
            if source.name == target.name:
                continue
            fields = _data_flow(source, target, manifest)
            if fields:
                key = any(is_key_name(f.parameter, manifest) for f in fields)
                graph.add_edge(source.name, target.name, key=EdgeType.data_flow.value, fields=fields, is_key=key)
            shared = sorted(access[source.name][1] & (access[target.name][0] | access[target.name][1]))
            if shared:
                graph.add_edge(source.name, target.name, key=EdgeType.state.value, tables=shared)
        for sentence in source.preconditions:
            for other in names:
                if other != source.name and mention[other].search(sentence):
                    graph.add_edge(other, source.name, key=EdgeType.precondition.value, text=sentence)
        for sentence in source.postconditions:
            for other in names:
                if other != source.name and mention[other].search(sentence):
                    graph.add_edge(source.name, other, key=EdgeType.postcondition.value, text=sentence)
    return graph


def key_flow_graph(graph: nx.MultiDiGraph) -> nx.DiGraph:
    """The simple graph of data-flow edges that carry an id: what seed chains walk."""
    flow = nx.DiGraph()
    flow.add_nodes_from(sorted(graph.nodes))
    for source, target, kind, data in graph.edges(keys=True, data=True):
        if kind == EdgeType.data_flow.value and data.get("is_key"):
            flow.add_edge(source, target)
    return flow


def path_upper_bound(graph: nx.DiGraph) -> int:
    """No simple path has more tools than this: the heaviest path through the DAG of strongly
    connected components, each weighing its size (a path visits a component at most once)."""
    if not graph.number_of_nodes():
        return 0
    dag = nx.condensation(graph)
    heaviest: dict[int, int] = {}
    for component in reversed(list(nx.topological_sort(dag))):
        size = len(dag.nodes[component]["members"])
        heaviest[component] = size + max((heaviest[s] for s in dag.successors(component)), default=0)
    return max(heaviest.values())


def longest_simple_path(graph: nx.DiGraph, budget: int = LONGEST_PATH_BUDGET) -> tuple[list[str], bool]:
    """Longest simple path by depth-first search, stopped after ``budget`` steps or at the upper bound.

    Two searches share the budget: successors fewest-onward-options first (Warnsdorff's rule,
    names breaking ties; it finds the Hamiltonian-like paths of dense tool graphs at once),
    then successors in name order; the longer path wins. Deterministic. Returns the path and
    whether it is known to be longest (a search was exhaustive, or the path reached
    ``path_upper_bound``).
    """
    bound = path_upper_bound(graph)
    successors = {n: sorted(graph.successors(n)) for n in graph.nodes}

    def fewest_onward(node: str, on_path: set[str]) -> list[str]:
        free = [s for s in successors[node] if s not in on_path]
        return sorted(free, key=lambda s: (sum(1 for t in successors[s] if t not in on_path), s))

    def by_name(node: str, on_path: set[str]) -> list[str]:
        return successors[node]

    best: list[str] = []
    for order, starts in ((fewest_onward, sorted(graph.nodes, key=lambda n: (graph.in_degree(n), n))),
                          (by_name, sorted(graph.nodes))):
        path, exhausted = _depth_first(starts, order, budget // 2, bound)
        best = path if len(path) > len(best) else best
        if exhausted or len(best) == bound:
            return best, True
    return best, False


def _depth_first(starts: list[str], order: Any, budget: int, bound: int) -> tuple[list[str], bool]:
    """The longest path one search order finds within ``budget`` steps, and whether it finished."""
    best: list[str] = []
    steps = 0
    for start in starts:
        path = [start]
        on_path = {start}
        stack: list[tuple[list[str], int]] = [(order(start, on_path), 0)]
        while stack:
            steps += 1
            if len(path) > len(best):
                best = list(path)
                if len(best) == bound:
                    return best, True
            if steps > budget:
                return best, False
            nexts, index = stack[-1]
            while index < len(nexts) and nexts[index] in on_path:
                index += 1
            if index >= len(nexts):
                stack.pop()
                on_path.discard(path.pop())
                continue
            stack[-1] = (nexts, index + 1)
            path.append(nexts[index])
            on_path.add(nexts[index])
            stack.append((order(nexts[index], on_path), 0))
    return best, True


def build_graph(manifest: DomainManifest, observed: dict[str, dict[str, list[str]]] | None = None) -> ToolGraphDocument:
    """Build the graph and its document (nodes, sorted edges, statistics)."""
    graph = build_tool_graph(manifest, observed)
    nodes = [GraphNode(name=n, reads=d["reads"], writes=d["writes"], writing=d["writing"])
             for n, d in sorted(graph.nodes(data=True))]
    edges = []
    for source, target, kind, data in graph.edges(keys=True, data=True):
        edges.append(GraphEdge(source=source, target=target, type=EdgeType(kind), fields=data.get("fields", []),
                               key=bool(data.get("is_key")), tables=data.get("tables", []), text=data.get("text")))
    edges.sort(key=lambda e: (e.source, e.target, e.type.value, e.text or ""))
    by_type = {t.value: sum(1 for e in edges if e.type is t) for t in EdgeType}
    simple = nx.DiGraph(graph)
    flow = key_flow_graph(graph)
    path, exact = longest_simple_path(flow)
    stats = GraphStats(
        nodes=graph.number_of_nodes(), edges=len(edges), edges_by_type=by_type,
        density=round(nx.density(simple), 4) if graph.number_of_nodes() > 1 else 0.0,
        weak_components=nx.number_weakly_connected_components(simple) if graph.number_of_nodes() else 0,
        longest_data_flow_length=len(path), longest_data_flow_path=path, longest_path_exact=exact,
        longest_path_upper_bound=path_upper_bound(flow))
    return ToolGraphDocument(domain=manifest.slug, nodes=nodes, edges=edges, stats=stats)


def write_graph(document: ToolGraphDocument, package_dir: Path, name: str = "graph.json") -> Path:
    """Write ``graph.json`` into the package folder (derived data: rebuildable at any time), or
    ``name`` in another folder (``scaleenv graph --out``)."""
    path = package_dir / name
    path.write_text(document.to_json())
    return path
