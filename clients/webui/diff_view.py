"""A ``StateDiff`` as tables a person reads: one per table, rows added, removed and changed, the
changed cells holding their value before and after. Used for an episode's diff against its
start, a task's gold diff and a replayed trial's diff. This module must not render HTML.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from scaleenv_mcp.state.diff import StateDiff

__all__ = ["DiffCell", "DiffRow", "DiffTable", "diff_tables"]


class DiffCell(BaseModel):
    value: Any = None
    before: Any = None
    changed: bool = False


class DiffRow(BaseModel):
    kind: str  # added | removed | changed
    cells: list[DiffCell]


class DiffTable(BaseModel):
    name: str
    columns: list[str]
    rows: list[DiffRow]
    added: int
    removed: int
    changed: int


def _columns(rows: list[dict[str, Any]], first: list[str]) -> list[str]:
    seen = list(first)
    for row in rows:
        seen += [c for c in row if c not in seen]
    return seen


def diff_tables(diff: StateDiff) -> list[DiffTable]:
    """One table per changed table, in the diff's order; key columns first."""
    out = []
    for name, table in diff.tables.items():
        if table.is_empty:
            continue
        key_columns = list(table.changed[0].key) if table.changed else []
        changed_rows = [{**c.key, **c.after} for c in table.changed]
        columns = _columns(table.added + table.removed + changed_rows, key_columns)
        rows = [DiffRow(kind="added", cells=[DiffCell(value=r.get(c)) for c in columns]) for r in table.added]
        rows += [DiffRow(kind="removed", cells=[DiffCell(value=r.get(c)) for c in columns]) for r in table.removed]
        for change in table.changed:
            cells = []
            for column in columns:
                if column in change.after:
                    cells.append(DiffCell(value=change.after[column], before=change.before.get(column), changed=True))
                else:
                    cells.append(DiffCell(value=change.key.get(column, "")))
            rows.append(DiffRow(kind="changed", cells=cells))
        out.append(DiffTable(name=name, columns=columns, rows=rows, added=len(table.added), removed=len(table.removed),
                             changed=len(table.changed)))
    return out
