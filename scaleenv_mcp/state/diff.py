"""Row-level difference between two canonical states, keyed by primary key.

The diff is the currency of the project: procedural tests state expected changes as one,
a task's gold is one, the reward compares two, and the shell shows one after each call.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from scaleenv_mcp.state.canonical import CanonicalTable

__all__ = ["RowChange", "StateDiff", "TableDiff", "diff_states"]


class RowChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: dict[str, Any] = Field(description="Primary-key columns and values of the changed row.")
    before: dict[str, Any] = Field(default_factory=dict, description="Old values of the changed columns only.")
    after: dict[str, Any] = Field(description="New values of the changed columns only.")


class TableDiff(BaseModel):
    model_config = ConfigDict(extra="forbid")

    added: list[dict[str, Any]] = Field(default_factory=list, description="Rows present only in the later state.")
    removed: list[dict[str, Any]] = Field(default_factory=list, description="Rows present only in the earlier state.")
    changed: list[RowChange] = Field(default_factory=list, description="Rows present in both with other values.")

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


class StateDiff(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tables: dict[str, TableDiff] = Field(default_factory=dict, description="Per-table differences; unchanged tables absent.")

    @property
    def is_empty(self) -> bool:
        return all(t.is_empty for t in self.tables.values())

    def row_count(self) -> int:
        return sum(len(t.added) + len(t.removed) + len(t.changed) for t in self.tables.values())


def diff_states(before: dict[str, CanonicalTable], after: dict[str, CanonicalTable]) -> StateDiff:
    """Rows added, removed and changed from ``before`` to ``after``, in primary-key order."""
    tables: dict[str, TableDiff] = {}
    for name in sorted(set(before) | set(after)):
        old = before[name].rows if name in before else {}
        new = after[name].rows if name in after else {}
        pk = (after.get(name) or before[name]).primary_key
        diff = TableDiff()
        for key in sorted(new.keys() - old.keys(), key=repr):
            diff.added.append(new[key])
        for key in sorted(old.keys() - new.keys(), key=repr):
            diff.removed.append(old[key])
        for key in sorted(old.keys() & new.keys(), key=repr):
            if old[key] != new[key]:
                changed = [c for c in new[key] if old[key].get(c) != new[key][c]]
                diff.changed.append(
                    RowChange(
                        key=dict(zip(pk, key)),
                        before={c: old[key].get(c) for c in changed},
                        after={c: new[key][c] for c in changed},
                    )
                )
        if not diff.is_empty:
            tables[name] = diff
    return StateDiff(tables=tables)
