"""schema.sql from the table drafts, and seed rows checked by loading them into SQLite.

The DDL is rendered from the drafted tables rather than written by the model, so it agrees
with domain.json by construction (the loader refuses any difference in names, types, NOT
NULL, keys or STRICT). What the model does write, the CHECK expressions and the rows, is
checked by SQLite itself: the schema must execute, and every row must insert with its
foreign keys and CHECKs holding. Problems are reported one per row with the table, the
row's key and SQLite's message, because that is what the repair agent needs to fix them;
``build_start_state`` (the core's loader of seeds) is then the final word.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from scaleenv_mcp.errors import DomainError
from scaleenv_mcp.generator.drafts import TableDraft
from scaleenv_mcp.state.start_states import build_start_state

__all__ = ["check_database", "render_schema_sql", "table_order"]

_MAX_PROBLEMS = 40


def table_order(tables: list[TableDraft]) -> list[TableDraft]:
    """Referenced tables before the tables referencing them; name order among equals; cycles kept."""
    remaining = sorted(tables, key=lambda t: t.name)
    ordered: list[TableDraft] = []
    placed: set[str] = set()
    while remaining:
        ready = [t for t in remaining if all(fk.table in placed or fk.table == t.name for fk in t.foreign_keys)]
        chosen = ready[0] if ready else remaining[0]  # a cycle: deferred foreign keys let it load
        ordered.append(chosen)
        placed.add(chosen.name)
        remaining.remove(chosen)
    return ordered


def render_schema_sql(tables: list[TableDraft]) -> str:
    """STRICT tables with NOT NULL, primary and foreign keys and CHECKs, in dependency order."""
    blocks = []
    for table in table_order(tables):
        lines = []
        for column in table.columns:
            not_null = column.name in table.primary_key or not column.nullable
            lines.append(f"    {column.name} {column.type}{' NOT NULL' if not_null else ''}")
        lines.append(f"    PRIMARY KEY ({', '.join(table.primary_key)})")
        for fk in table.foreign_keys:
            lines.append(f"    FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.table} ({', '.join(fk.references)})")
        for check in table.checks:
            lines.append(f"    CHECK ({check})")
        blocks.append(f"CREATE TABLE {table.name} (\n" + ",\n".join(lines) + "\n) STRICT;\n")
    return "\n".join(blocks)


def _key_text(table: TableDraft, index: int, row: dict[str, Any]) -> str:
    key = ", ".join(f"{c}={row.get(c)!r}" for c in table.primary_key)
    return f"{table.name}[{index}] ({key})"


def _row_problems(conn: sqlite3.Connection, table: TableDraft, rows: list[Any]) -> list[str]:
    problems = []
    columns = [c.name for c in table.columns]
    pattern = re.compile(rf"^{table.id_prefix}-\d{{5}}$") if table.id_prefix and len(table.primary_key) == 1 else None
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            problems.append(f"{table.name}[{index}]: not an object")
            continue
        where = _key_text(table, index, row)
        unknown = sorted(set(row) - set(columns))
        if unknown:
            problems.append(f"{where}: unknown columns {unknown} (columns are {columns})")
            continue
        if pattern and not pattern.match(str(row.get(table.primary_key[0]))):
            problems.append(f"{where}: id must look like {table.id_prefix}-00001 (five digits)")
        names = [c for c in columns if c in row]
        try:
            conn.execute(f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                         [row[c] for c in names])
        except (sqlite3.Error, OverflowError) as error:
            problems.append(f"{where}: {error}")
    return problems


def check_database(tables: list[TableDraft], seed: dict[str, list[Any]]) -> list[str]:
    """Every problem of schema plus seed, one line each (at most 40); empty when it loads.

    Rows go in table by table in dependency order with foreign keys enforced at once, so a
    dangling reference names its row; then the core's ``build_start_state`` loads the whole.
    """
    schema_sql = render_schema_sql(tables)
    conn = sqlite3.connect(":memory:")
    try:
        try:
            conn.executescript(schema_sql)
        except sqlite3.Error as error:
            return [f"schema.sql does not execute: {error} (check the CHECK expressions)"]
        conn.execute("PRAGMA foreign_keys = ON")
        problems = [f"seed has rows for unknown table {name!r}" for name in sorted(set(seed) - {t.name for t in tables})]
        for table in table_order(tables):
            problems += _row_problems(conn, table, seed.get(table.name, []))
    finally:
        conn.close()
    if not problems:
        try:
            build_start_state(schema_sql, seed)
        except DomainError as error:
            problems.append(error.reason)
    if len(problems) > _MAX_PROBLEMS:
        problems = problems[:_MAX_PROBLEMS] + [f"... and {len(problems) - _MAX_PROBLEMS} more problems"]
    return problems
