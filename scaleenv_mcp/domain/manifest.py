"""Pydantic models of ``domain.json``, the pinned manifest of a domain package.

The field descriptions here are the specification: ``docs/domain-format.md`` and
``docs/schemas/domain.schema.json`` are generated from them (``python -m
scaleenv_mcp.domain.docs``), and a contract test fails when the committed docs drift.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "ColumnSpec",
    "DomainManifest",
    "ErrorSpec",
    "ForeignKeySpec",
    "Provenance",
    "RewardPolicy",
    "TableSpec",
    "ToolSpec",
]

SLUG_PATTERN = r"^[a-z][a-z0-9_]*$"
TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
INTERNAL_TABLE_PREFIX = "_scaleenv_"
ERROR_CODES = ("not_found", "invalid_argument", "conflict", "not_permitted")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RewardPolicy(str, Enum):
    """How the reward compares a column between the agent's end state and the gold one."""

    exempt = "exempt"
    hard = "hard"
    semantic = "semantic"


class Provenance(_Strict):
    kind: Literal["reference", "generated"] = Field(
        description='"reference" for hand-written shipped domains, "generated" for the generator\'s output.'
    )
    model: str | None = Field(default=None, description="LLM that generated the package (generated only).")
    date: str | None = Field(default=None, description="ISO date the package was generated (generated only).")


class ColumnSpec(_Strict):
    name: str = Field(description="Column name, snake_case, as in schema.sql.")
    type: Literal["TEXT", "INTEGER", "REAL"] = Field(description="SQLite STRICT type, as in schema.sql.")
    nullable: bool = Field(default=False, description="True when the column may hold NULL (no NOT NULL in schema.sql).")
    reward: RewardPolicy = Field(
        description="Reward policy: exempt (minted ids, truly free fields), hard (amounts, statuses, dates, "
        "references: compared exactly), semantic (free text: normalised-text similarity)."
    )
    description: str = Field(default="", description="What the column holds, with its format and units.")


class ForeignKeySpec(_Strict):
    columns: list[str] = Field(description="Referencing columns of this table.")
    table: str = Field(description="Referenced table.")
    references: list[str] = Field(description="Referenced columns (its primary key).")


class TableSpec(_Strict):
    name: str = Field(description="Table name, plural snake_case. Names starting with _scaleenv_ are reserved.")
    description: str = Field(default="", description="What one row of the table is.")
    primary_key: list[str] = Field(description="Primary-key columns, as in schema.sql.")
    columns: list[ColumnSpec] = Field(description="Every column, in schema.sql order.")
    foreign_keys: list[ForeignKeySpec] = Field(default_factory=list, description="Foreign keys, as in schema.sql.")

    @field_validator("name")
    @classmethod
    def _not_internal(cls, value: str) -> str:
        if value.startswith(INTERNAL_TABLE_PREFIX) or not re.match(SLUG_PATTERN, value):
            raise ValueError(f"table name {value!r} must match {SLUG_PATTERN} and not start with {INTERNAL_TABLE_PREFIX}")
        return value

    def column(self, name: str) -> ColumnSpec:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)


class ErrorSpec(_Strict):
    code: Literal["not_found", "invalid_argument", "conflict", "not_permitted"] = Field(
        description="Error code the tool raises (the toolkit class of the same name)."
    )
    when: str = Field(description="The condition that raises it, in words an agent can act on.")


class ToolSpec(_Strict):
    name: str = Field(pattern=TOOL_NAME_PATTERN, description="Tool name: verb_object, matching ^[a-zA-Z0-9_-]{1,64}$.")
    description: str = Field(
        description="Agent-facing: what it does, when to use it, every argument's format (id patterns, dates, "
        "units) and what each error means."
    )
    input_schema: dict[str, Any] = Field(
        description="JSON Schema of the arguments: an object with properties, required and "
        "additionalProperties false; no $ref or oneOf."
    )
    output_schema: dict[str, Any] = Field(
        description='JSON Schema of the result: always an object (wrap lists as {"items": [...]}).'
    )
    reads: list[str] = Field(default_factory=list, description="Tables the tool reads.")
    writes: list[str] = Field(default_factory=list, description="Tables the tool writes (empty for read-only tools).")
    raises: list[ErrorSpec] = Field(default_factory=list, description="Declared errors, one per condition.")
    preconditions: list[str] = Field(
        default_factory=list, description="What must hold before the call, in words; names tools that establish it."
    )
    postconditions: list[str] = Field(default_factory=list, description="What holds after a successful call.")

    @field_validator("input_schema", "output_schema")
    @classmethod
    def _object_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        if schema.get("type") != "object":
            raise ValueError('must be a JSON Schema with "type": "object"')
        text = repr(schema)
        for banned in ("$ref", "oneOf"):
            if banned in text:
                raise ValueError(f"must not use {banned} (outside the function-calling subset)")
        return schema

    @property
    def parameters(self) -> list[str]:
        return list(self.input_schema.get("properties", {}))

    @property
    def is_writing(self) -> bool:
        return bool(self.writes)


class DomainManifest(_Strict):
    slug: str = Field(pattern=SLUG_PATTERN, description="Folder name and identifier: [a-z][a-z0-9_]*.")
    title: str = Field(description="Human title of the world.")
    description: str = Field(description="What the world is, shown to agents in the MCP instructions.")
    keywords: list[str] = Field(default_factory=list, description="Keywords the domain was grown from or is found by.")
    version: str = Field(description="Package version; bump it when tools or data change.")
    provenance: Provenance = Field(description="Where the package came from.")
    clock: str = Field(
        description="The fixed 'now' of every episode, ISO-8601 (YYYY-MM-DDTHH:MM:SS). Tools read it as ctx.now."
    )
    policy: str = Field(description="The rules an agent must follow, shown to it; the tools enforce them.")
    tables: list[TableSpec] = Field(description="Every table of schema.sql with its reward policies.")
    tools: list[ToolSpec] = Field(description="Every tool of tools.py, in the order agents see them.")

    @field_validator("clock")
    @classmethod
    def _iso_clock(cls, value: str) -> str:
        if not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$", value):
            raise ValueError("clock must look like 2026-03-14T09:30:00")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> DomainManifest:
        tables = {t.name for t in self.tables}
        if len(tables) != len(self.tables):
            raise ValueError("duplicate table names")
        names = [t.name for t in self.tools]
        if len(set(names)) != len(names):
            raise ValueError("duplicate tool names")
        for tool in self.tools:
            for table in (*tool.reads, *tool.writes):
                if table not in tables:
                    raise ValueError(f"tool {tool.name} names unknown table {table!r} in reads/writes")
        return self

    def table(self, name: str) -> TableSpec:
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(name)

    def tool(self, name: str) -> ToolSpec:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)
