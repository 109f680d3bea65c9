"""Intent grounding: every argument of the reference solution is obtainable by the agent.

An argument is grounded when its record in ``task.meta.grounding`` says where it comes
from and that source really holds it: a user fact (``known`` or ``withheld``) with that
value, or a field of an earlier action's result in this replay. A value picked out of a
list must come with a selector for every list it is in: element fields whose values are user
facts and which match exactly that one element, so the agent can tell which row the user meant
(an address out of one customer's addresses is picked by its label, and the customer by a name).
A reference a write takes from another row ("move it into the Kitchen") names that row: the
record's ``names`` maps the row's columns to the user facts that say them, and given the start
state the row must hold those values (a row the gold itself adds is looked up there), and the
label must pick that row out among the rows the user could mean (``label_is_ambiguous``): "the
Kitchen" among one home's rooms, but "Home" for another customer's address names nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.state.canonical import canonical_value
from scaleenv_mcp.verifier.paths import get_path, list_levels, selector_field
from scaleenv_mcp.verifier.replay import ActionResult

__all__ = ["check_grounding", "label_is_ambiguous"]


def _same(a: Any, b: Any) -> bool:
    try:
        return canonical_value(a) == canonical_value(b)
    except (TypeError, ValueError):
        return a == b


def _check_call(record: dict[str, Any], index: int, value: Any, results: list[ActionResult],
                facts: dict[str, Any]) -> str | None:
    call, path = record.get("call"), record.get("field")
    if not isinstance(call, int) or not isinstance(path, str) or not 0 <= call < index:
        return "names no earlier call and field"
    source = results[call] if call < len(results) else None
    if source is None or not source.ok or source.result is None:
        return f"its source call {call} did not succeed in the replay"
    try:
        found = get_path(source.result, path)
    except KeyError:
        return f"call {call} returned no field {path}"
    if not _same(found, value):
        return f"call {call} field {path} holds {found!r}, not {value!r}"
    select = record.get("select_by") or {}
    by_list: dict[str, dict[str, str]] = {}
    for key, fact in select.items():
        if fact not in facts:
            return f"selector fact {fact!r} is not something the user says"
        head, field = selector_field(key, path)
        by_list.setdefault(head, {})[field] = fact
    levels = dict(list_levels(path))
    for head in by_list:
        if head not in levels:
            return f"selector {select} names the list {head!r}, which {path} is not in"
    for head, position in levels.items():
        elements = get_path(source.result, head) if head else source.result
        if not isinstance(elements, list) or len(elements) <= 1:
            continue
        fields = by_list.get(head)
        if not fields:
            return f"picked from {len(elements)} elements of {head or 'the result'} of call {call} with nothing to tell them apart"
        matching = [i for i, element in enumerate(elements) if isinstance(element, dict)
                    and all(_same(element.get(field), facts[fact]) for field, fact in fields.items())]
        if matching != [position]:
            return f"selector {fields} matches elements {matching} of {head or 'the result'} of call {call}, not just {position}"
    return None


def label_is_ambiguous(manifest: DomainManifest, table_rows: list[dict[str, Any]], table: str,
                       row: dict[str, Any], columns: Sequence[str], persona: tuple[str, Any] | None) -> str | None:
    """Why a person calling ``row`` by its ``columns`` would not pick it out, else None.

    A label names a row among the rows the person means by it: their own rows (a customer's "Home"
    among that customer's addresses), the rows sharing its parent (a room of the home, a sprint of
    the project: the table's first foreign key), or, for a row of another person of the acting
    kind or a table with no parent, every row of the table ("Home" of someone else's addresses
    names none of them; two clinicians called David are not told apart by "David", and four
    listings titled "Hot Wheels track builder set" only by their price as well)."""
    spec = manifest.table(table)
    mine = manifest.principal(persona[0]).table if persona is not None else None
    scope: list[str] = []
    for fk in spec.foreign_keys:
        if fk.table == mine and len(fk.columns) == 1 and row.get(fk.columns[0]) is not None:
            scope = fk.columns if _same(row.get(fk.columns[0]), persona[1] if persona else None) else []
            break
    else:
        first = spec.foreign_keys[0].columns if spec.foreign_keys else []
        scope = first if all(row.get(c) is not None for c in first) else []
    same = [r for r in table_rows if all(_same(r.get(c), row.get(c)) for c in [*columns, *scope])]
    if len(same) > 1:
        where = f"with the same {', '.join(scope)}" if scope else "in all"
        called = " and ".join(repr(row.get(c)) for c in columns)
        return f"{len(same)} {table} rows {where} are called {called} ({', '.join(columns)})"
    return None


def _check_names(record: dict[str, Any], value: Any, facts: dict[str, Any], task: Task,
                 manifest: DomainManifest, rows: dict[str, list[dict[str, Any]]]) -> str | None:
    """The row ``value`` refers to holds what the user calls it by."""
    table, names = record.get("table"), record.get("names") or {}
    if not names:
        return None
    known = {t.name: t.primary_key for t in manifest.tables}
    if table not in known or len(known[table]) != 1:
        return f"names a row of {table!r}, which has no single-column key"
    key = known[table][0]
    added = task.gold.diff.tables[table].added if task.gold and table in task.gold.diff.tables else []
    candidates = [r for r in [*rows.get(table, []), *added] if _same(r.get(key), value)]
    for column, fact in names.items():
        if fact not in facts:
            return f"names fact {fact!r} is not something the user says"
        if not any(_same(row.get(column), facts[fact]) for row in candidates):
            return f"the {table} row {value!r} is not called {facts[fact]!r} ({column})"
    persona = (task.persona.kind, task.persona.id) if task.persona is not None else None
    named = next((row for row in candidates if all(_same(row.get(c), facts[f]) for c, f in names.items())), None)
    if named is None:  # each name fits some version of the row, none fits them all
        return f"no version of the {table} row {value!r} is called all of {sorted(names.values())}"
    ambiguous = label_is_ambiguous(manifest, [*rows.get(table, []), *added], table, named, list(names), persona)
    if ambiguous:
        return f"the {table} row {value!r} is not told apart by what the user calls it: {ambiguous}"
    return None


def check_grounding(task: Task, results: list[ActionResult], manifest: DomainManifest | None = None,
                    rows: dict[str, list[dict[str, Any]]] | None = None) -> list[str]:
    """Problems with the grounding of each argument, given the results of the gold replay;
    ``manifest`` and ``rows`` (the start state, ``scaleenv_mcp.verifier.realism.start_rows``) enable the check of ``names``."""
    facts = {**task.user.known, **task.user.withheld}
    records = {(g.get("action"), g.get("argument")): g for g in task.meta.grounding}
    problems: list[str] = []
    for index, action in enumerate(task.actions):
        for name, value in action.arguments.items():
            where = f"action {index} {action.tool}.{name}"
            record = records.get((index, name))
            if record is None:
                problems.append(f"{where}: no grounding record")
                continue
            if record.get("source") == "user":
                fact = record.get("fact")
                if fact not in facts:
                    problems.append(f"{where}: fact {fact!r} is not among the user's facts")
                elif not _same(facts[fact], value):
                    problems.append(f"{where}: the user's {fact!r} is {facts[fact]!r}, not {value!r}")
            elif record.get("source") == "call":
                problem = _check_call(record, index, value, results, facts)
                if problem is None and manifest is not None and rows is not None:
                    problem = _check_names(record, value, facts, task, manifest, rows)
                if problem:
                    problems.append(f"{where}: {problem}")
            else:
                problems.append(f"{where}: unknown source {record.get('source')!r}")
    return problems
