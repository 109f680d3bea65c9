"""What the SQL text in tool code may not say, as patterns the policy (``policy.check_sql``) applies to
every literal a tool passes to ``execute``/``fetch_*``/``require_row``: the host clock, randomness,
pragmas and attachments, the host's own tables. Kept apart from the checker, which decides which
strings are SQL; this says what SQL is refused.
"""

from __future__ import annotations

import re

from scaleenv_mcp.state.model import INTERNAL_TABLE_PREFIX

__all__ = ["SQL_RULES", "WALL_CLOCK_STRING"]

#: (rule id, pattern searched in the SQL text, reason shown to the tool's author)
SQL_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("sql_wall_clock", re.compile(r"""['"]\s*(now|localtime|utc)\s*['"]""", re.I),
     "SQL reads the host clock or time zone; pass ctx.now / ctx.today as a parameter"),
    ("sql_wall_clock", re.compile(r"\bCURRENT_(TIMESTAMP|DATE|TIME)\b", re.I),
     "SQL reads the host clock; pass ctx.now / ctx.today as a parameter"),
    ("sql_wall_clock", re.compile(r"\b(date|time|datetime|julianday|unixepoch)\s*\(\s*\)|\bstrftime\s*\(\s*'[^']*'\s*\)", re.I),
     "an SQL date function without a time value reads the host clock; pass ctx.now"),
    ("sql_randomness", re.compile(r"\brandom(blob)?\s*\(", re.I), "SQL randomness breaks determinism"),
    ("sql_forbidden", re.compile(r"\b(ATTACH|DETACH|PRAGMA|VACUUM|load_extension)\b", re.I),
     "SQL may not attach databases, change pragmas, vacuum or load extensions"),
    ("sql_forbidden", re.compile(re.escape(INTERNAL_TABLE_PREFIX), re.I),
     "SQL may not touch the host's internal tables (id counters)"),
)
#: an SQL parameter that is itself a clock word ('now' passed as a value)
WALL_CLOCK_STRING = re.compile(r"\s*(now|localtime)\s*", re.I)
