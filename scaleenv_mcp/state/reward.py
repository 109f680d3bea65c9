"""The reward: does the state an episode reached match the task's gold state?

One function serves the control API, the verifier and the eval clients (docs/eval.md,
"Metrics"). It compares the episode's diff from its start state with the
gold diff, table by table and column by column under each column's reward policy:
``hard`` exactly (canonical values), ``semantic`` by ``similarity.is_semantic_match``,
``exempt`` not at all. Rows the agent created are aligned with the gold's created rows on
their hard columns; a value that is an id minted in the episode is compared through that
alignment, so different minted ids score the same. The alignment is one search over every
table at once (``_align_created``), so a row that references a created row of a table compared
later must reference the very row aligned there, whatever the table order. Reads leave no trace
in the diff, so extra reads score 1; any other write (a stray row, a changed column) scores 0.

A task's ``communicate`` facts are the second evaluator (``communicate.check_communication``):
every fact must be in the agent's messages, or the reward is 0 with a mismatch per missing
fact on the pseudo-table ``(communicate)``. Without messages, nothing was told.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.state.communicate import CommunicationReport, check_communication
from scaleenv_mcp.state.diff import StateDiff, TableDiff
from scaleenv_mcp.state.model import RewardPolicy, RewardSchema
from scaleenv_mcp.state.similarity import is_semantic_match

__all__ = ["COMMUNICATE_TABLE", "Mismatch", "RewardReport", "compute_reward"]

COMMUNICATE_TABLE = "(communicate)"


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
    communication: CommunicationReport | None = Field(
        default=None, description="The task's communicate facts the agent's messages told or missed (None: the task has none).")

    def explain(self) -> str:
        return "; ".join(f"{m.table} {m.row} {m.column or ''}: {m.reason}" for m in self.mismatches[:20])


class _Comparator:
    def __init__(self, manifest: RewardSchema, gold: StateDiff, actual: StateDiff) -> None:
        self.policies = {t.name: {c.name: c.reward for c in t.columns} for t in manifest.tables}
        self.keys = {t.name: t.primary_key for t in manifest.tables}
        self.order = [t.name for t in manifest.tables]
        self.gold, self.actual = gold, actual
        self.gold_minted = self._minted(gold)
        self.actual_minted = self._minted(actual)
        self.aligned = self._align_created()
        self.mapping: dict[Any, Any] = dict(self.aligned or {})

    def _minted(self, diff: StateDiff) -> dict[Any, str]:
        """Ids of created rows (single-column keys) -> their table."""
        minted: dict[Any, str] = {}
        for table, changes in diff.tables.items():
            key = self.keys.get(table, [])
            if len(key) == 1:
                minted.update((row.get(key[0]), table) for row in changes.added)
        return minted

    def _align_created(self, budget: int = 20_000) -> dict[Any, Any] | None:
        """Gold minted id -> actual minted id for one consistent alignment of all created rows.

        Backtracking over gold rows; each choice binds the row's own id and every minted id it
        references, and later choices must agree with the bindings. None when no alignment
        matches every gold row (the per-table pass then names what differs) or the budget of
        tries runs out (created rows by the hundred; the per-table pass then decides alone).
        """
        rows = [(t, r) for t in self.order for r in self.gold.tables.get(t, TableDiff()).added]
        rows += [(t, r) for t in sorted(set(self.gold.tables) - set(self.order)) for r in self.gold.tables[t].added]
        candidates = {t: self.actual.tables.get(t, TableDiff()).added for t, _ in rows}
        steps = [0]

        def bind(table: str, row: dict[str, Any], hit: dict[str, Any], mapping: dict[Any, Any]) -> dict[Any, Any] | None:
            new = dict(mapping)
            key = self.keys.get(table, [])
            pairs = [(row.get(key[0]), hit.get(key[0]))] if len(key) == 1 else []
            for column, value in row.items():
                if value in self.gold_minted and self.policies.get(table, {}).get(column) is not RewardPolicy.exempt:
                    pairs.append((value, hit.get(column)))
                elif not self._same_value(table, column, value, hit.get(column)):
                    return None
            for want, got in pairs:
                if new.get(want, got) != got or self.actual_minted.get(got) != self.gold_minted.get(want):
                    return None
                if want not in new and got in new.values():
                    return None
                new[want] = got
            return new

        def search(index: int, mapping: dict[Any, Any], used: frozenset[tuple[str, int]]) -> dict[Any, Any] | None:
            if index == len(rows):
                return mapping
            table, row = rows[index]
            for position, hit in enumerate(candidates[table]):
                steps[0] += 1
                if steps[0] > budget:
                    return None
                if (table, position) in used:
                    continue
                bound = bind(table, row, hit, mapping)
                if bound is not None:
                    found = search(index + 1, bound, used | {(table, position)})
                    if found is not None:
                        return found
            return None

        found = search(0, {}, frozenset())
        self.exhausted = steps[0] > budget
        return found

    def _same_value(self, table: str, column: str, expected: Any, actual: Any) -> bool:
        """Non-minted comparison under the column's policy."""
        policy = self.policies.get(table, {}).get(column, RewardPolicy.hard)
        if policy is RewardPolicy.exempt:
            return True
        if policy is RewardPolicy.semantic:
            return is_semantic_match(expected, actual)
        return canonical_value(expected) == canonical_value(actual)

    def same(self, table: str, column: str, expected: Any, actual: Any) -> bool:
        policy = self.policies.get(table, {}).get(column, RewardPolicy.hard)
        if expected in self.gold_minted and policy is not RewardPolicy.exempt:
            mapped = self.mapping.get(expected)
            if mapped is None:
                return actual in self.actual_minted and actual not in self.mapping.values()
            return bool(mapped == actual)
        return self._same_value(table, column, expected, actual)

    def relevant(self, table: str, values: dict[str, Any]) -> dict[str, Any]:
        policies = self.policies.get(table, {})
        return {c: v for c, v in values.items() if policies.get(c, RewardPolicy.hard) is not RewardPolicy.exempt}

    def compare_table(self, table: str, mismatches: list[Mismatch]) -> float:
        gold = self.gold.tables.get(table, TableDiff())
        actual = self.actual.tables.get(table, TableDiff())
        total = matched = 0
        # Created rows: align gold rows with actual rows on every non-exempt column.
        remaining = list(actual.added)
        key = self.keys.get(table, [])
        for row in gold.added:
            total += 1
            target = self.mapping.get(row.get(key[0])) if len(key) == 1 and self.aligned is not None else None
            pool = [a for a in remaining if a.get(key[0]) == target] if target is not None else remaining
            hit = next((a for a in pool if all(self.same(table, c, v, a.get(c)) for c, v in row.items())), None)
            if hit is None:
                mismatches.append(Mismatch(table=table, row=self.relevant(table, row), reason="expected row was not created"))
                continue
            remaining.remove(hit)
            matched += 1
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


