"""The checks stages apply to what models write: the database, the edge candidates (task wording: test_rewording)."""

from __future__ import annotations

import copy

from scaleenv_mcp.domain.loader import check_schema
from scaleenv_mcp.domain.manifest import DomainManifest, Provenance, TableSpec, ToolSpec
from scaleenv_mcp.generator.drafts import DatabaseDraft
from scaleenv_mcp.generator.schema_sql import check_database, render_schema_sql
from scaleenv_mcp.generator.stages.graph_stage import candidate_pairs
from scaleenv_mcp.generator.stages.tools import normalise_tool
from tests.support_llm_server import DATABASE, SEED, TOOLS


def _draft() -> DatabaseDraft:
    return DatabaseDraft.model_validate(copy.deepcopy(DATABASE))


def _manifest(draft: DatabaseDraft, tools: list[ToolSpec]) -> DomainManifest:
    tables = [TableSpec(name=t.name, primary_key=t.primary_key, columns=t.columns, foreign_keys=t.foreign_keys)
              for t in draft.tables]
    return DomainManifest(slug="pet_care", title="t", description="d", version="0", clock="2026-03-10T09:00:00",
                          provenance=Provenance(kind="generated"), policy="p", tables=tables, tools=tools)


def test_rendered_ddl_agrees_with_the_manifest_and_the_seed_loads():
    draft = _draft()
    check_schema(_manifest(draft, []), render_schema_sql(draft.tables))  # raises on any disagreement
    assert "STRICT" in render_schema_sql(draft.tables)
    assert check_database(draft.tables, copy.deepcopy(SEED)) == []


def test_seed_problems_name_the_table_the_row_and_sqlites_reason():
    seed = copy.deepcopy(SEED)
    seed["pets"][1]["owner_id"] = "OWN-00077"
    seed["appointments"][0]["slot"] = "13:30"
    seed["owners"][0]["nickname"] = "M"
    seed["owners"][1]["owner_id"] = "OWN-2"
    problems = check_database(_draft().tables, seed)
    assert any(p.startswith("pets[1] (pet_id='PET-00002')") and "FOREIGN KEY" in p for p in problems)
    assert any(p.startswith("appointments[0]") and "CHECK constraint failed" in p for p in problems)
    assert any(p.startswith("owners[0]") and "unknown columns ['nickname']" in p for p in problems)
    assert any(p.startswith("owners[1]") and "OWN-00001" in p for p in problems)  # the id pattern


def test_a_check_that_does_not_compile_is_reported_as_a_schema_problem():
    draft = _draft()
    broken = draft.tables[0].model_copy(update={"checks": ["status IN ('active'"]})
    problems = check_database([broken, *draft.tables[1:]], copy.deepcopy(SEED))
    assert len(problems) == 1 and problems[0].startswith("schema.sql does not execute")


def test_edge_candidates_are_writers_feeding_users_of_their_tables_without_a_declared_condition():
    draft = _draft()
    access = {a.tool: a for a in draft.access}
    tools = [normalise_tool(ToolSpec.model_validate(t)).model_copy(update={
        "reads": access[t["name"]].reads, "writes": access[t["name"]].writes}) for t in TOOLS]
    pairs = {(s, t) for s, t, _ in candidate_pairs(_manifest(draft, tools))}
    assert ("register_pet", "book_appointment") in pairs and ("book_appointment", "cancel_appointment") in pairs
    assert all(s in {"register_pet", "book_appointment", "cancel_appointment"} for s, _ in pairs)
    assert all(t["input_schema"]["additionalProperties"] is False for t in (x.model_dump() for x in tools))
