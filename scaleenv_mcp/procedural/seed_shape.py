"""Does the seed look like a live deployment, or like a fixture?

An agent benchmark is judged by its world. A seed in which half the alarms are still open,
one complaint text is written by 19 customers or a look-alike is told apart by "(old)"
teaches an agent shortcuts a real system never offers. ``scaleenv validate`` measures three
things and names what falls short (advice, not a serving gate: a generated domain may still be
served; the shipped ones are held to zero problems by tests/domains/test_seed_shape.py):

- status frequencies: a status-like column (``status``, ``stage``, ``*_status``) of a table
  with at least ``MIN_ROWS`` rows declares its ``typical`` values; they hold at least half the
  rows and every other value at most a quarter (most orders delivered, few disputed);
- varied free text: in a ``semantic`` column, no sentence (``PROSE_WORDS`` words or more) is
  repeated more often than ``max(3, 10%)`` of the column's values;
- real look-alikes: no user-visible text ends in a marker suffix ("II", "Jr.", "(old)",
  "- copy", "(2)") that tells near neighbours apart the way no real record does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import ColumnSpec, DomainManifest
from scaleenv_mcp.state.model import RewardPolicy

__all__ = ["SeedShape", "check_seed_shape", "is_status_column"]

MIN_ROWS = 20
TYPICAL_SHARE = 0.5
EXCEPTION_SHARE = 0.25
PROSE_WORDS = 4
MARKER = re.compile(r"(?:\s(?:II|III|IV|Jr\.?|Sr\.?)|\((?:old|new|copy|\d+)\)|[-\u2013]\s*copy)\s*$", re.IGNORECASE)


class SeedShape(BaseModel):
    """What the seed-shape check measured, and every place the seed falls short."""

    statuses: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="Per status-like column (table.column), the count of each value.")
    most_repeated_text: dict[str, int] = Field(
        default_factory=dict, description="Per semantic column (table.column), how often its commonest sentence occurs.")
    problems: list[str] = Field(default_factory=list, description="Each shortfall, in words a domain author can act on.")


def is_status_column(column: ColumnSpec) -> bool:
    return column.type == "TEXT" and (column.name in ("status", "stage") or column.name.endswith("_status"))


def check_seed_shape(manifest: DomainManifest, seed: dict[str, list[dict[str, Any]]]) -> SeedShape:
    shape = SeedShape()
    for table in manifest.tables:
        rows = seed.get(table.name, [])
        for column in table.columns:
            values = [row.get(column.name) for row in rows if row.get(column.name) is not None]
            where = f"{table.name}.{column.name}"
            if is_status_column(column) and len(values) >= MIN_ROWS:
                counts = Counter(values)
                shape.statuses[where] = dict(counts.most_common())  # type: ignore[arg-type]  # the seed's status values
                shape.problems += _status_problems(where, column, counts, len(values))
            if column.reward is RewardPolicy.semantic:
                prose = Counter(v for v in values if isinstance(v, str) and len(v.split()) >= PROSE_WORDS)
                if prose:
                    text, times = prose.most_common(1)[0]
                    shape.most_repeated_text[where] = times
                    limit = max(3, math.ceil(0.1 * sum(prose.values())))
                    if times > limit:
                        shape.problems.append(f"{where}: {text!r} is written {times} times (at most {limit}): "
                                              "vary the free text as real people would")
            if column.user_visible and column.type == "TEXT":
                marked = next((v for v in values if isinstance(v, str) and MARKER.search(v)), None)
                if marked is not None:
                    shape.problems.append(f"{where}: {marked!r} ends in a marker suffix: make look-alikes "
                                          "differ by a real attribute (another date of birth, city or date)")
    return shape


def _status_problems(where: str, column: ColumnSpec, counts: Counter[Any], total: int) -> list[str]:
    if not column.typical:
        return [f"{where}: declares no typical values (the statuses most rows of a live system hold)"]
    problems = []
    typical = sum(counts[v] for v in column.typical)
    if typical < TYPICAL_SHARE * total:
        problems.append(f"{where}: typical values {column.typical} hold {typical} of {total} rows "
                        f"(at least {TYPICAL_SHARE:.0%} in a live system)")
    for value, count in counts.items():
        if value not in column.typical and count > EXCEPTION_SHARE * total:
            problems.append(f"{where}: {value!r} holds {count} of {total} rows; an exception holds at most "
                            f"{EXCEPTION_SHARE:.0%}")
    return problems
