"""The tool dependency graph on the fixture domain: typed edges, field mappings, statistics, drawings."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.generator.graph import (
    EdgeType,
    build_graph,
    build_tool_graph,
    longest_simple_path,
    path_upper_bound,
    write_graph,
)
from scaleenv_mcp.generator.graph_render import layered_layout, render_mermaid, render_svg

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


def _edges(kind: EdgeType) -> dict[tuple[str, str], object]:
    document = build_graph(load_domain(FIXTURE).manifest)
    return {(e.source, e.target): e for e in document.edges if e.type is kind}


def test_data_flow_edges_record_the_field_mapping():
    flow = _edges(EdgeType.data_flow)
    assert [(f.output, f.parameter) for f in flow[("find_books", "borrow_book")].fields] == [("items[].book_id", "book_id")]
    assert [(f.output, f.parameter) for f in flow[("borrow_book", "return_book")].fields] == [("loan_id", "loan_id")]
    assert [(f.output, f.parameter) for f in flow[("get_member", "borrow_book")].fields] == [("member_id", "member_id")]
    assert all(edge.key for edge in flow.values())
    assert ("return_book", "find_books") not in flow  # no output of return_book is an input of find_books


def test_state_and_precondition_edges():
    state = _edges(EdgeType.state)
    assert state[("borrow_book", "return_book")].tables == ["books", "loans"]
    assert state[("return_book", "find_books")].tables == ["books"]
    pre = _edges(EdgeType.precondition)
    assert set(pre) == {("get_member", "borrow_book"), ("find_books", "borrow_book"), ("borrow_book", "return_book")}


def test_tools_without_reads_or_writes_stay_isolated():
    graph = build_tool_graph(load_domain(FIXTURE).manifest)
    assert graph.degree("tally") == 0 and graph.degree("repeat_text") == 0


def test_observed_tables_add_state_edges():
    manifest = load_domain(FIXTURE).manifest
    graph = build_tool_graph(manifest, observed={"get_member": {"reads": ["loans"], "writes": []}})
    assert graph.has_edge("borrow_book", "get_member", key=EdgeType.state.value)


def test_statistics():
    stats = build_graph(load_domain(FIXTURE).manifest).stats
    assert stats.nodes == 6
    assert stats.edges_by_type == {"data_flow": 3, "state": 4, "precondition": 3, "postcondition": 0}
    assert stats.weak_components == 3  # the library, tally, repeat_text
    assert stats.longest_data_flow_path == ["find_books", "borrow_book", "return_book"]
    assert stats.longest_data_flow_length == 3 and stats.longest_path_exact


def test_longest_path_is_bounded_and_deterministic_on_cycles():
    cycle = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    assert longest_simple_path(cycle) == (["a", "b", "c", "d"], True)
    dense = nx.complete_graph(12, create_using=nx.DiGraph)  # a Hamiltonian path reaches the upper bound: exact
    path, exact = longest_simple_path(dense, budget=1000)
    assert exact and len(set(path)) == len(path) == path_upper_bound(dense) == 12
    star = nx.DiGraph([("hub", f"leaf{i:02d}") for i in range(30)] + [(f"leaf{i:02d}", "hub") for i in range(30)])
    path, exact = longest_simple_path(star, budget=20)  # leaf -> hub -> leaf, far under the bound of 31
    assert not exact and len(path) == 3 and path_upper_bound(star) == 31
    assert path == longest_simple_path(star, budget=20)[0]
    assert longest_simple_path(star, budget=10_000) == (path, True)  # exhausted: known to be longest


def test_graph_json_is_deterministic(tmp_path: Path):
    manifest = load_domain(FIXTURE).manifest
    first = write_graph(build_graph(manifest), tmp_path).read_bytes()
    assert build_graph(manifest).to_json().encode() == first
    data = json.loads(first)
    assert data["edges"] == sorted(data["edges"], key=lambda e: (e["source"], e["target"], e["type"], e["text"] or ""))
    assert set(data) == {"domain", "nodes", "edges", "stats"}  # nothing that changes between runs


def test_svg_and_mermaid_drawings():
    document = build_graph(load_domain(FIXTURE).manifest)
    svg = render_svg(document)
    root = ET.fromstring(svg)  # well-formed
    texts = {t.text for t in root.iter("{http://www.w3.org/2000/svg}text")}
    assert {"find_books", "borrow_book", "return_book", "get_member"} <= texts
    assert svg == render_svg(document)
    layers, parent = layered_layout(document)
    assert layers[0][:2] == ["find_books", "get_member"] and parent["return_book"] == "borrow_book"
    mermaid = render_mermaid(document)
    assert mermaid.startswith("flowchart LR")
    assert "find_books -->|book_id| borrow_book" in mermaid and "borrow_book -->|loan_id| return_book" in mermaid


def test_graph_command_writes_graph_json_svg_and_mermaid(tmp_path: Path):
    import shutil

    from typer.testing import CliRunner

    from scaleenv_mcp.cli.app import app

    package = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, package)
    result = CliRunner().invoke(app, ["graph", str(package), "--svg", str(tmp_path / "g.svg"),
                                      "--mermaid", str(tmp_path / "g.mmd"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["stats"]["nodes"] == 6
    assert json.loads((package / "graph.json").read_text()) == json.loads(result.output)
    assert (tmp_path / "g.svg").read_text().startswith("<svg") and "flowchart" in (tmp_path / "g.mmd").read_text()


def test_the_picture_of_a_dense_domain_reads_left_to_right():
    """smart_home: every tool echoes home_id, so each tool's drawn source must be the one that
    finds the id (a read needing least), never a write that merely returns it (#28)."""
    shipped = Path(__file__).resolve().parents[3] / "domains" / "smart_home"
    document = build_graph(load_domain(shipped).manifest)
    layers, parent = layered_layout(document)
    writing = {n.name for n in document.nodes if n.writing}
    assert "acknowledge_alarm_event" not in layers[0] and parent["acknowledge_alarm_event"] == "list_alarm_events"
    assert parent["get_home"] == "find_homes"
    column = {name: i for i, layer in enumerate(layers) for name in layer}
    assert all(column[p] == column[c] - 1 for c, p in parent.items())  # one column back, never a loop
    assert not any(p in writing for p in parent.values())  # smart_home: every id is found by some read
    flows = sum(1 for e in document.edges if e.type.value == "data_flow")
    assert flows == document.stats.edges_by_type["data_flow"] and f"of {flows} drawn" in render_svg(document)
