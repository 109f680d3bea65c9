"""An in-process, read-only view of a start state's rows, indexed by keys, for picking entities.

Synthesis must choose values that belong together (a device and a user who is a member of
that device's home). The episode database lives in a worker, so this view is built from
the seed plus the task's row operations, and walks foreign keys both ways to collect the
neighbourhood of an anchor row. Everything is ordered (tables in manifest order, rows in
key order) so choices never depend on dict or set iteration order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.state.model import RowOp, apply_row_ops

__all__ = ["Neighborhood", "World"]


def _sort_key(value: Any) -> tuple[int, Any]:
    return (0, value) if isinstance(value, int | float) else (1, str(value))


@dataclass
class Neighborhood:
    """Rows near an anchor (distance 0 = the anchor) and their values by column name, nearest first."""

    rows: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)
    values: dict[str, list[Any]] = field(default_factory=dict)

    def add(self, distance: int, table: str, row: dict[str, Any]) -> None:
        self.rows.append((distance, table, row))
        for column, value in row.items():
            if value is None:
                continue
            seen = self.values.setdefault(column, [])
            if value not in seen:
                seen.append(value)

    def rows_of(self, table: str) -> list[dict[str, Any]]:
        return [row for _, t, row in self.rows if t == table]


class World:
    """Rows per table with primary-key and foreign-key indexes."""

    def __init__(self, manifest: DomainManifest, rows: dict[str, list[dict[str, Any]]]) -> None:
        self.manifest = manifest
        self.tables = [t.name for t in manifest.tables]
        self.primary = {t.name: list(t.primary_key) for t in manifest.tables}
        # Rows are never changed in place (``with_ops`` replaces the rows it updates), so they are shared.
        self.rows: dict[str, list[dict[str, Any]]] = {}
        for table in self.tables:
            key = self.primary[table]
            self.rows[table] = sorted(rows.get(table, []), key=lambda r: tuple(_sort_key(r.get(k)) for k in key))
        self.links = [(t.name, tuple(fk.columns), fk.table, tuple(fk.references))
                      for t in manifest.tables for fk in t.foreign_keys]
        self._index()

    def _index(self) -> None:
        self.by_key: dict[str, dict[tuple, dict[str, Any]]] = {
            t: {tuple(r.get(k) for k in self.primary[t]): r for r in self.rows[t]} for t in self.tables}
        self.by_ref: dict[tuple[str, tuple[str, ...]], dict[tuple, list[dict[str, Any]]]] = {}
        for child, columns, _, _ in self.links:
            index: dict[tuple, list[dict[str, Any]]] = {}
            for row in self.rows[child]:
                index.setdefault(tuple(row.get(c) for c in columns), []).append(row)
            self.by_ref[(child, columns)] = index

    def with_ops(self, ops: list[RowOp]) -> World:
        """A copy with row operations applied (what an episode of that setup starts from)."""
        return World(self.manifest, apply_row_ops(self.rows, ops)) if ops else self

    # -- lookups ----------------------------------------------------------------------------
    def key_table(self, name: str) -> str | None:
        """The table a parameter of this name identifies: its single-column primary key, else a foreign key."""
        for table in self.tables:
            if self.primary[table] == [name]:
                return table
        for _, columns, parent, _ in self.links:
            if columns == (name,):
                return parent
        return None

    def row(self, table: str, key: Any) -> dict[str, Any] | None:
        return self.by_key[table].get(key if isinstance(key, tuple) else (key,))

    def key_of(self, table: str, row: dict[str, Any]) -> Any:
        values = tuple(row.get(k) for k in self.primary[table])
        return values[0] if len(values) == 1 else values

    def tables_with(self, column: str) -> list[str]:
        return [t for t in self.tables if self.rows[t] and column in self.rows[t][0]]

    def cooccurring(self, column: str, given: dict[str, Any], limit: int = 8) -> list[Any]:
        """Values of ``column`` in rows that also hold one of the ``given`` column values (link rows).

        Ties an acting user to a home it is a member of: memberships rows with user_id = U
        give the home_ids U belongs to. Given columns are tried in order; values deduplicated.
        """
        found: list[Any] = []
        for name, value in given.items():
            if name == column:
                continue
            for table in self.tables_with(column):
                if name not in self.rows[table][0]:
                    continue
                for row in self.rows[table]:
                    if row.get(name) == value and row.get(column) is not None and row[column] not in found:
                        found.append(row[column])
                        if len(found) >= limit:
                            return found
        return found

    def column_values(self, table: str, column: str) -> list[Any]:
        """Distinct non-null values of a column, sorted."""
        return sorted({r[column] for r in self.rows[table] if r.get(column) is not None}, key=_sort_key)

    def neighborhood(self, anchors: list[tuple[str, dict[str, Any]]], depth: int = 3, cap: int = 20) -> Neighborhood:
        """Rows reachable from the anchors over foreign keys (to parents and to children), breadth first."""
        near = Neighborhood()
        seen: set[tuple[str, tuple]] = set()
        frontier: list[tuple[str, dict[str, Any]]] = []
        for table, row in anchors:
            ident = (table, tuple(row.get(k) for k in self.primary[table]))
            if ident not in seen:
                seen.add(ident)
                near.add(0, table, row)
                frontier.append((table, row))
        for distance in range(1, depth + 1):
            following: list[tuple[str, dict[str, Any]]] = []
            for table, row in frontier:
                for child, columns, parent, refs in self.links:
                    found: list[dict[str, Any]] = []
                    if child == table:
                        target = self.by_key[parent].get(tuple(row.get(c) for c in columns)) if list(refs) == self.primary[parent] else None
                        found = [target] if target else []
                        hop = parent
                    elif parent == table:
                        found = self.by_ref[(child, columns)].get(tuple(row.get(r) for r in refs), [])[:cap]
                        hop = child
                    else:
                        continue
                    for other in found:
                        ident = (hop, tuple(other.get(k) for k in self.primary[hop]))
                        if ident not in seen:
                            seen.add(ident)
                            near.add(distance, hop, other)
                            following.append((hop, other))
            frontier = following
        return near
