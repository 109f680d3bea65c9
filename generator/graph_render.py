"""Draw a tool graph document: a self-contained SVG and Mermaid text, both deterministic.

There is no graphviz on the machines this runs on, so the layout is our own: columns by
dependency depth (the longest chain of id data-flow and condition edges that leads to a
tool; back edges of cycles dropped in name order), so a tool stands right of everything it
needs. Real domains have hundreds of data-flow edges (an id like home_id feeds most tools),
so the picture draws one source per tool, taken from the column just before it, preferring a
read over a write and the tool that needs the fewest inputs (``find_homes`` feeds ``get_home``,
not ``acknowledge_alarm_event``, which merely echoes the id), plus every declared condition
edge, and state edges only when few. Children sit next to their source, so drawn edges rarely
cross. The legend's counts add up to graph.json's.
"""

from __future__ import annotations

from collections import defaultdict
from xml.sax.saxutils import escape

import networkx as nx

from scaleenv_mcp.generator.graph import EdgeType, GraphEdge, ToolGraphDocument

__all__ = ["layered_layout", "render_mermaid", "render_svg"]

MAX_STATE_EDGES_DRAWN = 120
_COLORS = {"data_flow": "#1f6feb", "precondition": "#d97706", "postcondition": "#7c3aed", "state": "#9ca3af"}
_CHAR_W, _ROW_H, _COL_GAP, _PAD = 7.2, 34, 90, 24
_QUOTE = {"\"": "&quot;"}  # attribute values (data-tool, data-source, data-target: the web view highlights by them)


def _structural(edge: GraphEdge) -> bool:
    return (edge.type is EdgeType.data_flow and edge.key) or edge.type in (EdgeType.precondition, EdgeType.postcondition)


def layered_layout(document: ToolGraphDocument) -> tuple[list[list[str]], dict[str, str]]:
    """Nodes in columns (dependency depth in the structural DAG) and each node's drawn source."""
    dag = nx.DiGraph()
    dag.add_nodes_from(n.name for n in document.nodes)
    for edge in document.edges:
        if _structural(edge) and edge.source != edge.target:
            dag.add_edge(edge.source, edge.target)
    full = dag.copy()  # with its cycles
    # Depth: steps from the entry tools (those that need no other tool's output, judged before
    # cycles are cut, so a tool on a cycle is not mistaken for one); a tool only on cycles counts as one.
    entries = sorted(n for n in full.nodes if full.in_degree(n) == 0) or sorted(full.nodes)[:1]
    depth = dict(nx.multi_source_dijkstra_path_length(full, entries, weight=lambda u, v, d: 1))
    while len(depth) < len(full):
        start = min(n for n in full.nodes if n not in depth)
        base = max(depth.values(), default=-1) + 1
        for node, steps in nx.single_source_shortest_path_length(full, start).items():
            depth.setdefault(node, base + steps)
    dag.remove_edges_from([(u, v) for u, v in list(dag.edges) if depth[u] >= depth[v]])
    writing = {n.name for n in document.nodes if n.writing}
    needs = {n: dag.in_degree(n) for n in dag.nodes}

    def source_rank(name: str) -> tuple[bool, int, str]:
        return (name in writing, needs[name], name)

    parent = {node: min(sources, key=source_rank) for node in dag.nodes
              if (sources := [p for p in dag.predecessors(node) if depth[p] == depth[node] - 1])}
    columns: dict[int, list[str]] = defaultdict(list)
    for node in sorted(depth):
        columns[depth[node]].append(node)
    layers = [columns[d] for d in sorted(columns)]
    position: dict[str, float] = {}
    for index, layer in enumerate(layers):
        def beside_source(name: str) -> tuple[float, float, str]:
            preds = [position[p] for p in dag.predecessors(name) if p in position]
            mean = sum(preds) / len(preds) if preds else float(len(layer))
            return (position.get(parent.get(name, ""), mean), mean, name)

        layer.sort(key=beside_source if index else source_rank)
        for row, name in enumerate(layer):
            position[name] = float(row)
    return layers, parent


