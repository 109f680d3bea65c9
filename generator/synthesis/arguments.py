"""Where each argument of a synthesised call comes from: an earlier result or something the user says.

For one parameter the resolver lists candidates, best first: values in earlier results
with that field name (data flow; from a list only when the user can name the element by a
field no other element shares, the ``select_by`` selector), values of rows already chosen
for this call, values near the task's anchor row, rows of the table the parameter names,
label values for search parameters, then values read off the JSON Schema. Every candidate
knows its provenance, which becomes the task's grounding record.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.generator.graph import is_key_name, json_types
from scaleenv_mcp.generator.synthesis.values import is_label_column, is_search_param, schema_values, singular
from scaleenv_mcp.generator.synthesis.world import Neighborhood, World
from scaleenv_mcp.verifier.grounding import label_is_ambiguous
from scaleenv_mcp.verifier.paths import get_path, join_path, leaf_values, list_levels, split_path

__all__ = ["Candidate", "Observation", "ArgumentResolver", "entity_name"]


@dataclass
class Observation:
    """A successful call of the task so far: its action index, tool and result."""

    index: int
    tool: str
    result: dict[str, Any]
    leaves: list[tuple[str, str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.leaves:
            self.leaves = leaf_values(self.result)


@dataclass
class Candidate:
    value: Any
    source: str  # "user" or "call"
    fact_key: str | None = None
    call: int | None = None
    path: str | None = None
    select_by: dict[str, tuple[str, Any]] = field(default_factory=dict)  # element field -> (fact key, value)
    names: dict[str, tuple[str, Any]] = field(default_factory=dict)  # referenced row's label column -> (fact key, value)
    rank: int = 1000


def entity_name(param: str, world: World) -> str:
    """``book_id`` -> ``book``; a parameter naming a table -> that table's singular."""
    table = world.key_table(param)
    if param.endswith("_id"):
        return param[:-3]
    return singular(table) if table else param


_GENERIC_LISTS = {"items", "results", "rows", "data", "matches", "entries", "records"}


def _element_entity(head: str) -> str | None:
    """``home.devices`` -> ``device``: what the elements of a result list are, when the list says."""
    name = re.sub(r"\[\d+\]", "", head).rpartition(".")[2]
    return singular(name) if name and name not in _GENERIC_LISTS else None


def _own_id(row: dict[str, Any]) -> str | None:
    """The id a result row is about: its first ``*_id`` field (a device's ``device_id`` before the
    ``room_id`` it refers to)."""
    return next((k for k in row if k.endswith("_id")), None)


def _selector_order(item: tuple[str, Any]) -> tuple[int, str]:
    name, value = item
    if is_label_column(name) and isinstance(value, str):
        return (0, name)
    if isinstance(value, str) and not name.endswith("_id") and not name.endswith("_ids"):
        return (1, name)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return (2, name)
    return (3, name)


