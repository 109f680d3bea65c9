"""Conformance: observed reads and writes against the manifest's declarations."""

from __future__ import annotations

from pathlib import Path

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.procedural.report import CaseRecord
from scaleenv_mcp.procedural.validate import check_conformance

EXPRESS = Path(__file__).resolve().parents[3] / "domains" / "express_logistics"


def _record(tool: str, reads: list[str], writes: list[str]) -> CaseRecord:
    return CaseRecord(name="c", tool=tool, kind="success", reads=reads, writes=writes)


def test_foreign_key_lookups_of_a_written_table_are_sqlites_not_the_tools():
    manifest = load_domain(EXPRESS).manifest
    tool = manifest.tool("create_rate_quote")
    assert "rate_quotes" in tool.writes and "shipments" not in tool.reads
    # shipments.quote_id references rate_quotes: inserting a quote makes SQLite look shipments up
    excused = _record(tool.name, [*tool.reads, "shipments"], list(tool.writes))
    assert check_conformance(manifest, [excused]) == []
    # a table that references nothing the tool writes is still the tool's own undeclared read
    stray = next(t.name for t in manifest.tables if t.name not in {*tool.reads, *tool.writes}
                 and not any(k.table in tool.writes for k in t.foreign_keys))
    findings = check_conformance(manifest, [_record(tool.name, [*tool.reads, stray], list(tool.writes))])
    assert [f.reason for f in findings] == [f"reads {[stray]} not declared in reads"]