def render_svg(document: ToolGraphDocument) -> str:
    """A readable SVG: tools as boxes (writing tools shaded), typed edges as coloured arrows."""
    layers, parent = layered_layout(document)
    writing = {n.name for n in document.nodes if n.writing}
    widths = [max((len(n) for n in layer), default=4) * _CHAR_W + 20 for layer in layers]
    xs, x = [], _PAD
    for width in widths:
        xs.append(x)
        x += width + _COL_GAP
    height = max((len(layer) for layer in layers), default=1) * _ROW_H + 2 * _PAD + 84
    width_total = max(x - _COL_GAP + _PAD, 420)
    boxes: dict[str, tuple[float, float, float]] = {}
    for column, layer in enumerate(layers):
        for row, name in enumerate(layer):
            boxes[name] = (xs[column], _PAD + 54 + row * _ROW_H, widths[column])
    state_edges = [e for e in document.edges if e.type is EdgeType.state]
    draw_state = len(state_edges) <= MAX_STATE_EDGES_DRAWN
    tree = {(p, c) for c, p in parent.items()}

    def drawn(edge: GraphEdge) -> bool:
        if edge.source == edge.target:
            return False
        if edge.type is EdgeType.data_flow:
            return edge.key and (edge.source, edge.target) in tree
        return edge.type is not EdgeType.state or draw_state

    flow_total = sum(1 for e in document.edges if e.type is EdgeType.data_flow)
    flow_ids = sum(1 for e in document.edges if e.type is EdgeType.data_flow and e.key)
    flow_drawn = sum(1 for e in document.edges if e.type is EdgeType.data_flow and drawn(e))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width_total:.0f}" height="{height:.0f}" '
           f'viewBox="0 0 {width_total:.0f} {height:.0f}" font-family="Helvetica, Arial, sans-serif" font-size="12">',
           '<defs>' + "".join(
               f'<marker id="arrow-{k}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
               f'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{c}"/></marker>'
               for k, c in sorted(_COLORS.items())) + '</defs>',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{_PAD}" y="{_PAD}" font-size="15" font-weight="bold">{escape(document.domain)}: tool dependency graph</text>']
    legend = [f"{document.stats.nodes} tools (writing tools shaded), columns by dependency depth; blue: data flow, "
              f"{flow_drawn} of {flow_total} drawn (one source per tool; {flow_total - flow_ids} over non-id fields "
              "and the other id edges are in graph.json)",
              "orange: precondition; purple: postcondition; "
              + ("grey: state" if draw_state else f"state edges not drawn ({len(state_edges)})")
              + f"; longest data-flow path: {document.stats.longest_data_flow_length} tools"]
    for line, text in enumerate(legend):
        out.append(f'<text x="{_PAD}" y="{_PAD + 18 + 14 * line}" fill="#444" font-size="11">{escape(text)}</text>')
    for edge in document.edges:
        if not drawn(edge):
            continue
        sx, sy, sw = boxes[edge.source]
        tx, ty, tw = boxes[edge.target]
        x1, y1 = sx + sw, sy + 11
        x2, y2 = tx, ty + 11
        if tx <= sx:  # same or earlier column: loop around below
            x1, x2 = sx + sw / 2, tx + tw / 2
            y1, y2 = sy + 22, ty + 22
            bend = max(y1, y2) + 30
            d = f"M {x1:.1f} {y1:.1f} C {x1:.1f} {bend:.1f} {x2:.1f} {bend:.1f} {x2:.1f} {y2:.1f}"
        else:
            mid = (x1 + x2) / 2
            d = f"M {x1:.1f} {y1:.1f} C {mid:.1f} {y1:.1f} {mid:.1f} {y2:.1f} {x2:.1f} {y2:.1f}"
        kind = edge.type.value
        dash = ' stroke-dasharray="5 3"' if edge.type is not EdgeType.data_flow else ""
        title = ", ".join(f"{f.output} -> {f.parameter}" for f in edge.fields) or ", ".join(edge.tables) or (edge.text or "")
        out.append(f'<path d="{d}" fill="none" stroke="{_COLORS[kind]}" stroke-width="1.2" opacity="0.75"{dash} '
                   f'data-source="{escape(edge.source, _QUOTE)}" data-target="{escape(edge.target, _QUOTE)}" '
                   f'marker-end="url(#arrow-{kind})"><title>{escape(f"{edge.source} -> {edge.target}: {title}")}</title></path>')
    for name, (bx, by, bw) in sorted(boxes.items()):
        fill = "#e8f0fe" if name in writing else "#f6f8fa"
        out.append(f'<g data-tool="{escape(name, _QUOTE)}"><rect x="{bx:.1f}" y="{by:.1f}" width="{bw:.1f}" height="22" rx="5" fill="{fill}" '
                   f'stroke="#57606a"/><text x="{bx + 10:.1f}" y="{by + 15:.1f}">{escape(name)}</text></g>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def render_mermaid(document: ToolGraphDocument) -> str:
    """Mermaid flowchart text: id data flow labelled with its fields, conditions dotted."""
    lines = ["flowchart LR"]
    for node in document.nodes:
        shape = f'{node.name}["{node.name}"]' if not node.writing else f'{node.name}[["{node.name}"]]'
        lines.append(f"  {shape}")
    state = 0
    for edge in document.edges:
        if edge.type is EdgeType.data_flow and edge.key:
            label = ", ".join(sorted({f.parameter for f in edge.fields}))
            lines.append(f"  {edge.source} -->|{label}| {edge.target}")
        elif edge.type is EdgeType.precondition:
            lines.append(f"  {edge.source} -.->|pre| {edge.target}")
        elif edge.type is EdgeType.postcondition:
            lines.append(f"  {edge.source} -.->|post| {edge.target}")
        elif edge.type is EdgeType.state:
            state += 1
    lines.append(f"  %% {state} state edges and the data-flow edges over non-id fields are in graph.json")
    return "\n".join(lines) + "\n"
