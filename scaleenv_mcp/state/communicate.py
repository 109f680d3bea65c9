"""Did the agent tell the user what it had to? The evaluator of a task's ``communicate`` facts.

The state evaluator (``reward.compute_reward``) cannot see an information task's answer: the
agent says it. Each fact (a value the gold reads: "2026-05-14", "Dr Ana Ruiz", "USD 12.50") is
found when one agent message holds every one of its normalised tokens, so the wording around
it is free but the value is hard:

- numbers compare as numbers: "1,250" is 1250, "12.50" is 12.5, "twelve" is 12; a number is
  one token, so 12.5 is not found in "125";
- dates compare as dates: "2026-05-14", "2026-05-14T09:00", "14 May 2026", "May 14th, 2026",
  "14/05/2026", (when the fact's year is the message's) "May 14" and (on the episode's clock)
  "today", "tomorrow" and "yesterday" are one token, 2026-05-14;
- times compare as times of day: "2026-05-14T15:30:00" is the date and 15:30, said "15:30",
  "3:30 pm" or "3.30pm"; a time said without am/pm ("3:30") counts as either;
- currency signs and codes are dropped around amounts ("$12.50", "12.50 USD" -> 12.5), and an
  amount said as money also counts in minor units, since a domain that keeps money in cents asks
  for "98175" and a person is told "$981.75" ("$981.75", "USD 981.75" -> 981.75 and 98175);
- words are lower-cased; stop words and punctuation do not count.

Deterministic and offline; no model is asked. Pinned by tests/unit/state/test_communicate.py.
"""

from __future__ import annotations

import functools
import re
from datetime import date, timedelta

from pydantic import BaseModel, Field

from scaleenv_mcp.state.similarity import number_word

__all__ = ["CommunicationReport", "check_communication", "fact_tokens", "said_tokens", "wanted_tokens"]

_MONTHS = {name: index for index, names in enumerate(
    ["jan january", "feb february", "mar march", "apr april", "may", "jun june", "jul july", "aug august",
     "sep sept september", "oct october", "nov november", "dec december"], start=1) for name in names.split()}
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DATE_PATTERNS = [
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})(?:\b|(?=[tT]\d))"), ("y", "m", "d")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}\.?,? (\d{{4}})\b"), ("d", "M", "y")),
    (re.compile(rf"\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?,? (\d{{4}})\b"), ("M", "d", "y")),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"), ("d", "m", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?(?: of)? {_MONTH}\b"), ("d", "M")),
    (re.compile(rf"\b{_MONTH}\.? (\d{{1,2}})(?:st|nd|rd|th)?\b"), ("M", "d")),
]
_STOP = frozenset("a an the and or of to in on at for is are was be it its this that your my our their dr mr mrs ms "
                  "usd eur gbp".split())
_CURRENCY = re.compile(r"[$€£]")
_AMOUNT = r"(\d[\d,]*(?:\.\d{1,2})?)"
_MONEY = re.compile(rf"(?:[$€£]|\b(?:usd|eur|gbp)\b)\s?{_AMOUNT}|{_AMOUNT}\s?(?:usd|eur|gbp|dollars?|euros?)\b")
_RELATIVE_DAYS = {"yesterday": -1, "today": 0, "tomorrow": 1}
_TIMES = [  # after the dates: an ISO time follows its date's placeholder
    re.compile(r"(?<=\x00 )t(\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?()"),
    re.compile(r"\b(\d{1,2}):(\d{2})(?::\d{2})?(?:\s?([ap])\.?m\b\.?)?"),
    re.compile(r"\b(\d{1,2})\.(\d{2})\s?([ap])\.?m\b\.?"),  # 3.30pm; a bare 9.50 is an amount
    re.compile(r"\b(\d{1,2})()\s?([ap])\.?m\b\.?"),
]
_BARE = "~"  # marks a time said without am/pm: 3:30 may be 15:30


class CommunicationReport(BaseModel):
    """Which facts the agent's messages told the user."""

    found: list[str] = Field(default_factory=list, description="Facts some agent message states.")
    missing: list[str] = Field(default_factory=list, description="Facts no agent message states.")

    @property
    def complete(self) -> bool:
        return not self.missing


