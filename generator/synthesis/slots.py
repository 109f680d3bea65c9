"""Slots in an author's phrasing, filled with what the user knows.

``{title}`` is the value as stored. ``{amount_cents:money}`` is an amount kept in minor units
said the way a person says it ("$12.50"): the tools take cents, because money must be exact,
but nobody asks to deposit 125000 cents. The agent is told the unit by the policy and must
convert; the task's facts stay the stored values, so the reward is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["fill_slots", "money", "say_facts", "say_facts_by_errand", "slot_names"]

_SLOT = re.compile(r"\{([a-z0-9_]+)(?::(money))?\}")
_SYMBOLS = {"USD": "$", "GBP": "£", "EUR": "€"}
_MINOR_UNITS = re.compile(r"_(?:cents|pence)$")


def slot_names(text: str) -> list[str]:
    """The facts a phrasing needs, in order ("{amount_cents:money}" needs ``amount_cents``)."""
    return [name for name, _ in _SLOT.findall(text)]


def money(value: Any, currency: str | None) -> str:
    """125000 -> "$1,250.00" (a code the table does not know: "CHF 1,250.00"); a non-number as stored."""
    if isinstance(value, bool) or not isinstance(value, int | float) or currency is None:
        return str(value)
    major = f"{abs(value) / 100:,.2f}"
    sign = "-" if value < 0 else ""
    symbol = _SYMBOLS.get(currency)
    return f"{sign}{symbol}{major}" if symbol else f"{sign}{currency} {major}"


def fill_slots(text: str, values: Mapping[str, Any], currency: str | None = None) -> str:
    """``text`` with each slot replaced by its value, money slots as amounts."""
    def one(match: re.Match[str]) -> str:
        value = values[match.group(1)]
        return money(value, currency) if match.group(2) == "money" else str(value)

    return _SLOT.sub(one, text)


def say_facts(facts: Mapping[str, Any], currency: str | None = None, said: set[str] | None = None) -> str:
    """Facts as the simulated user reads them: money as money ("price = £62.00", not
    "price_pence = 6200", which a person would repeat as six thousand two hundred pence) and each
    value once (a listing's title and the title are one thing to the person who wrote it; ``said``
    carries the values said before, across groups). The facts themselves, and so the reward, keep
    the stored values and every key."""
    parts, said = [], set() if said is None else said
    for key, value in facts.items():
        if repr(value) in said:
            continue
        said.add(repr(value))
        is_amount = isinstance(value, int) and not isinstance(value, bool) and currency is not None
        if is_amount and _MINOR_UNITS.search(key):
            parts.append(f"{_MINOR_UNITS.sub('', key)} = {money(value, currency)}")
        else:
            parts.append(f"{key} = {value!r}")
    return ", ".join(parts)


def say_facts_by_errand(facts: Mapping[str, Any], errands: list[tuple[str, Collection[str]]],
                        currency: str | None = None) -> str:
    """Facts grouped by the errand they are for, so the simulated user knows which date picks which
    quote: 'for "I'd like a price for sending a parcel": quote_created_on = ...', not a flat list
    where ``quote_created_on_2`` says nothing of its role. Facts of no errand (who the user is, what
    a follow-up question needs) come first; within an errand a key loses its ``_2`` when no other
    fact of that errand shares its base. ``errands`` are (how the user asked, the errand's facts)."""
    said: set[str] = set()
    taken: set[str] = set()
    groups: list[tuple[str | None, dict[str, Any]]] = []
    for request, keys in errands:
        mine = {k: v for k, v in facts.items() if k in keys and k not in taken}
        taken |= set(mine)
        groups.append((request, mine))
    groups.insert(0, (None, {k: v for k, v in facts.items() if k not in taken}))
    parts = []
    for request, mine in groups:
        bases = [re.sub(r"_\d+$", "", k) for k in mine]
        shown = {(b if bases.count(b) == 1 else k): v for k, b, v in zip(mine, bases, mine.values())}
        text = say_facts(shown, currency, said)
        if text:
            parts.append(text if request is None else f'for "{request}": {text}')
    return "; ".join(parts)
