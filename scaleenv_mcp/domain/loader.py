"""Load a domain package from its folder and check it is whole, or refuse it precisely.

The loader never executes ``tools.py`` (that happens only in worker processes, after the
static policy: see ``tool_loader``). It checks that the manifest parses, that
``schema.sql`` agrees with the manifest's tables, that ``seed.json`` loads into it, and that
tools.py defines every declared tool with a signature matching its input schema. A package
with any error raises ``DomainError(file, field, reason)``: never half a domain.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scaleenv_mcp.domain.manifest import DomainManifest, TableSpec
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.errors import DomainError

__all__ = ["PACKAGE_FILES", "DomainPackage", "load_domain", "package_hash"]

PACKAGE_FILES = ("domain.json", "schema.sql", "seed.json", "tools.py", "tests.json", "graph.json", "tasks.jsonl")
REQUIRED_FILES = ("domain.json", "schema.sql", "seed.json", "tools.py")


def package_hash(path: Path) -> str:
    """SHA-256 over the package files that define behaviour and data (not derived graph/tasks)."""
    digest = hashlib.sha256()
    for name in ("domain.json", "schema.sql", "seed.json", "tools.py", "tests.json"):
        file = path / name
        if file.exists():
            digest.update(name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


class DomainPackage:
    """A loaded, checked domain package. Immutable by convention; reload to pick up edits."""

    def __init__(self, path: Path, manifest: DomainManifest, schema_sql: str, seed: dict[str, list[dict[str, Any]]],
                 tools_source: str, content_hash: str) -> None:
        self.path = path
        self.manifest = manifest
        self.schema_sql = schema_sql
        self.seed = seed
        self.tools_source = tools_source
        self.content_hash = content_hash

    @property
    def slug(self) -> str:
        return self.manifest.slug

    @cached_property
    def tasks(self) -> dict[str, Task]:
        """Tasks of ``tasks.jsonl`` by id (empty when the package has none yet)."""
        file = self.path / "tasks.jsonl"
        return {task.id: task for task in load_tasks(file)} if file.exists() else {}

    def row_count(self) -> int:
        return sum(len(rows) for rows in self.seed.values())


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise DomainError(path.name, f"not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from exc


def load_domain(path: str | Path) -> DomainPackage:
    """Load and check the package at ``path``.

    Raises:
        DomainError: naming the file, the field and the reason of the first problem found.
    """
    path = Path(path).resolve()
    if not path.is_dir():
        raise DomainError(str(path), "not a directory")
    for name in REQUIRED_FILES:
        if not (path / name).is_file():
            raise DomainError(name, "missing from the package")
    try:
        manifest = DomainManifest.model_validate(_read_json(path / "domain.json"))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise DomainError("domain.json", err["msg"], field=".".join(str(p) for p in err["loc"])) from exc
    if manifest.slug != path.name:
        raise DomainError("domain.json", f"slug {manifest.slug!r} differs from the folder name {path.name!r}", "slug")
    schema_sql = (path / "schema.sql").read_text()
    check_schema(manifest, schema_sql)
    seed = _read_json(path / "seed.json")
    check_seed(manifest, schema_sql, seed)
    tools_source = (path / "tools.py").read_text()
    check_tool_signatures(manifest, tools_source)
    return DomainPackage(path, manifest, schema_sql, seed, tools_source, package_hash(path))


def _schema_db(schema_sql: str) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(schema_sql)
    except sqlite3.Error as exc:
        raise DomainError("schema.sql", f"does not execute: {exc}") from exc
    return conn


def check_schema(manifest: DomainManifest, schema_sql: str) -> None:
    """Require schema.sql's tables to match the manifest's: names, columns, types, keys, STRICT."""
    conn = _schema_db(schema_sql)
    actual = {name: strict for (name, strict) in conn.execute(
        "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%'"
    )}
    declared = {t.name for t in manifest.tables}
    if set(actual) != declared:
        raise DomainError("schema.sql", f"tables {sorted(actual)} differ from domain.json tables {sorted(declared)}")
    for table in manifest.tables:
        field = f"tables.{table.name}"
        if not actual[table.name]:
            raise DomainError("schema.sql", "table must be declared STRICT", field)
        _check_columns(conn, table, field)
        _check_foreign_keys(conn, table, field)


def _check_columns(conn: sqlite3.Connection, table: TableSpec, field: str) -> None:
    info = conn.execute(f'PRAGMA table_info("{table.name}")').fetchall()
    names = [row[1] for row in info]
    if names != [c.name for c in table.columns]:
        raise DomainError("schema.sql", f"columns {names} differ from domain.json {[c.name for c in table.columns]}", field)
    for row, column in zip(info, table.columns):
        declared_type, notnull, pk = (row[2] or "").upper(), bool(row[3]), row[5]
        if declared_type != column.type:
            raise DomainError("schema.sql", f"type {declared_type} differs from domain.json {column.type}",
                              f"{field}.{column.name}")
        if not pk and notnull == column.nullable:
            raise DomainError("schema.sql", "NOT NULL disagrees with domain.json nullable", f"{field}.{column.name}")
    pk = [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]
    if pk != table.primary_key:
        raise DomainError("schema.sql", f"primary key {pk} differs from domain.json {table.primary_key}", field)


def _check_foreign_keys(conn: sqlite3.Connection, table: TableSpec, field: str) -> None:
    groups: dict[int, tuple[str, list[str], list[str]]] = {}
    for row in conn.execute(f'PRAGMA foreign_key_list("{table.name}")').fetchall():
        fk_id, target, source_col, target_col = row[0], row[2], row[3], row[4]
        entry = groups.setdefault(fk_id, (target, [], []))
        entry[1].append(source_col)
        entry[2].append(target_col)
    actual = sorted((t, tuple(s), tuple(d)) for t, s, d in groups.values())
    declared = sorted((fk.table, tuple(fk.columns), tuple(fk.references)) for fk in table.foreign_keys)
    if actual != declared:
        raise DomainError("schema.sql", f"foreign keys {actual} differ from domain.json {declared}", field)


def check_seed(manifest: DomainManifest, schema_sql: str, seed: Any) -> None:
    """Require seed.json to be {table: [rows]} that loads with every key and CHECK constraint holding."""
    from scaleenv_mcp.state.start_states import build_start_state

    if not isinstance(seed, dict) or not all(isinstance(v, list) for v in seed.values()):
        raise DomainError("seed.json", "must be an object mapping table names to lists of rows")
    tables = {t.name: t for t in manifest.tables}
    for name, rows in seed.items():
        if name not in tables:
            raise DomainError("seed.json", "unknown table", name)
        columns = {c.name for c in tables[name].columns}
        for index, row in enumerate(rows):
            if not isinstance(row, dict):
                raise DomainError("seed.json", "row is not an object", f"{name}[{index}]")
            extra = set(row) - columns
            if extra:
                raise DomainError("seed.json", f"unknown columns {sorted(extra)}", f"{name}[{index}]")
    build_start_state(schema_sql, seed)


def check_tool_signatures(manifest: DomainManifest, source: str) -> None:
    """Every declared tool is a top-level ``def name(ctx, ...)`` whose parameters match its input schema."""
    from scaleenv_mcp.domain.tool_loader import ToolLoadError, parse_tools, tool_signature

    try:
        tree = parse_tools(source)
    except ToolLoadError as error:
        raise DomainError("tools.py", error.reason) from error
    for tool in manifest.tools:
        try:
            signature = tool_signature(tree, tool.name)
        except ToolLoadError as error:
            raise DomainError("tools.py", error.reason, tool.name) from error
        params = {p.name for p in signature.params}
        required = {p.name for p in signature.params if p.required}
        schema_props = set(tool.input_schema.get("properties", {}))
        schema_required = set(tool.input_schema.get("required", []))
        if params != schema_props:
            raise DomainError("tools.py", f"parameters {sorted(params)} differ from input_schema {sorted(schema_props)}",
                              tool.name)
        if required != schema_required:
            raise DomainError("tools.py", f"required parameters {sorted(required)} differ from input_schema required "
                              f"{sorted(schema_required)}", tool.name)
