"""Distractor rows for a task's start state: valid records that force the agent to filter.

A distractor is a clone of a row the task is about, with the next free id of its prefix (so
ids do not give it away), the same label (two orders of the same lamp, two patients named Ana
Ruiz: real look-alikes, never marker suffixes such as "II" or "(old)"), another date a day or
a week away (so a person can still tell them apart, by what they know), the same parents (same
owner, same home) and, when the table has a status-like column, another status. Where a label
must be unique, another real value of that column is taken, one sharing a word when there is. Each clone is inserted into a scratch copy of the seed inside a savepoint:
only rows that satisfy every key, CHECK and UNIQUE constraint are kept, so a task's setup
always loads (the worker's ``build_start_state`` would refuse it otherwise).
"""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.generator.synthesis.values import is_label_column
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.state.model import RowOp
from scaleenv_mcp.state.start_states import insert_rows

__all__ = ["DistractorBuilder"]

_ID = re.compile(r"^([A-Z][A-Z0-9]{1,9})-(\d+)$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_SHIFTS = [-9, -6, -3, -2, -1, 1, 2, 3, 5, 8]


class DistractorBuilder:
    """Builds and checks distractor clones against a scratch database holding the seed."""

    def __init__(self, manifest: DomainManifest, schema_sql: str, seed: dict[str, list[dict[str, Any]]],
                 world: World) -> None:
        self.manifest = manifest
        self.world = world
        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        self.conn.execute("PRAGMA foreign_keys = ON")
        self.conn.executescript(schema_sql)
        self.conn.execute("BEGIN")
        for table, rows in seed.items():
            insert_rows(self.conn, table, rows)
        self.conn.execute("COMMIT")
        self.highest: dict[str, tuple[int, int]] = {}
        for table in manifest.tables:
            if len(table.primary_key) == 1 and table.column(table.primary_key[0]).type == "TEXT":
                for row in world.rows[table.name]:
                    match = _ID.match(str(row.get(table.primary_key[0]) or ""))
                    if match:
                        number, width = int(match.group(2)), len(match.group(2))
                        best = self.highest.get(match.group(1), (0, width))
                        self.highest[match.group(1)] = (max(best[0], number), max(best[1], width))
        fk_columns = {t.name: {c for fk in t.foreign_keys for c in fk.columns} for t in manifest.tables}
        self.fk_columns = fk_columns

    def close(self) -> None:
        self.conn.close()

    def _new_key(self, table: str, row: dict[str, Any], used: dict[str, int]) -> Any | None:
        spec = self.manifest.table(table)
        if len(spec.primary_key) != 1:
            return None
        column = spec.primary_key[0]
        value = row.get(column)
        if spec.column(column).type == "INTEGER":
            top = max([r.get(column) or 0 for r in self.world.rows[table]] + [used.get(f"#{table}", 0)])
            used[f"#{table}"] = top + 1
            return top + 1
        match = _ID.match(str(value or ""))
        if not match:
            used[f"${table}"] = used.get(f"${table}", 0) + 1
            return f"{value}-D{used[f'${table}']}"
        prefix = match.group(1)
        number, width = self.highest.get(prefix, (0, 5))
        used[prefix] = max(used.get(prefix, number), number) + 1
        return f"{prefix}-{used[prefix]:0{width}d}"

    def _variant(self, table: str, column: str, value: str, rng: random.Random) -> str:
        """Another plausible value where the original must not repeat (a UNIQUE label or email)."""
        if "@" in value:
            local, _, host = value.partition("@")
            return f"{local}{rng.randint(2, 98)}@{host}"
        others = sorted({v for v in self.world.column_values(table, column) if isinstance(v, str) and v != value})
        words = set(value.lower().split())
        pool = [v for v in others if words & set(v.lower().split())] or others
        return rng.choice(pool) if pool else value

    @staticmethod
    def _shifted(value: str, rng: random.Random) -> str:
        return (date.fromisoformat(value) + timedelta(days=rng.choice(_SHIFTS))).isoformat()

    def clone(self, table: str, row: dict[str, Any], rng: random.Random, used: dict[str, int]) -> dict[str, Any] | None:
        """A distractor version of ``row``, or None when the table cannot hold one."""
        spec = self.manifest.table(table)
        key = self._new_key(table, row, used)
        if key is None:
            return None
        clone = dict(row)
        clone[spec.primary_key[0]] = key
        fks = self.fk_columns[table]
        dates = [c.name for c in spec.columns if isinstance(clone.get(c.name), str) and _DATE.match(clone[c.name])
                 and c.name not in spec.primary_key and c.name not in fks]
        if dates:
            moved = rng.choice(dates)
            clone[moved] = self._shifted(clone[moved], rng)
        for column in spec.columns:
            value = clone.get(column.name)
            if column.name in spec.primary_key or column.name in fks or not isinstance(value, str):
                continue
            if is_label_column(column.name):
                continue  # the same title, name or label: a real look-alike
            if "status" in column.name or column.name.endswith("state"):
                others = [v for v in self.world.column_values(table, column.name) if v != value]
                if others:
                    clone[column.name] = rng.choice(others)
        return clone

    def _fits(self, table: str, row: dict[str, Any], original: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        """Insert inside the open savepoint; on UNIQUE or CHECK trouble adjust, else give up."""
        for _ in range(3):
            try:
                insert_rows(self.conn, table, [row])
                return row
            except sqlite3.IntegrityError as error:
                message = str(error)
                if "CHECK" in message:  # a status the other columns do not allow: keep the original one
                    reverted = {c: (original[c] if not is_label_column(c) and c in original else v) for c, v in row.items()}
                    reverted.update({k: row[k] for k in self.manifest.table(table).primary_key})
                    if reverted == row:
                        return None
                    row = reverted
                    continue
                if "UNIQUE" not in message:
                    return None
                columns = [part.split(".")[-1].strip() for part in message.split(":", 1)[1].split(",")]
                spec = self.manifest.table(table)
                if any(c in spec.primary_key or c in self.fk_columns[table] for c in columns):
                    return None
                row = dict(row)
                for column in columns:
                    if isinstance(row.get(column), str):
                        row[column] = self._variant(table, column, row[column], rng)
                    elif isinstance(row.get(column), int):
                        row[column] = row[column] + 7919
        return None

    @contextmanager
    def _scratch(self, existing: list[RowOp]) -> Iterator[None]:
        """A savepoint holding the task's rows so far, so new rows are checked next to them; undone after."""
        self.conn.execute("SAVEPOINT scratch")
        try:
            for op in existing:
                if op.op == "insert" and op.row is not None:
                    try:
                        insert_rows(self.conn, op.table, [op.row])
                    except sqlite3.IntegrityError:
                        pass  # the task's episode would refuse it as well; the new rows are checked without it
            yield
        finally:
            self.conn.execute("ROLLBACK TO scratch")
            self.conn.execute("RELEASE scratch")

    def _try_insert(self, table: str, row: dict[str, Any]) -> str | None:
        """Insert ``row`` inside the scratch savepoint; why it does not load, or None when it does (it stays)."""
        self.conn.execute("SAVEPOINT one")
        try:
            insert_rows(self.conn, table, [row])
            return None
        except sqlite3.Error as error:
            self.conn.execute("ROLLBACK TO one")
            return str(error)
        finally:
            self.conn.execute("RELEASE one")

    def check_rows(self, ops: list[RowOp], existing: list[RowOp]) -> tuple[list[RowOp], list[str]]:
        """The rows (written by an LLM) that load next to ``existing`` and the seed, and why the others do not."""
        kept: list[RowOp] = []
        refused: list[str] = []
        tables = {t.name: t for t in self.manifest.tables}
        with self._scratch(existing):
            for op in ops:
                spec = tables.get(op.table)
                unknown = sorted(set(op.row or {}) - {c.name for c in spec.columns}) if spec else []
                if spec is None or unknown:
                    refused.append(f"{op.table}: " + ("no such table" if spec is None else f"no column {unknown[0]}"))
                    continue
                problem = self._try_insert(op.table, op.row or {})
                if problem is None:
                    kept.append(op)
                else:
                    refused.append(f"{op.table}: {problem}")
        return kept, refused

    def variants(self, table: str, row: dict[str, Any], rng: random.Random, used: dict[str, int],
                 existing: list[RowOp], limit: int = 4) -> list[RowOp]:
        """Clones of ``row`` in other states, for patching a start state: each other value of a
        status-like column, and one with the optional columns that record an event emptied (a loan
        not returned yet). Each is checked against the constraints next to ``existing``."""
        spec = self.manifest.table(table)
        fks = self.fk_columns[table]
        changes: list[dict[str, Any]] = []
        for column in spec.columns:
            if column.name in spec.primary_key or column.name in fks:
                continue
            if "status" in column.name or column.name.endswith("state"):
                changes += [{column.name: v} for v in self.world.column_values(table, column.name) if v != row.get(column.name)]
        emptied = {c.name: None for c in spec.columns if c.nullable and row.get(c.name) is not None
                   and c.name not in spec.primary_key and c.name not in fks and not is_label_column(c.name)}
        if emptied:
            changes.append(emptied)
        rng.shuffle(changes)
        ops: list[RowOp] = []
        with self._scratch(existing):
            for change in changes[:limit]:
                key = self._new_key(table, row, used)
                if key is None:
                    break
                clone = {**row, **change, spec.primary_key[0]: key}
                if self._try_insert(table, clone) is None:
                    ops.append(RowOp(op="insert", table=table, row=clone, distractor=True))
        return ops

    def build(self, anchors: list[tuple[str, dict[str, Any]]], per_anchor: int, rng: random.Random,
              with_parents: bool = False, used: dict[str, int] | None = None,
              existing: list[RowOp] | None = None) -> list[RowOp]:
        """Distractor inserts for the anchors (and, if asked, one clone of each anchor's parent rows).

        ``used`` carries the key counters between calls for one task, so rows built by two
        calls (distractors, then state patches) never share an id; ``existing`` are the task's
        rows so far, in place while the new ones are checked against the constraints.
        """
        targets = [(table, row, per_anchor) for table, row in anchors]
        if with_parents:
            for table, row in anchors:
                for child, columns, parent, _refs in self.world.links:
                    if child == table and parent != table:
                        found = self.world.by_key[parent].get(tuple(row.get(c) for c in columns))
                        if found is not None:
                            targets.append((parent, found, 1))
        ops: list[RowOp] = []
        used = {} if used is None else used
        with self._scratch(existing or []):
            for table, row, count in targets:
                for _ in range(count):
                    clone = self.clone(table, row, rng, used)
                    if clone is None:
                        break
                    kept = self._fits(table, clone, row, rng)
                    if kept is not None:
                        ops.append(RowOp(op="insert", table=table, row=kept, distractor=True))
        return ops
