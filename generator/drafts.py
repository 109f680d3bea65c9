"""What each role must answer: the pydantic models every LLM reply is parsed into.

These are the boundary between free text and the pipeline. Their JSON Schemas are sent as
``response_format`` (or as plain-JSON instructions), and their validators check what a
schema cannot (a table referenced by a key exists, a tool named in the access map exists,
the code defines the function asked for) so a bad answer becomes a repair round-trip with a
precise message instead of a failure three stages later. Validators read cross-references
from the validation ``context`` (known tables, tools, the tool being written).

The domain-format models (``ToolSpec``, ``ColumnSpec``...) are reused rather than copied, so
a draft that validates here is already in the pinned package format.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from scaleenv_mcp.domain.cases import ToolCase
from scaleenv_mcp.domain.manifest import TOOL_NAME_PATTERN, ColumnSpec, ForeignKeySpec, PrincipalSpec, ToolSpec
from scaleenv_mcp.generator.synthesis.chain_code import (
    WrittenChain as ChainCode,  # the chain writer's answer, as synthesis reads it
)
from scaleenv_mcp.generator.synthesis.gate import (
    ExpansionDecision,  # the gate's answer: one model for the rule and the LLM
)
from scaleenv_mcp.generator.synthesis.wording import TaskWording  # the task writer's answer, as rewording reads it

__all__ = ["ChainCode", "DatabaseDraft", "DbRepair", "DebugFix", "DomainCard", "EdgeJudgement", "EdgeJudgements",
           "ExpansionDecision", "PlannedTool", "SeedRows", "TableDraft", "TaskWording", "ToolAccess", "ToolCode",
           "ToolDrafts", "ToolPlan", "ToolTests"]


def _ctx(info: ValidationInfo, name: str) -> Any:
    return (info.context or {}).get(name)


def _require_function(code: str, info: ValidationInfo) -> str:
    name = _ctx(info, "tool")
    if name and not re.search(rf"^def {re.escape(name)}\(\s*ctx\b", code, re.MULTILINE):
        raise ValueError(f"code must define `def {name}(ctx, ...)` at top level")
    return code


class DomainCard(BaseModel):
    title: str = Field(description="Human title of the world, e.g. 'Pet Care Clinic'.")
    description: str = Field(description="Two or three sentences: who acts in this world and what they do.")
    keywords: list[str] = Field(description="Five to ten keywords.")
    entities: list[str] = Field(description="The main kinds of records (owners, pets, appointments...).")


def _unique_names(names: list[str]) -> None:
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate tool names {duplicates}")
    if not names:
        raise ValueError("at least one tool is needed")


class PlannedTool(BaseModel):
    name: str = Field(pattern=TOOL_NAME_PATTERN, description="verb_object name.")
    purpose: str = Field(description="One sentence: what it does and when an agent uses it.")
    changes_state: bool = Field(description="True when it writes the database.")


class ToolPlan(BaseModel):
    """Stage 2a: the whole tool set in one small answer, so 30-70 schemas can be asked in batches."""

    tools: list[PlannedTool]

    @field_validator("tools")
    @classmethod
    def _unique(cls, tools: list[PlannedTool]) -> list[PlannedTool]:
        _unique_names([t.name for t in tools])
        return tools


class ToolDrafts(BaseModel):
    tools: list[ToolSpec] = Field(description="The tools asked for, with full schemas.")

    @field_validator("tools")
    @classmethod
    def _unique(cls, tools: list[ToolSpec], info: ValidationInfo) -> list[ToolSpec]:
        _unique_names([t.name for t in tools])
        wanted = _ctx(info, "names")
        if wanted is not None and sorted(t.name for t in tools) != sorted(wanted):
            raise ValueError(f"give exactly the tools {sorted(wanted)}, got {sorted(t.name for t in tools)}")
        for tool in tools:
            if not isinstance(tool.input_schema.get("properties", {}), dict):
                raise ValueError(f"{tool.name}: input_schema.properties must be an object")
        return tools


class TableDraft(BaseModel):
    name: str = Field(description="Plural snake_case table name.")
    description: str = Field(default="", description="What one row is.")
    primary_key: list[str]
    columns: list[ColumnSpec]
    foreign_keys: list[ForeignKeySpec] = Field(default_factory=list)
    checks: list[str] = Field(default_factory=list, description="SQLite CHECK expressions, e.g. \"status IN ('a','b')\".")
    id_prefix: str | None = Field(default=None, description="Prefix of minted ids (PREFIX-NNNNN), 2-10 upper-case.")

    @model_validator(mode="after")
    def _coherent(self) -> TableDraft:
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.name}: duplicate column names")
        for column in [*self.primary_key, *(c for fk in self.foreign_keys for c in fk.columns)]:
            if column not in names:
                raise ValueError(f"table {self.name}: key column {column!r} is not one of its columns {names}")
        if self.id_prefix is not None and not re.fullmatch(r"[A-Z][A-Z0-9]{1,9}", self.id_prefix):
            raise ValueError(f"table {self.name}: id_prefix must be 2-10 upper-case letters or digits, starting with a letter")
        return self


class ToolAccess(BaseModel):
    tool: str
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)


class DatabaseDraft(BaseModel):
    tables: list[TableDraft]
    access: list[ToolAccess] = Field(description="For every tool: the tables it reads and the tables it writes.")
    policy: str = Field(description="The rules an agent must follow in this world; the tools enforce each of them.")
    principals: list[PrincipalSpec] = Field(
        default_factory=list, description="Who the agent acts for: every kind a tool names in acting, asked_by or "
        "intents_by_kind, bound to its table and key, identified by a read-only tool and its natural-key arguments.")

    @model_validator(mode="after")
    def _references(self, info: ValidationInfo) -> DatabaseDraft:
        tables = {t.name: t for t in self.tables}
        for principal in self.principals:
            if principal.table not in tables:
                raise ValueError(f"principal {principal.kind}: unknown table {principal.table!r}")
            if principal.key not in {c.name for c in tables[principal.table].columns}:
                raise ValueError(f"principal {principal.kind}: table {principal.table} has no column {principal.key!r}")
            unknown_tools = sorted({p.tool for p in principal.identify} - set(_ctx(info, "tools") or []))
            if _ctx(info, "tools") is not None and unknown_tools:
                raise ValueError(f"principal {principal.kind}: identified by unknown tools {unknown_tools}")
        kinds, used = {p.kind for p in self.principals}, _ctx(info, "kinds") or set()
        if sorted(used - kinds):
            raise ValueError(f"the tools act for or are asked by {sorted(used - kinds)}: declare each as a principal")
        for table in self.tables:
            for fk in table.foreign_keys:
                if fk.table not in tables:
                    raise ValueError(f"table {table.name}: foreign key to unknown table {fk.table!r}")
                if fk.references != tables[fk.table].primary_key:
                    raise ValueError(f"table {table.name}: foreign key must reference {fk.table}'s primary key "
                                     f"{tables[fk.table].primary_key}")
        tools = _ctx(info, "tools")
        for entry in self.access:
            unknown = sorted(set(entry.reads + entry.writes) - set(tables))
            if unknown:
                raise ValueError(f"access of {entry.tool}: unknown tables {unknown}")
        if tools is not None:
            missing = sorted(set(tools) - {a.tool for a in self.access})
            if missing:
                raise ValueError(f"access must list every tool; missing {missing}")
        return self


class SeedRows(BaseModel):
    rows: list[dict[str, Any]] = Field(description="Rows of the table, each an object with every column.")


class DbRepair(BaseModel):
    diagnosis: str = Field(description="What was wrong, in one or two sentences.")
    checks: dict[str, list[str]] = Field(default_factory=dict, description="Table -> its full corrected CHECK list.")
    rows: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description="Table -> all its corrected rows.")


class ToolCode(BaseModel):
    code: str = Field(description="The Python source of the one tool function, `def name(ctx, ...) -> dict:`.")

    @field_validator("code")
    @classmethod
    def _defines_tool(cls, code: str, info: ValidationInfo) -> str:
        return _require_function(code, info)


class ToolTests(BaseModel):
    cases: list[ToolCase] = Field(description="Procedural test cases of the tool, in the tests.json format.")


class DebugFix(BaseModel):
    diagnosis: str = Field(description="Which is wrong, the tool or a case, and why.")
    code: str | None = Field(default=None, description="The whole corrected function, when the tool was wrong.")
    cases: list[ToolCase] | None = Field(default=None, description="The whole corrected case list, when cases were wrong.")
    reads: list[str] | None = Field(default=None, description="Corrected tables read, when a conformance finding says so.")
    writes: list[str] | None = Field(default=None, description="Corrected tables written.")

    @field_validator("code")
    @classmethod
    def _defines_tool(cls, code: str | None, info: ValidationInfo) -> str | None:
        return code if code is None else _require_function(code, info)


class EdgeJudgement(BaseModel):
    source: str
    target: str
    required: bool = Field(description="True when target can only succeed after source has run (a pre-condition).")
    reason: str = Field(default="", description="The state source establishes that target needs.")


class EdgeJudgements(BaseModel):
    edges: list[EdgeJudgement]
