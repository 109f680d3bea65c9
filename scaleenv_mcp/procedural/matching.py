"""Does an actual outcome match a case's expectation? Returns the reasons it does not.

The rules are documented on ``domain.cases`` (recursive-subset results, exact changed
keys and columns, added rows matched on the columns given).
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.state.diff import StateDiff

__all__ = ["match_changes", "match_result"]


def _same(expected: Any, actual: Any) -> bool:
    return canonical_value(expected) == canonical_value(actual)


def match_result(expected: Any, actual: Any, path: str = "result") -> list[str]:
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"[:300]]
        problems: list[str] = []
        for key, value in expected.items():
            if key not in actual:
                problems.append(f"{path}.{key}: missing")
            else:
                problems += match_result(value, actual[key], f"{path}.{key}")
        return problems
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            got = len(actual) if isinstance(actual, list) else type(actual).__name__
            return [f"{path}: expected a list of {len(expected)}, got {got}"]
        problems = []
        for index, (e, a) in enumerate(zip(expected, actual)):
            problems += match_result(e, a, f"{path}[{index}]")
        return problems
    return [] if _same(expected, actual) else [f"{path}: expected {expected!r}, got {actual!r}"[:300]]


def _row_matches(expected: dict[str, Any], actual: dict[str, Any]) -> bool:
    return all(c in actual and _same(v, actual[c]) for c, v in expected.items())


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted((k, canonical_value(v)) for k, v in row.items()))


def _match_rows(table: str, kind: str, expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> list[str]:
    """Each expected row (a subset of columns) must match a distinct actual row, and no row is left over."""
    problems: list[str] = []
    unmatched = list(actual)
    for row in expected:
        hit = next((i for i, a in enumerate(unmatched) if _row_matches(row, a)), None)
        if hit is None:
            problems.append(f"{table}: no {kind} row matches {row}"[:400])
        else:
            unmatched.pop(hit)
    if unmatched:
        problems.append(f"{table}: {len(unmatched)} unexpected {kind} row(s), e.g. {unmatched[0]}"[:400])
    return problems


def match_changes(expected: StateDiff | None, actual: StateDiff) -> list[str]:
    """Reasons ``actual`` does not match ``expected`` (None means: no change expected)."""
    expected = expected or StateDiff()
    problems: list[str] = []
    want = {t: d for t, d in expected.tables.items() if not d.is_empty}
    for table in sorted(set(want) | set(actual.tables)):
        if table not in actual.tables:
            problems.append(f"{table}: expected changes, found none")
            continue
        if table not in want:
            problems.append(f"{table}: unexpected change ({actual.tables[table].model_dump(exclude_defaults=True)})"[:400])
            continue
        exp, act = want[table], actual.tables[table]
        problems += _match_rows(table, "added", exp.added, act.added)
        problems += _match_rows(table, "removed", exp.removed, act.removed)
        exp_changed = {_key(c.key): c for c in exp.changed}
        act_changed = {_key(c.key): c for c in act.changed}
        for key in sorted(set(exp_changed) | set(act_changed), key=repr):
            if key not in act_changed:
                problems.append(f"{table} {dict(key)}: expected a change, row unchanged")
            elif key not in exp_changed:
                problems.append(f"{table} {dict(key)}: unexpected change {act_changed[key].after}"[:400])
            else:
                e_after, a_after = exp_changed[key].after, act_changed[key].after
                if set(e_after) != set(a_after) or not all(_same(v, a_after[c]) for c, v in e_after.items()):
                    problems.append(f"{table} {dict(key)}: expected {e_after}, got {a_after}"[:400])
    return problems
