"""The small part of the domain format the state layer works on, so that ``state`` never imports ``domain``.

Row operations (a start state is the seed plus these), the reward policy of a column, the
prefix of the internal tables, and the read-only shape of a manifest that the reward reads
(``RewardSchema``; ``domain.manifest.DomainManifest`` satisfies it). ``domain`` builds on
these; ``state`` depends on nothing above it (tests/contract/test_import_layers.py checks the
package graph has no cycle).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from enum import Enum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["INTERNAL_TABLE_PREFIX", "RewardPolicy", "RewardSchema", "RowOp", "apply_row_ops"]

INTERNAL_TABLE_PREFIX = "_scaleenv_"


class RewardPolicy(str, Enum):
    """How the reward compares a column between the agent's end state and the gold one."""

    exempt = "exempt"
    hard = "hard"
    semantic = "semantic"


class RowOp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    op: Literal["insert", "update", "delete"] = Field(description="What to do to one row.")
    table: str = Field(description="Target table.")
    row: dict[str, Any] | None = Field(default=None, description="insert: the full row.")
    key: dict[str, Any] | None = Field(default=None, description="update/delete: primary-key columns and values.")
    values: dict[str, Any] | None = Field(default=None, description="update: the columns to set.")
    distractor: bool = Field(default=False, description="True for rows that exist only to make the agent filter.")

    @model_validator(mode="after")
    def _shape(self) -> RowOp:
        if self.op == "insert" and not self.row:
            raise ValueError("insert needs row")
        if self.op in ("update", "delete") and not self.key:
            raise ValueError(f"{self.op} needs key")
        if self.op == "update" and not self.values:
            raise ValueError("update needs values")
        return self


def apply_row_ops(rows: dict[str, list[dict[str, Any]]], ops: Sequence[RowOp]) -> dict[str, list[dict[str, Any]]]:
    """Rows per table with ``ops`` applied, as plain dicts (``rows`` is not changed): the start state a
    setup describes, for code that reasons about rows without an episode (synthesis's world, the
    verifier's realism checks). An update or delete acts on the first row its key matches."""
    result = {table: list(items) for table, items in rows.items()}
    for op in ops:
        table = result.setdefault(op.table, [])
        if op.op == "insert" and op.row is not None:
            table.append(dict(op.row))
            continue
        key = op.key or {}
        for index, row in enumerate(table):
            if all(row.get(k) == v for k, v in key.items()):
                if op.op == "delete":
                    del table[index]
                else:
                    table[index] = {**row, **(op.values or {})}
                break
    return result


class _ColumnView(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def reward(self) -> RewardPolicy: ...


class _TableView(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def primary_key(self) -> Sequence[str]: ...
    @property
    def columns(self) -> Sequence[_ColumnView]: ...


class RewardSchema(Protocol):
    """What the reward reads of a domain: each table's key and column policies, and the clock's date."""

    @property
    def tables(self) -> Sequence[_TableView]: ...
    @property
    def today(self) -> date: ...
