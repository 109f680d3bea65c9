"""The model of ``tests.json``: procedural test cases, each with its own fixture.

A case is run on a fresh database (the seed, or an empty schema, plus the fixture's row
operations), calls one tool once, and is classified as the paper does: Success (the result
and the state change are as expected), Anticipated Rejection (the declared error was
raised), or Unexpected Failure (anything else).

Matching rules, chosen so authors state what matters and nothing incidental:
- ``result``: a recursive subset: every key given must match; lists must have the same
  length and match element by element. Omit it to check only the state change.
- ``changes``: the expected diff from the fixture state. Tables, changed keys and removed
  keys must match exactly; for a changed row, ``after`` must name exactly the columns that
  changed; each expected added row (a subset of columns, so minted ids may be left out) must
  match a distinct actual added row. A success case without ``changes`` expects no change.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.model import RowOp

__all__ = ["CaseExpectation", "CaseFixture", "CaseOutcome", "TestSuite", "ToolCase"]


class CaseOutcome(str, Enum):
    success = "success"
    rejection = "rejection"


class CaseFixture(BaseModel):
    model_config = ConfigDict(extra="forbid")

    base: Literal["seed", "empty"] = Field(default="seed", description="Start from the seed data or an empty schema.")
    rows: list[RowOp] = Field(default_factory=list, description="Row operations applied on top of the base.")


class CaseExpectation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    outcome: CaseOutcome = Field(description="success or rejection.")
    error: str | None = Field(default=None, description="rejection: the declared error code expected.")
    condition: str | None = Field(
        default=None,
        description="rejection: the declared error's `when` text or the precondition this case violates.",
    )
    result: dict[str, Any] | None = Field(default=None, description="success: a recursive subset of the result.")
    changes: StateDiff | None = Field(default=None, description="success: the expected state change (see rules).")


class ToolCase(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Unique, says what the case shows, e.g. 'borrow_book rejects a suspended member'.")
    tool: str = Field(description="The tool called.")
    fixture: CaseFixture = Field(default_factory=CaseFixture)
    arguments: dict[str, Any] = Field(default_factory=dict)
    expect: CaseExpectation


class TestSuite(BaseModel):
    """The whole of ``tests.json``."""

    __test__ = False  # not a pytest class
    model_config = ConfigDict(extra="forbid")

    cases: list[ToolCase]
