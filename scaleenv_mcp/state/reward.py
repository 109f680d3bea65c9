"""The reward: does the state an episode reached match the task's gold state?

One function serves the control API, the verifier and the eval clients (DESIGN: state,
canonical form and reward). It compares the episode's diff from its start state with the
gold diff, table by table and column by column under each column's reward policy:
``hard`` exactly (canonical values), ``semantic`` by ``similarity.is_semantic_match``,
``exempt`` not at all. Rows the agent created are aligned with the gold's created rows on
their hard columns; a value that is an id minted in the episode is compared through that
alignment, so different minted ids score the same. Reads leave no trace in the diff, so
extra reads score 1; any other write (a stray row, a changed column) scores 0.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest, RewardPolicy
from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.state.diff import StateDiff, TableDiff
from scaleenv_mcp.state.similarity import is_semantic_match

__all__ = ["Mismatch", "RewardReport", "compute_reward"]


class Mismatch(BaseModel):
    table: str
    row: dict[str, Any] = Field(description="Primary key (or, for a created row, its gold values) of the row.")
    column: str | None = None
    expected: Any = None
    actual: Any = None
    reason: str


class RewardReport(BaseModel):
    reward: float = Field(description="1.0 when the end state matches the gold state, else 0.0.")
    mismatches: list[Mismatch] = Field(default_factory=list, description="What differs: table, row, column.")
    table_match: dict[str, float] = Field(default_factory=dict, description="Per-table share of row entries that match.")

    def explain(self) -> str:
        return "; ".join(f"{m.table} {m.row} {m.column or ''}: {m.reason}" for m in self.mismatches[:20])


class _Comparator:
    def __init__(self, manifest: DomainManifest, gold: StateDiff, actual: StateDiff) -> None:
        self.policies = {t.name: {c.name: c.reward for c in t.columns} for t in manifest.tables}
        self.keys = {t.name: t.primary_key for t in manifest.tables}
        self.order = [t.name for t in manifest.tables]
        self.gold, self.actual = gold, actual
        self.gold_minted = self._minted(gold)
        self.actual_minted = self._minted(actual)
        self.mapping: dict[Any, Any] = {}

    def _minted(self, diff: StateDiff) -> set[Any]:
        minted = set()
        for table, changes in diff.tables.items():
            key = self.keys.get(table, [])
            if len(key) == 1:
                minted.update(row.get(key[0]) for row in changes.added)
        return minted

    def same(self, table: str, column: str, expected: Any, actual: Any) -> bool:
        policy = self.policies.get(table, {}).get(column, RewardPolicy.hard)
        if policy is RewardPolicy.exempt:
            return True
        if policy is RewardPolicy.semantic:
            return is_semantic_match(expected, actual)
        if expected in self.gold_minted:
            mapped = self.mapping.get(expected)
            if mapped is None:
                return actual in self.actual_minted and actual not in self.mapping.values()
            return mapped == actual
        return canonical_value(expected) == canonical_value(actual)

    def relevant(self, table: str, values: dict[str, Any]) -> dict[str, Any]:
        policies = self.policies.get(table, {})
        return {c: v for c, v in values.items() if policies.get(c, RewardPolicy.hard) is not RewardPolicy.exempt}

    def compare_table(self, table: str, mismatches: list[Mismatch]) -> float:
        gold = self.gold.tables.get(table, TableDiff())
        actual = self.actual.tables.get(table, TableDiff())
        total = matched = 0
        # Created rows: align gold rows with actual rows on every non-exempt column.
        remaining = list(actual.added)
        for row in gold.added:
            total += 1
            hit = next((a for a in remaining if all(self.same(table, c, v, a.get(c)) for c, v in row.items())), None)
            if hit is None:
                mismatches.append(Mismatch(table=table, row=self.relevant(table, row), reason="expected row was not created"))
                continue
            remaining.remove(hit)
            matched += 1
            key = self.keys.get(table, [])
            if len(key) == 1:
                self.mapping[row[key[0]]] = hit[key[0]]
        for extra in remaining:
            total += 1
            mismatches.append(Mismatch(table=table, row=self.relevant(table, extra), reason="unexpected row created"))
        # Removed rows: same primary keys.
        gold_removed = {_freeze(self._key(table, r)) for r in gold.removed}
        actual_removed = {_freeze(self._key(table, r)) for r in actual.removed}
        for key in sorted(gold_removed | actual_removed, key=repr):
            total += 1
            if key in gold_removed and key in actual_removed:
                matched += 1
            else:
                reason = "expected row was not removed" if key in gold_removed else "unexpected row removed"
                mismatches.append(Mismatch(table=table, row=dict(key), reason=reason))
        # Changed rows: the non-exempt columns' new values.
        gold_changed = {_freeze(c.key): c.after for c in gold.changed}
        actual_changed = {_freeze(c.key): c.after for c in actual.changed}
        for key in sorted(set(gold_changed) | set(actual_changed), key=repr):
            want = self.relevant(table, gold_changed.get(key, {}))
            got = self.relevant(table, actual_changed.get(key, {}))
            if not want and not got:
                continue
            total += 1
            problems = [
                Mismatch(table=table, row=dict(key), column=c, expected=want.get(c), actual=got.get(c),
                         reason="value differs" if c in want and c in got else
                         "expected change not made" if c in want else "unexpected change")
                for c in sorted(set(want) | set(got))
                if not (c in want and c in got and self.same(table, c, want[c], got[c]))
            ]
            if problems:
                mismatches += problems
            else:
                matched += 1
        return 1.0 if total == 0 else matched / total

    def _key(self, table: str, row: dict[str, Any]) -> dict[str, Any]:
        key = self.keys.get(table) or sorted(row)
        return {k: row.get(k) for k in key}


def _freeze(values: dict[str, Any]) -> tuple:
    return tuple(sorted((k, canonical_value(v)) for k, v in values.items()))


def compute_reward(manifest: DomainManifest, gold: StateDiff, actual: StateDiff) -> RewardReport:
    """Compare an episode's diff from its start state with the gold diff.

    Returns reward 1.0 when every table matches under its columns' reward policies, else
    0.0, with the mismatches and a per-table match fraction.
    """
    comparator = _Comparator(manifest, gold, actual)
    tables = set(gold.tables) | set(actual.tables)
    ordered = [t for t in comparator.order if t in tables] + sorted(tables - set(comparator.order))
    mismatches: list[Mismatch] = []
    fractions = {table: round(comparator.compare_table(table, mismatches), 4) for table in ordered}
    return RewardReport(reward=0.0 if mismatches else 1.0, mismatches=mismatches, table_match=fractions)
