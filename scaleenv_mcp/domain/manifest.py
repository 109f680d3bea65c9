"""Pydantic models of ``domain.json``, the pinned manifest of a domain package.

The field descriptions here are the specification: ``docs/domain-format.md`` and
``docs/schemas/domain.schema.json`` are generated from them (``python -m
scaleenv_mcp.domain.docs``), and a contract test fails when the committed docs drift.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from scaleenv_mcp.state.model import INTERNAL_TABLE_PREFIX, RewardPolicy

__all__ = [
    "ActingSpec",
    "ColumnSpec",
    "ConditionSpec",
    "DomainManifest",
    "ErrorSpec",
    "ForeignKeySpec",
    "IdentificationSpec",
    "PolicyRuleSpec",
    "PrincipalSpec",
    "Provenance",
    "QuestionSpec",
    "TableSpec",
    "TextFitSpec",
    "ToolSpec",
    "ViolationSpec",
]

SLUG_PATTERN = r"^[a-z][a-z0-9_]*$"
TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
ERROR_CODES = ("not_found", "invalid_argument", "conflict", "not_permitted", "permission_denied")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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
    user_visible: bool = Field(
        default=False,
        description="True when a person would know the value without looking it up: a name, an email, a date, an "
        "amount, or a reference printed on something they hold (order number on a receipt, tracking number, booking "
        "reference, course code). Internal row ids are never user-visible. Only user-visible values may appear in "
        "what a simulated user is told.",
    )
    typical: list[str] = Field(
        default_factory=list,
        description="For a status-like column (status, stage, *_status): the values most rows of a live deployment "
        "hold (delivered orders, active accounts, resolved alarms). The seed check asks them to hold at least half "
        "the rows and every other value to stay the exception (at most a quarter).",
    )


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

    def internal_id_columns(self) -> list[str]:
        """Key and reference columns that are not user-visible: ids no person knows or says."""
        keyed = set(self.primary_key) | {c for key in self.foreign_keys for c in key.columns}
        return [c.name for c in self.columns if c.name in keyed and not c.user_visible]


class ErrorSpec(_Strict):
    code: Literal["not_found", "invalid_argument", "conflict", "not_permitted", "permission_denied"] = Field(
        description="Error code the tool raises (the toolkit class of the same name)."
    )
    when: str = Field(description="The condition that raises it, in words an agent can act on.")


class IdentificationSpec(_Strict):
    tool: str = Field(description="A read-only tool that finds one principal of this kind by what a person knows.")
    keys: list[str] = Field(
        min_length=1,
        description="The tool's arguments that carry the natural keys (email; full name plus date of birth; phone; "
        "an order number the person holds), each the name of a user-visible column of the principal's table or of a "
        "table the tool reads. No internal id.",
    )


class PrincipalSpec(_Strict):
    kind: str = Field(pattern=SLUG_PATTERN, description="Who can be served: customer, patient, clinician, seller...")
    description: str = Field(default="", description="Who this is in the world, in one sentence.")
    table: str = Field(description="The table whose rows are principals of this kind.")
    key: str = Field(description="Its key column: the value tools take as the acting principal.")
    where: str = Field(
        default="",
        description="Which rows of the table are of this kind when the table holds several kinds, in words "
        "(e.g. 'role = clinician'); empty when every row is one.",
    )
    identify: list[IdentificationSpec] = Field(
        min_length=1, description="How the agent identifies one by what a person knows; at least one path."
    )


class ActingSpec(_Strict):
    argument: str = Field(description="The input argument that names the acting principal, e.g. acting_member_id.")
    kinds: list[str] = Field(min_length=1, description="Principal kinds that may be named there.")


class ConditionSpec(_Strict):
    column: str = Field(description="A column of the violation's table.")
    op: Literal["=", "!=", "<", "<=", ">", ">=", "is_null", "not_null"] = Field(description="Comparison.")
    value: Any = Field(default=None, description='Literal to compare with, or "$today" for the clock\'s date.')


class ViolationSpec(_Strict):
    """Rows on which the governed tool would run but the rule forbids it: what refusal tasks ask for."""

    tool: str = Field(description="The governed tool the user asks for.")
    argument: str = Field(description="Its argument that names the row (e.g. loan_id).")
    table: str = Field(description="The table of that row.")
    where: list[ConditionSpec] = Field(min_length=1, description="All must hold of the row for the call to break the rule.")
    because: list[str] = Field(
        default_factory=list, description="Columns of the row whose values are the reason a person is told (the pickup "
        "date, the battery level): a refusal task scores the agent's saying them, so silence does not pass. Empty: "
        "refusal tasks from this rule score only the unchanged state.")


class PolicyRuleSpec(_Strict):
    id: str = Field(pattern=SLUG_PATTERN, description="Stable name of the rule, e.g. refund_window.")
    text: str = Field(
        description="The rule as the agent reads it in the policy, testable: who, what, and the limit or the check "
        "to make (e.g. 'Refund only within 30 days of delivery'). Tools deliberately do not enforce it."
    )
    tools: list[str] = Field(min_length=1, description="The tools whose use the rule governs.")
    violation: ViolationSpec | None = Field(
        default=None, description="When the rule is about rows (an overdue loan, a refund past its window): which rows "
        "break it, so that refusal tasks can ask for exactly that. Rules about a conversation (how many changes per "
        "request) have none.")


class QuestionSpec(_Strict):
    text: str = Field(
        description="A question a person asks that this read tool answers, with {slots} naming fields of the "
        "answering row that tell it apart (its title, its date): 'When is {title} due back?'."
    )
    answer: str = Field(description="The result field whose value answers it, e.g. due_on.")
    asked_by: list[str] = Field(
        default_factory=list, description="Principal kinds who ask this (a coupon's expiry is a learner's "
        "question, not an instructor's); empty: anyone the tool serves."
    )


class TextFitSpec(_Strict):
    """Free text that fits one choice of the same call: what a buyer writes as the description
    when the dispute's reason is "damaged" is not what they write when it is "not_received"."""

    by: str = Field(description="The argument with an enum whose value the text must fit, e.g. reason.")
    examples: dict[str, list[str]] = Field(
        description="For each value of that enum (all or some), texts a person writes with it: "
        "{'damaged': ['It arrived in a torn bag and the handle is snapped.'], ...}."
    )


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
    intents: list[str] = Field(
        default_factory=list,
        description="How a person asks for this, in the first person, with {slots} naming facts the user knows "
        "(argument names, or a looked-up row's visible column as <entity>_<column>, e.g. {loan_title}): 'I'd like "
        "to return {loan_title}.' Task synthesis words a request with one whose slots the user knows. An amount in "
        "minor units is written {amount_cents:money} (see ``DomainManifest.currency``).",
    )
    intents_by_kind: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Phrasings only a principal of that kind uses, beside ``intents`` (a clinician's 'Please add a "
        "{drug_class} allergy to my patient's record.', a patient's 'Please cancel my visit with "
        "{appointment_clinician_name}.'), keyed by principal kind.",
    )
    questions: list[QuestionSpec] = Field(
        default_factory=list,
        description="Read tools: questions a person asks that the tool answers; information tasks are built from them.",
    )
    text_fits: dict[str, TextFitSpec] = Field(
        default_factory=dict,
        description="Free-text arguments whose words must agree with an enum argument of the same call, keyed by the "
        "text argument: task synthesis writes the text from the examples for the value it chose, so a request never "
        "says 'the handle is snapped' under the reason 'not_received'.",
    )
    acting: ActingSpec | None = Field(
        default=None,
        description="The argument naming the principal the call acts for, when the tool changes state or reads "
        "private data for someone; the tool enforces what that principal may do.",
    )
    permission: str | None = Field(
        default=None,
        description="One line: who may make this call, enforced by the tool with permission_denied (e.g. 'only the "
        "seller of the listing may counter an offer').",
    )

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

    @model_validator(mode="after")
    def _text_fits_name_arguments(self) -> ToolSpec:
        properties = self.input_schema.get("properties") or {}
        for text, fit in self.text_fits.items():
            if properties.get(text, {}).get("type") != "string" or "enum" in properties[text]:
                raise ValueError(f"text_fits: {text!r} is not a string argument of {self.name} (free text, no enum)")
            choices = properties.get(fit.by, {}).get("enum")
            if not choices:
                raise ValueError(f"text_fits: {fit.by!r} is not an enum argument of {self.name}")
            unknown = sorted(set(fit.examples) - set(choices))
            if unknown:
                raise ValueError(f"text_fits: {unknown} are not values of {self.name}.{fit.by} ({choices})")
        return self

    def phrasings(self, kind: str | None = None) -> list[str]:
        """How a person of ``kind`` asks for this: the shared intents, then that kind's own."""
        return [*self.intents, *self.intents_by_kind.get(kind or "", [])]

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
    currency: str | None = Field(
        default=None, pattern=r"^[A-Z]{3}$",
        description="ISO 4217 code of the domain's money. Amounts are stored in minor units (cents); a "
        "phrasing slot written {amount_cents:money} says them as a person does ('$12.50').",
    )
    tables: list[TableSpec] = Field(description="Every table of schema.sql with its reward policies.")
    tools: list[ToolSpec] = Field(description="Every tool of tools.py, in the order agents see them.")
    principals: list[PrincipalSpec] = Field(
        default_factory=list,
        description="Who the agent can act for. A domain that declares principals opts into the acting contract "
        "that `scaleenv validate` checks (docs/authoring-domains.md).",
    )
    policy_rules: list[PolicyRuleSpec] = Field(
        default_factory=list,
        description="Rules of the policy that the tools deliberately do not enforce, so that an agent must reason "
        "about them; shown to the agent after the policy text.",
    )

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
        self._check_principals(tables, set(names))
        return self

    def _check_principals(self, tables: set[str], tools: set[str]) -> None:
        """References between principals, acting arguments and policy rules resolve (shape, not behaviour)."""
        kinds = [p.kind for p in self.principals]
        if len(set(kinds)) != len(kinds):
            raise ValueError("duplicate principal kinds")
        for principal in self.principals:
            if principal.table not in tables:
                raise ValueError(f"principal {principal.kind} names unknown table {principal.table!r}")
            if principal.key not in {c.name for c in self.table(principal.table).columns}:
                raise ValueError(f"principal {principal.kind}: table {principal.table} has no column {principal.key!r}")
            for path in principal.identify:
                if path.tool not in tools:
                    raise ValueError(f"principal {principal.kind} is identified by unknown tool {path.tool!r}")
                missing = set(path.keys) - set(self.tool(path.tool).parameters)
                if missing:
                    raise ValueError(f"principal {principal.kind}: tool {path.tool} has no argument(s) {sorted(missing)}")
        for tool in self.tools:
            for kind in tool.intents_by_kind:
                if kind not in kinds:
                    raise ValueError(f"tool {tool.name}: intents for {kind!r}, which is not a declared principal")
            for question in tool.questions:
                for kind in question.asked_by:
                    if kind not in kinds:
                        raise ValueError(f"tool {tool.name}: question {question.text!r} is asked by {kind!r}, "
                                         "which is not a declared principal")
            if tool.acting is None:
                continue
            if tool.acting.argument not in tool.parameters:
                raise ValueError(f"tool {tool.name}: acting argument {tool.acting.argument!r} is not an input")
            if tool.acting.argument not in tool.input_schema.get("required", []):
                raise ValueError(f"tool {tool.name}: acting argument {tool.acting.argument!r} must be required")
            for kind in tool.acting.kinds:
                if kind not in kinds:
                    raise ValueError(f"tool {tool.name}: acting kind {kind!r} is not a declared principal")
        ids = [r.id for r in self.policy_rules]
        if len(set(ids)) != len(ids):
            raise ValueError("duplicate policy rule ids")
        for rule in self.policy_rules:
            for name in rule.tools:
                if name not in tools:
                    raise ValueError(f"policy rule {rule.id} names unknown tool {name!r}")
            violation = rule.violation
            if violation is not None:
                if violation.tool not in rule.tools:
                    raise ValueError(f"policy rule {rule.id}: violation tool {violation.tool!r} is not among its tools")
                if violation.argument not in self.tool(violation.tool).parameters:
                    raise ValueError(f"policy rule {rule.id}: {violation.tool} has no argument {violation.argument!r}")
                if violation.table not in tables:
                    raise ValueError(f"policy rule {rule.id}: unknown table {violation.table!r}")
                columns = {c.name for c in self.table(violation.table).columns}
                for column in violation.because:
                    if column not in columns:
                        raise ValueError(f"policy rule {rule.id}: because names {column!r}, not a column of {violation.table}")
                for condition in violation.where:
                    if condition.column not in columns:
                        raise ValueError(f"policy rule {rule.id}: {violation.table} has no column {condition.column!r}")

    @property
    def today(self) -> date:
        """The date of the episodes' fixed clock: what "today" means in a task and in what the agent says."""
        return date.fromisoformat(self.clock[:10])

    @property
    def agent_policy(self) -> str:
        """The policy as the agent reads it: the text, then the rules no tool checks for it."""
        if not self.policy_rules:
            return self.policy
        rules = "\n".join(f"- {rule.text}" for rule in self.policy_rules)
        return f"{self.policy}\n\nRules the tools do not check for you (you must follow them yourself):\n{rules}"

    def internal_id_columns(self) -> set[str]:
        """Names of every table's internal id columns (``TableSpec.internal_id_columns``)."""
        return {name for table in self.tables for name in table.internal_id_columns()}

    def principal(self, kind: str) -> PrincipalSpec:
        for principal in self.principals:
            if principal.kind == kind:
                return principal
        raise KeyError(kind)

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