def _freeze(values: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((k, canonical_value(v)) for k, v in values.items()))


def compute_reward(manifest: RewardSchema, gold: StateDiff, actual: StateDiff, communicate: list[str] | None = None,
                   messages: list[str] | None = None) -> RewardReport:
    """Compare an episode's diff from its start state with the gold diff, and its messages with the facts.

    Returns reward 1.0 when every table matches under its columns' reward policies and every
    ``communicate`` fact is in one of the agent's ``messages``, else 0.0, with the mismatches
    and a per-table match fraction.
    """
    comparator = _Comparator(manifest, gold, actual)
    tables = set(gold.tables) | set(actual.tables)
    ordered = [t for t in comparator.order if t in tables] + sorted(tables - set(comparator.order))
    mismatches: list[Mismatch] = []
    fractions = {table: round(comparator.compare_table(table, mismatches), 4) for table in ordered}
    if comparator.aligned is None and not comparator.exhausted and not mismatches:
        # Every gold row found a partner table by table, but no single alignment fits them all:
        # some created row references another created row than the gold's does.
        created = next(t for t in ordered if gold.tables.get(t, TableDiff()).added)
        mismatches.append(Mismatch(table=created, row={}, reason="created rows do not reference each other as in the gold"))
        fractions[created] = 0.0
    communication = None
    if communicate:
        communication = check_communication(communicate, messages or [], manifest.today)
        mismatches += [Mismatch(table=COMMUNICATE_TABLE, row={}, expected=fact, reason="not told to the user")
                       for fact in communication.missing]
    return RewardReport(reward=0.0 if mismatches else 1.0, mismatches=mismatches, table_match=fractions,
                        communication=communication)
