"""What one task is about, so that its later errands and questions stay in the same story.

A person who calls about an order may, in the same call, ask for a refund on it or when it
arrives; they do not go on to review an unrelated listing. The story of a task is the anchor
row, the rows one foreign key away from it (the order's listing, its shipment) and every row
the task has written so far, known by the values of their key columns. People are left out:
every row of a person names them, so "it is mine" would tie everything together. A further
chain is kept only when one of its writes names a story id, a follow-up question only when
the row it asks about does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.state.diff import StateDiff

__all__ = ["UNDO_VERBS", "Story", "key_columns", "written_rows"]


def key_columns(manifest: DomainManifest) -> frozenset[str]:
    """Column names that identify a row anywhere in the domain: primary and foreign keys."""
    return frozenset(c for t in manifest.tables
                     for c in [*t.primary_key, *(c for fk in t.foreign_keys for c in fk.columns)])


def written_rows(manifest: DomainManifest, diff: StateDiff) -> frozenset[tuple[str, str]]:
    """(table, key) of every row ``diff`` adds, changes or removes. A later errand that makes one of
    an earlier errand's rows drop out of this set undoes it (deposit, then withdraw the same cash;
    add a member, then remove them): no person asks for that in one call."""
    out = set()
    for name, table in diff.tables.items():
        key = manifest.table(name).primary_key
        for row in [*table.added, *table.removed]:
            out.add((name, repr([row.get(c) for c in key])))
        for change in table.changed:
            out.add((name, repr([change.key.get(c) for c in key])))
    return frozenset(out)


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


# Verbs that take back what was done. Applied to a row the task itself added or changed (book a
# shipment, then cancel it; refill a prescription, then discontinue it), they make an errand no one
# brings; applied to another row, they are ordinary errands (cancel my old booking).
UNDO_VERBS = frozenset({"cancel", "delete", "remove", "withdraw", "revoke", "discontinue", "terminate",
                        "decline", "reject", "close", "archive", "unpublish", "void", "retract", "undo"})


@dataclass(frozen=True)
class Story:
    """The key values a task is about, and the rows of the start state they belong to."""

    ids: frozenset[str]
    rows: tuple[tuple[str, dict[str, Any]], ...]
    keys: frozenset[str]
    tables: frozenset[str]  # where story rows live: the start state's and the ones the task wrote
    added: tuple[tuple[str, dict[str, Any]], ...] = ()  # rows the task added, by table
    written_ids: frozenset[str] = frozenset()  # primary-key values of the rows the task added or changed
    written: frozenset[tuple[str, str]] = frozenset()  # ``written_rows`` of the diff the story was built from

    @classmethod
    def around(cls, manifest: DomainManifest, world: World, anchor: tuple[str, dict[str, Any]] | None,
               people: set[Any], diff: StateDiff | None = None,
               more: Iterable[dict[str, Any]] = ()) -> Story:
        """The anchor, its neighbours one key away (people excepted), the rows ``diff`` wrote and ``more``."""
        keys = key_columns(manifest)
        principal_tables = {p.table for p in manifest.principals}
        rows: list[tuple[str, dict[str, Any]]] = []
        if anchor is not None:
            rows = [(t, r) for distance, t, r in world.neighborhood([anchor], depth=1).rows
                    if distance == 0 or t not in principal_tables]
        changed = {name: t for name, t in (diff.tables.items() if diff else []) if not t.is_empty}
        written = [row for table in changed.values() for row in [*table.added, *(c.key for c in table.changed)]]
        ids = {str(v) for _, row in rows for k, v in row.items() if k in keys and _scalar(v)}
        ids |= {str(v) for row in [*written, *more] for k, v in row.items() if k in keys and _scalar(v)}
        ids -= {str(p) for p in people}
        added = [(name, row) for name, table in changed.items() for row in table.added]
        touched = [*added, *((name, c.key) for name, table in changed.items() for c in table.changed)]
        written_ids = {str(row[c]) for name, row in touched for c in manifest.table(name).primary_key
                       if _scalar(row.get(c))}
        return cls(ids=frozenset(ids), rows=tuple(rows), keys=keys,
                   tables=frozenset({t for t, _ in rows} | set(changed)),
                   added=tuple(added), written_ids=frozenset(written_ids),
                   written=written_rows(manifest, diff) if diff else frozenset())

    def joined(self, table: str, rows: Iterable[dict[str, Any]]) -> Story:
        """This story with more rows of ``table`` in it (a person's other bookings, when they ask
        about two: cancel this one, and that one)."""
        extra = tuple((table, row) for row in rows if (table, row) not in self.rows)
        ids = {str(v) for _, row in extra for k, v in row.items() if k in self.keys and _scalar(v)}
        return replace(self, rows=self.rows + extra, ids=self.ids | frozenset(ids), tables=self.tables | {table})

    def undoes(self, tool: str, arguments: dict[str, Any]) -> bool:
        """A call that takes back a row this task added or changed (its verb cancels, removes,
        withdraws...)."""
        return tool.split("_", 1)[0] in UNDO_VERBS and any(
            _scalar(v) and str(v) in self.written_ids for v in arguments.values())

    def wrote(self, manifest: DomainManifest, table: str, row: dict[str, Any]) -> bool:
        """The task changed or removed this start-state row (its key is among ``written``)."""
        return (table, repr([row.get(c) for c in manifest.table(table).primary_key])) in self.written

    def added_of(self, table: str) -> list[dict[str, Any]]:
        return [row for t, row in self.added if t == table]

    def names(self, row: dict[str, Any]) -> bool:
        """The row holds a story id under a key column (an order's refund names the order)."""
        return any(k in self.keys and _scalar(v) and str(v) in self.ids for k, v in row.items())

    def touched_by(self, arguments: dict[str, Any], skip: str | None = None) -> bool:
        """A call's arguments name a story id (the acting argument, ``skip``, never counts)."""
        return any(k != skip and (k in self.keys or k.endswith("_id")) and _scalar(v) and str(v) in self.ids
                   for k, v in arguments.items())

    def rows_of(self, table: str) -> list[dict[str, Any]]:
        return [row for t, row in self.rows if t == table]