def _iso(parts: dict[str, str], year: int) -> str | None:
    try:
        month = int(parts["m"]) if "m" in parts else _MONTHS[parts["M"][:3] if parts["M"][:4] != "sept" else "sep"]
        return date(int(parts.get("y", year)), month, int(parts["d"])).isoformat()
    except (KeyError, ValueError):
        return None


def _dates(text: str, today: date) -> tuple[str, list[str]]:
    """Replace dates by placeholders; return the text and the ISO dates in order."""
    found: list[str] = []
    year = today.year

    def replace(match: re.Match[str], fields: tuple[str, ...]) -> str:
        iso = _iso(dict(zip(fields, match.groups())), year)
        if iso is None:
            return match.group(0)
        found.append(iso)
        return f" \x00{len(found) - 1}\x00 "

    for pattern, fields in _DATE_PATTERNS:
        text = pattern.sub(functools.partial(replace, fields=fields), text)

    def relative(match: re.Match[str]) -> str:
        found.append((today + timedelta(days=_RELATIVE_DAYS[match.group(0)])).isoformat())
        return f" \x00{len(found) - 1}\x00 "

    text = re.sub(r"\b(?:yesterday|today|tomorrow)\b", relative, text)
    for index, pattern in enumerate(_TIMES):
        text = pattern.sub(functools.partial(_time, found=found, iso=index == 0), text)
    return text, found


def _time(match: re.Match[str], found: list[str], iso: bool) -> str:
    """A time of day as a placeholder for "HH:MM" (24 h); bare ("3:30", no am/pm) marked as such."""
    hour, minute, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
        return match.group(0)
    if half:
        hour = hour % 12 + (12 if half == "p" else 0)
    found.append(f"{hour:02d}:{minute:02d}" + ("" if iso or half or hour > 12 else _BARE))
    return f" \x00{len(found) - 1}\x00 "


def fact_tokens(text: str, today: date) -> list[str]:
    """Normalised tokens: ISO dates, numbers as numbers, lower-case words; stop words dropped.

    ``today`` (the episode's clock) gives a date said without a year its year, and "today",
    "tomorrow" and "yesterday" their dates.
    """
    text, dates = _dates(_CURRENCY.sub(" ", text.lower().replace("’", "'")), today)
    tokens = []
    for raw in re.findall(r"\x00\d+\x00|\d[\d,]*(?:\.\d+)?|[a-z]+", text):
        if raw.startswith("\x00"):
            tokens.append(dates[int(raw.strip("\x00"))])
        elif raw[0].isdigit():
            value = raw.replace(",", "")
            tokens.append(value.rstrip("0").rstrip(".") if "." in value else str(int(value)))
        elif raw not in _STOP:
            tokens.append(number_word(raw) or raw)
    return tokens


def _minor_units(message: str) -> set[str]:
    """Amounts the message says as money, in cents: "$981.75" -> "98175", "12 USD" -> "1200"."""
    found = set()
    for match in _MONEY.finditer(message.lower()):
        amount = (match.group(1) or match.group(2)).replace(",", "")
        found.add(str(round(float(amount) * 100)))
    return found


def said_tokens(text: str, today: date) -> set[str]:
    """What a text (an agent's message, a tool's result) states: its tokens, amounts said as money
    also in minor units, a bare time standing for both its morning and its afternoon reading."""
    out = _minor_units(text)
    for token in fact_tokens(text, today):
        if token.endswith(_BARE):
            hour, minute = token.rstrip(_BARE).split(":")
            out |= {f"{hour}:{minute}", f"{int(hour) % 12 + 12:02d}:{minute}"}
        else:
            out.add(token)
    return out


def wanted_tokens(fact: str, today: date) -> set[str]:
    """What a text must state to tell ``fact``: a subset of its ``said_tokens``."""
    return {token.rstrip(_BARE) for token in fact_tokens(fact, today)}


def check_communication(facts: list[str], messages: list[str], today: date) -> CommunicationReport:
    """Each fact is found when one message holds all of its tokens.

    ``today`` (the episode's clock) completes dates said without a year ("May 14") and gives
    "today", "tomorrow" and "yesterday" their dates.
    """
    said = [said_tokens(message, today) for message in messages]
    report = CommunicationReport()
    for fact in facts:
        wanted = wanted_tokens(fact, today)
        (report.found if wanted and any(wanted <= tokens for tokens in said) else report.missing).append(fact)
    return report
