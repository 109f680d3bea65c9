"""Stages 3 and 4: the database schema from the tools, then the database itself, first.

Stage 3 asks for tables (keys, constraints, reward policy per column), the tool -> tables
access map and the domain policy. Stage 4 is "database first" (paper phase 1, step 4): seed
rows are written table by table in dependency order (each table sees the rows it may
reference, free text left out, so that a row referencing two tables names rows that belong
together), in chunks of 40 rows per request, then the whole is loaded into SQLite; every
problem (a CHECK that fails, a dangling key, a wrong type) goes to the repair agent verbatim, for a bounded number of
rounds. Tools are written only against a database that loads.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.generator.drafts import DatabaseDraft, DbRepair, DomainCard, SeedRows, TableDraft, ToolDrafts
from scaleenv_mcp.generator.schema_sql import check_database, render_schema_sql, table_order
from scaleenv_mcp.generator.stages.context import GenerationError, RunContext, StageScope

__all__ = ["DatabaseResult", "run_database", "run_db_schema"]

_REFERENCE_ROWS = 100  # rows of a referenced table shown to the seed writer
SEED_CHUNK = 40  # rows per request


class DatabaseResult(BaseModel):
    """The database that loads: its tables (CHECKs as repaired), seed rows and repair count."""

    draft: DatabaseDraft
    seed: dict[str, list[dict[str, Any]]]
    repair_rounds: int = Field(default=0)

    @property
    def schema_sql(self) -> str:
        return render_schema_sql(self.draft.tables)

    def next_ids(self) -> dict[str, str]:
        """What ``ctx.new_id(prefix)`` returns first, per prefix (the tests need it)."""
        found: dict[str, str] = {}
        for table in self.draft.tables:
            if not table.id_prefix or len(table.primary_key) != 1:
                continue
            numbers = [int(m.group(1)) for row in self.seed.get(table.name, [])
                       if (m := re.match(rf"^{table.id_prefix}-(\d+)$", str(row.get(table.primary_key[0]))))]
            found[table.id_prefix] = f"{table.id_prefix}-{max(numbers, default=0) + 1:05d}"
        return dict(sorted(found.items()))

    def rows_of(self, tables: list[str], limit: int) -> dict[str, list[dict[str, Any]]]:
        return {name: self.seed.get(name, [])[:limit] for name in sorted(set(tables))}


def _compact_tools(tools: ToolDrafts) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "parameters": t.input_schema.get("properties", {}),
             "output": t.output_schema, "raises": [e.model_dump() for e in t.raises],
             "preconditions": t.preconditions, "postconditions": t.postconditions,
             "acting": t.acting.model_dump() if t.acting else None, "permission": t.permission} for t in tools.tools]


def principal_kinds(tools: ToolDrafts) -> set[str]:
    """Every principal kind the tools name: acting kinds, questions' asked_by, intents_by_kind keys."""
    kinds: set[str] = set()
    for tool in tools.tools:
        kinds |= set(tool.acting.kinds) if tool.acting else set()
        kinds |= {k for q in tool.questions for k in q.asked_by} | set(tool.intents_by_kind)
    return kinds


async def run_db_schema(run: RunContext, card: DomainCard, tools: ToolDrafts) -> DatabaseDraft:
    """Stage 3: tables, access map and policy, derived from the tools."""
    count = run.settings.table_count
    names = [t.name for t in tools.tools]

    async def compute(scope: StageScope) -> DatabaseDraft:
        return await scope.ask("db_schema", DatabaseDraft, context={"tools": names, "kinds": principal_kinds(tools)},
                               card=card,
                               tools=_compact_tools(tools), table_count=str(count))

    return await run.stage("database", {"card": card.model_dump(), "tools": tools.model_dump(mode="json"),
                                        "count": count}, DatabaseDraft, compute)