def _sayable(value: Any) -> bool:
    """A value a person says in passing: a number or a short text, not a paragraph."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and 0 < len(value) <= 40)


def _said_order(value: Any) -> int:
    """Numbers (a price) before words (a condition) before dates, to tell two same-named rows apart."""
    if isinstance(value, int | float):
        return 0
    return 2 if re.match(r"^\d{4}-\d{2}-\d{2}", value) else 1


class ArgumentResolver:
    """Candidate values with provenance for the parameters of one domain's tools."""

    def __init__(self, manifest: DomainManifest, world: World, rng: random.Random,
                 fits_cache: dict[tuple[str, str, str], bool] | None = None) -> None:
        self.manifest = manifest
        self.world = world
        self.rng = rng
        self.persona: Candidate | None = None  # once identified, every acting argument is this call's field
        self.principal: tuple[str, Any] | None = None  # (kind, key) of that person
        # A task's recorded run in a domain that serves people: the user knows no internal id, so
        # one comes only from a result (a lookup). Off for anchor probes, which only test a row.
        self.hide_ids = False
        # the keys people are identified by: after identification they name the user, not someone else
        self.identity_keys = frozenset(k for p in manifest.principals for path in p.identify for k in path.keys)
        # (tool, parameter) -> read tools whose results hold it: where an agent looks an id up
        self.lookups: dict[tuple[str, str], list[str]] = {}
        self.internal = manifest.internal_id_columns() if manifest.principals else set()
        self._validators: dict[tuple[str, str], jsonschema.Draft202012Validator] = {}
        self._fits = fits_cache if fits_cache is not None else {}  # shared: a pure function of its key

    def fits(self, tool: ToolSpec, param: str, value: Any) -> bool:
        memo = (tool.name, param, repr(value))
        if memo in self._fits:
            return self._fits[memo]
        key = (tool.name, param)
        if key not in self._validators:
            self._validators[key] = jsonschema.Draft202012Validator(tool.input_schema["properties"][param])
        self._fits[memo] = self._validators[key].is_valid(value)
        return self._fits[memo]

    def selector(self, result: dict[str, Any], path: str, param: str) -> dict[str, tuple[str, Any]] | None:
        """What the user names to pick ``path``'s value out of every list it is in: {} outside lists
        or in one-element lists; for each longer list, a field only the taken element has (the
        address labelled Work of the customer named Daan Visser); None when some list has none."""
        levels = list_levels(path)
        select: dict[str, tuple[str, Any]] = {}
        for depth, (head, index) in enumerate(levels):
            elements = get_path(result, head) if head else result
            if not isinstance(elements, list) or len(elements) <= 1:
                continue
            innermost = depth == len(levels) - 1
            found = self._identifying(elements, index, head, param if innermost else None)
            if found is None:
                return None
            name, fact = found
            select[name if innermost else f"{head}[].{name}"] = fact
        return select

    def referenced_name(self, tool: ToolSpec, result: dict[str, Any], path: str, param: str,
                        value: Any) -> dict[str, tuple[str, Any]] | None:
        """What the user calls the row a write acts on when its id is not the id of the result row it
        is read from but a reference in it: moving a lamp into the room another device is in is
        fair only when the user names that room ("to the Bedroom"). {} for a row's own id, a
        read, the acting person or a row the task made; the row's label as a fact; None when the
        row has no label a person could say, or none that picks it out, alone or with one more
        column the user sees (``label_is_ambiguous``)."""
        if not tool.is_writing or (tool.acting is not None and param == tool.acting.argument):
            return {}
        steps = split_path(path)
        holder = get_path(result, join_path(steps[:-1])) if len(steps) > 1 else result
        own = _own_id(holder) if isinstance(holder, dict) else None
        if own is None or own == steps[-1]:
            return {}
        table = self.world.key_table(param)
        row = self.world.row(table, value) if table else None
        if table is None or row is None:
            return {}
        labels = [c for c, label in row.items()
                  if is_label_column(c) and isinstance(label, str) and c not in self.internal]
        # a label alone, else a label with one more thing the user sees on the row (its price, its date)
        seen = sorted((c.name for c in self.manifest.table(table).columns if c.user_visible and c.name not in labels
                       and c.name not in self.internal and not is_key_name(c.name, self.manifest)
                       and _sayable(row.get(c.name))), key=lambda c: _said_order(row[c]))
        entity = singular(table)
        for columns in [[label] for label in labels] + [[label, other] for label in labels for other in seen]:
            if not label_is_ambiguous(self.manifest, self.world.rows[table], table, row, columns, self.principal):
                return {c: (c if c.startswith(entity) else f"{entity}_{c}", row[c]) for c in columns}
        return None

    def _identifying(self, elements: list[Any], index: int, head: str,
                     param: str | None) -> tuple[str, tuple[str, Any]] | None:
        """The field a person tells element ``index`` apart by, with its fact key and value."""
        element = elements[index]
        if not isinstance(element, dict):
            return None
        # The element's entity names the fact (a device's name, not a "home_name"): the list's name,
        # else the element's own id (every id taken from one quote is picked by that quote's weight).
        own = _own_id(element)
        entity = _element_entity(head) or entity_name(own or param or "item", self.world)
        # A person tells rows apart by what they can see (a title, a date), never by an internal id.
        scalars = [(k, v) for k, v in element.items()
                   if k != param and k not in self.internal and v is not None and not isinstance(v, dict | list | bool)]
        for name, value in sorted(scalars, key=_selector_order):
            if sum(1 for other in elements if isinstance(other, dict) and other.get(name) == value) == 1:
                return name, (name if name.startswith(entity) else f"{entity}_{name}", value)
        return None

    def from_results(self, tool: ToolSpec, param: str, observations: list[Observation],
                     near: Neighborhood | None) -> list[Candidate]:
        """Data-flow candidates: fields named ``param`` in earlier results, most recent call first.

        Only ids flow: what a write puts in a row (a room's name, a cancellation's reason, a
        parcel's weight) is what the user says, never a value copied off another row they never
        mentioned, which an agent doing exactly what was asked could not guess."""
        if not is_key_name(param, self.manifest):
            return []
        desired = near.values.get(param, []) if near else []
        found: list[Candidate] = []
        seen: set[tuple[int, str]] = set()
        for order, obs in enumerate(reversed(observations)):
            for path, leaf, value in obs.leaves:
                if leaf != param or value is None or (obs.index, repr(value)) in seen or not self.fits(tool, param, value):
                    continue
                select = self.selector(obs.result, path, param)
                names = self.referenced_name(tool, obs.result, path, param, value) if select is not None else None
                if select is None or names is None:
                    continue
                seen.add((obs.index, repr(value)))
                rank = desired.index(value) if value in desired else 100 + order
                found.append(Candidate(value, "call", call=obs.index, path=path, select_by=select, names=names,
                                       rank=rank))
        found.sort(key=lambda c: c.rank)
        return found

    def from_user(self, tool: ToolSpec, param: str, near: Neighborhood | None,
                  chosen_rows: list[dict[str, Any]], chosen: dict[str, Any] | None = None) -> list[Candidate]:
        """Values the user can state, most consistent first.

        Order: values linked to the keys already chosen for this call (a home the acting user
        belongs to), the chosen rows' own values, for enums the values other than the current
        one, the anchor's neighbourhood, rows of the table the parameter names, labels for
        search parameters, the column's values anywhere in the world, then the JSON Schema.
        """
        schema = tool.input_schema["properties"][param]
        if tool.acting is not None and param == tool.acting.argument:
            if self.persona is not None:  # one person per task: the one the agent identified first
                return [self.persona]
            return self.acting_candidates(tool, param, near, chosen_rows, chosen)
        if self.hide_ids and param in self.internal:
            return []  # an identified person does not know internal ids: the agent looks them up or does without
        fit = tool.text_fits.get(param)
        if fit is not None and chosen and fit.examples.get(chosen.get(fit.by)):
            # Words that agree with the choice made for this call: a damaged item's description for
            # a "damaged" dispute, never a lost parcel's.
            texts = list(fit.examples[chosen[fit.by]])
            self.rng.shuffle(texts)
            written = self._admissible(tool, param, [(v, param) for v in texts])
            if written:
                return written
        if schema.get("examples") and not is_search_param(param):
            # The author's words for what a person writes here ("Moving abroad next month") beat a
            # same-named column of another table (a visit's reason is no reason to cancel it).
            written = self._admissible(tool, param, [(v, param) for v in schema_values(
                param, schema, self.manifest.clock, self.rng)])
            if written:
                return written
        values: list[tuple[Any, str]] = []
        if chosen:
            values += [(v, param) for v in self.world.cooccurring(param, chosen)[:4]]
        for row in chosen_rows:
            if row.get(param) is not None:
                values.append((row[param], param))
        near_values = list(near.values.get(param, [])) if near else []
        if "enum" in schema and near_values and not param.endswith("_id"):
            # An update should change something: offer the other enum values before the current one.
            values += [(v, param) for v in schema_values(param, schema, self.manifest.clock, self.rng, 8)
                       if v not in near_values]
        values += [(v, param) for v in near_values[:6]]
        table = self.world.key_table(param)
        if table and self.world.rows[table] and self.world.primary[table] == [param]:
            sample = self.rng.sample(self.world.rows[table], min(4, len(self.world.rows[table])))
            values += [(row[param], param) for row in sample]
        if is_search_param(param) and near:
            for read in tool.reads:
                for row in near.rows_of(read)[:3]:
                    for column, value in row.items():
                        if is_label_column(column) and isinstance(value, str) and "@" not in value:
                            values.append((value, f"{singular(read)}_{column}"))
        holders = self.world.tables_with(param)
        if holders and not table:
            rows = self.world.rows[holders[0]]
            values += [(r[param], param) for r in self.rng.sample(rows, min(4, len(rows))) if r.get(param) is not None]
        if not values or (not table and not holders):
            values += [(v, param) for v in schema_values(param, schema, self.manifest.clock, self.rng)]
        if "boolean" in json_types(schema):  # SQLite stores booleans as 0/1
            values = [(bool(v), k) if v in (0, 1) and not isinstance(v, bool) else (v, k) for v, k in values]
        if tool.writes and near and not table:
            # Setting a column to the value it already has changes nothing: try other values first.
            current = [row[param] for distance, _, row in near.rows if distance == 0 and param in row]
            values = [v for v in values if v[0] not in current] + [v for v in values if v[0] in current]
        out = self._admissible(tool, param, values)
        if not out:  # nothing from the data fits the schema: fall back to values built from the schema
            built = schema_values(param, schema, self.manifest.clock, self.rng) + self._composed(schema, near)
            out = self._admissible(tool, param, [(v, param) for v in built])
        return out

    def acting_candidates(self, tool: ToolSpec, param: str, near: Neighborhood | None,
                           chosen_rows: list[dict[str, Any]], chosen: dict[str, Any] | None) -> list[Candidate]:
        """The acting principal: people tied to the rows of this call first (the order's buyer), then any.

        The acting argument names no column, so the usual lookups by name find nothing; its
        values are the principal table's keys, found under every column that references them.
        """
        values: list[tuple[Any, str]] = []
        for kind in tool.acting.kinds if tool.acting else []:
            principal = self.manifest.principal(kind)
            columns = [principal.key, *(columns[0] for table, columns, parent, refs in self.world.links
                                        if parent == principal.table and len(columns) == 1
                                        and tuple(refs) == (principal.key,))]
            for column in dict.fromkeys(columns):
                values += [(row[column], param) for row in chosen_rows if row.get(column) is not None]
                if chosen:
                    values += [(v, param) for v in self.world.cooccurring(column, chosen)[:4]]
                if near:
                    values += [(v, param) for v in near.values.get(column, [])[:6]]
            rows = self.world.rows[principal.table]
            values += [(row[principal.key], param) for row in self.rng.sample(rows, min(4, len(rows)))]
        return self._admissible(tool, param, values)

    def _admissible(self, tool: ToolSpec, param: str, values: list[tuple[Any, str]]) -> list[Candidate]:
        out: list[Candidate] = []
        seen: set[str] = set()
        for value, key in values:
            if repr(value) in seen or not self.fits(tool, param, value):
                continue
            seen.add(repr(value))
            out.append(Candidate(value, "user", fact_key=key, rank=len(out)))
        return out

    def _composed(self, schema: dict[str, Any], near: Neighborhood | None) -> list[Any]:
        """One-element arrays of objects (a scene's actions), each required field from the neighbourhood or schema."""
        items = schema.get("items") or {}
        if "object" not in json_types(items):
            return []
        built: list[Any] = []
        for _ in range(4):
            element: dict[str, Any] = {}
            for name in items.get("required", []):
                sub = (items.get("properties") or {}).get(name, {})
                check = jsonschema.Draft202012Validator(sub)
                pool = [v for v in (near.values.get(name, [])[:4] if near else []) if check.is_valid(v)]
                pool = pool or schema_values(name, sub, self.manifest.clock, self.rng)
                if not pool:
                    break
                element[name] = self.rng.choice(pool)
            else:
                built.append([element])
        return built
