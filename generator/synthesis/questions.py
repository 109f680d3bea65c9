"""Information tasks: the user asks something, the agent must find it and tell them.

Built from a read tool's ``questions`` (``ToolSpec.questions``: "When is {title} due back?",
answer ``due_on``). The gold is the identification, the lookups and the read; the end state is
the start state, and the answer is the task's ``communicate`` fact, scored on the agent's
messages (``scaleenv_mcp.state.communicate``). The row asked about is the anchor's when the
read returns it, else one the slots tell apart from every other row of the result: a question
two rows would answer differently is not asked.
"""

from __future__ import annotations

import random
import re
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest, QuestionSpec
from scaleenv_mcp.domain.task import UserSpec

__all__ = ["answer_row", "build_question_user"]

_SLOT = re.compile(r"\{([a-z0-9_]+)\}")
_GREETINGS = ["Hi.", "Hello!", "Good morning.", "Hi there.", "Hello, quick question."]


def _rows(result: Any) -> list[dict[str, Any]]:
    """Every object in a result, the result itself first."""
    found: list[dict[str, Any]] = []
    stack = [result]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            found.append(item)
            stack += [v for v in item.values() if isinstance(v, dict | list)]
        elif isinstance(item, list):
            stack += item
    return found


def answer_row(question: QuestionSpec, result: dict[str, Any], anchor: dict[str, Any] | None,
               rng: random.Random) -> dict[str, Any] | None:
    """The row of ``result`` the question is about, or None when the slots cannot single one out."""
    slots = _SLOT.findall(question.text)
    rows = [r for r in _rows(result) if r.get(question.answer) is not None and all(r.get(s) is not None for s in slots)]
    if not rows:
        return None
    mine = [r for r in rows if anchor and any(anchor.get(k) == v for k, v in r.items() if k.endswith("_id"))]
    row = mine[0] if mine else rng.choice(rows)
    same = [r for r in rows if all(r.get(s) == row.get(s) for s in slots)]
    if any(r.get(question.answer) != row.get(question.answer) for r in same):
        return None
    return row


def build_question_user(manifest: DomainManifest, question: QuestionSpec, row: dict[str, Any], facts: dict[str, Any],
                        rng: random.Random, profile: str | None) -> tuple[UserSpec, str]:
    """The user side of an information task and the question as asked; every fact is known (nothing
    withheld: the agent must find the answer, not pry facts out of the user)."""
    asked = _SLOT.sub(lambda m: str(row[m.group(1)]), question.text)
    known = {k: v for k, v in sorted(facts.items())}
    for slot in _SLOT.findall(question.text):
        known.setdefault(slot, row[slot])
    who = f"{profile}, a user of {manifest.title}" if profile else f"a user of {manifest.title}"
    known_text = ", ".join(f"{k} = {v!r}" for k, v in known.items())
    instruction = (f"You are {who}. You want to know: {asked} Give these facts when the agent asks: {known_text}. "
                   "Do not ask for anything to be changed. Do not invent other details; say you do not know. "
                   "End the conversation once you have your answer.")
    return UserSpec(opening=f"{rng.choice(_GREETINGS)} {asked}", instruction=instruction, known=known), asked