def _brief_rows(table: TableDraft, rows: list[dict[str, Any]]) -> str:
    """Rows as one compact JSON object a line, without free text (semantic columns): keys, references,
    names, statuses, dates and amounts, which is what another row must agree with."""
    keep = [c.name for c in table.columns if c.reward != "semantic"]
    return "\n".join(json.dumps({c: row.get(c) for c in keep}, ensure_ascii=False) for row in rows)


def _references(table: TableDraft, seed: dict[str, list[dict[str, Any]]], tables: dict[str, TableDraft]) -> str:
    """The rows a foreign key may point at, per referenced table (a row about a pet must name that
    pet's owner: the keys alone cannot say which rows belong together)."""
    parts = []
    for fk in table.foreign_keys:
        target = tables[fk.table]
        rows = seed.get(fk.table, [])[:_REFERENCE_ROWS]
        parts.append(f"{fk.table} (for {','.join(fk.columns)} -> {','.join(fk.references)}):\n"
                     + (_brief_rows(target, rows) or "(no rows)"))
    return "\n\n".join(parts) or "none: this table references no other table"


def _tables_named(problems: list[str], tables: dict[str, TableDraft]) -> list[str]:
    named = {m.group(1) for p in problems if (m := re.match(r"^([a-z][a-z0-9_]*)\[", p))}
    return sorted(named & set(tables)) or sorted(tables)


async def _seed_table(scope: StageScope, table: TableDraft, seed: dict[str, list[dict[str, Any]]],
                      tables: dict[str, TableDraft], wanted: int, clock: str) -> list[dict[str, Any]]:
    """Rows of one table, asked ``SEED_CHUNK`` at a time (each reply stays well inside an output
    budget); a reply with fewer rows than asked ends the table."""
    rows: list[dict[str, Any]] = []
    while len(rows) < wanted:
        ask = min(SEED_CHUNK, wanted - len(rows))
        answer = await scope.ask("seed_data", SeedRows, table=table.name, clock=clock, definition=table,
                                 references=_references(table, seed, tables), row_count=str(ask),
                                 existing=_brief_rows(table, rows) if rows else "none yet: start at the first id")
        rows += answer.rows
        if len(answer.rows) < ask:
            break
    return rows


async def run_database(run: RunContext, draft: DatabaseDraft) -> DatabaseResult:
    """Stage 4: seed rows per table, loaded into SQLite and repaired until they load."""
    settings = run.settings

    async def compute(scope: StageScope) -> DatabaseResult:
        tables = {t.name: t for t in draft.tables}
        seed: dict[str, list[dict[str, Any]]] = {}
        for table in table_order(draft.tables):
            seed[table.name] = await _seed_table(scope, table, seed, tables, settings.rows_per_table, settings.clock)
        rounds = 0
        problems = check_database(list(tables.values()), seed)
        while problems:
            if rounds >= settings.db_repair_rounds:
                raise GenerationError(f"the database still does not load after {rounds} repair rounds: "
                                      + "; ".join(problems[:5]))
            rounds += 1
            involved = _tables_named(problems, tables)
            fix = await scope.ask("db_repair", DbRepair, schema_sql=render_schema_sql(list(tables.values())),
                                  problems="\n".join(problems), rows={name: seed.get(name, []) for name in involved})
            for name, checks in sorted(fix.checks.items()):
                if name in tables:
                    tables[name] = tables[name].model_copy(update={"checks": checks})
            for name, rows in sorted(fix.rows.items()):
                if name in tables:
                    seed[name] = rows
            problems = check_database(list(tables.values()), seed)
        repaired = draft.model_copy(update={"tables": [tables[t.name] for t in draft.tables]})
        return DatabaseResult(draft=repaired, seed={t.name: seed.get(t.name, []) for t in draft.tables},
                              repair_rounds=rounds)

    return await run.stage("seed", {"draft": draft.model_dump(mode="json"), "rows": settings.rows_per_table,
                                    "clock": settings.clock, "rounds": settings.db_repair_rounds},
                           DatabaseResult, compute)
