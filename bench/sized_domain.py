"""A throwaway domain package whose seed is about N bytes, for the episode benchmarks."""

from __future__ import annotations

import json
from pathlib import Path

SCHEMA = """CREATE TABLE items (
    item_id TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    amount REAL NOT NULL CHECK (amount >= 0)
) STRICT;
"""

TOOLS = '''from scaleenv_mcp.toolkit import NotFoundError


def get_item(ctx, item_id: str) -> dict:
    row = ctx.db.fetch_one("SELECT item_id, label, amount FROM items WHERE item_id = ?", (item_id,))
    if row is None:
        raise NotFoundError(f"no item {item_id}")
    return row


def update_item(ctx, item_id: str, amount: float) -> dict:
    changed = ctx.db.execute("UPDATE items SET amount = ? WHERE item_id = ?", (amount, item_id))
    if changed == 0:
        raise NotFoundError(f"no item {item_id}")
    return {"item_id": item_id, "amount": amount}
'''


def write_sized_domain(folder: Path, approx_bytes: int) -> Path:
    slug = f"sized_{approx_bytes // 1000}k"
    package = folder / slug
    package.mkdir(parents=True, exist_ok=True)
    rows = max(30, approx_bytes // 120)
    seed = {"items": [{"item_id": f"ITM-{i:07d}", "label": f"item number {i} " + "x" * 80, "amount": i * 0.5}
                      for i in range(1, rows + 1)]}
    obj = lambda props, req: {"type": "object", "properties": props, "required": req, "additionalProperties": False}  # noqa: E731
    manifest = {
        "slug": slug, "title": "Sized", "description": "Benchmark items.", "version": "1", "keywords": [],
        "provenance": {"kind": "generated", "model": "bench", "date": "2026-01-01"}, "clock": "2026-01-01T00:00:00",
        "policy": "None.",
        "tables": [{"name": "items", "primary_key": ["item_id"], "columns": [
            {"name": "item_id", "type": "TEXT", "reward": "exempt"}, {"name": "label", "type": "TEXT", "reward": "semantic"},
            {"name": "amount", "type": "REAL", "reward": "hard"}]}],
        "tools": [
            {"name": "get_item", "description": "Get one item by id.", "reads": ["items"],
             "input_schema": obj({"item_id": {"type": "string"}}, ["item_id"]),
             "output_schema": obj({"item_id": {"type": "string"}, "label": {"type": "string"}, "amount": {"type": "number"}}, ["item_id"]),
             "raises": [{"code": "not_found", "when": "no such item"}]},
            {"name": "update_item", "description": "Set an item's amount.", "reads": ["items"], "writes": ["items"],
             "input_schema": obj({"item_id": {"type": "string"}, "amount": {"type": "number"}}, ["item_id", "amount"]),
             "output_schema": obj({"item_id": {"type": "string"}, "amount": {"type": "number"}}, ["item_id", "amount"]),
             "raises": [{"code": "not_found", "when": "no such item"}]}]}
    (package / "domain.json").write_text(json.dumps(manifest))
    (package / "schema.sql").write_text(SCHEMA)
    (package / "seed.json").write_text(json.dumps(seed))
    (package / "tools.py").write_text(TOOLS)
    return package
