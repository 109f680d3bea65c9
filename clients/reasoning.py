"""Strip a model's private reasoning from a message before the other party reads it.

Reasoning models put their scratchpad in the content (``<think>...</think>`` and kin). The
simulated user must see only what the agent says (user hygiene, issue 15), and the agent only
what the user says. An unclosed block at the start (a reply cut off mid-thought) is dropped
whole; a stray closing tag drops everything before it. This must not touch anything else.
"""

from __future__ import annotations

import re

__all__ = ["strip_private_reasoning"]

_TAGS = "think|thinking|reasoning|reflection|scratchpad"
_BLOCK = re.compile(rf"<({_TAGS})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_UNCLOSED = re.compile(rf"<({_TAGS})\b[^>]*>.*\Z", re.IGNORECASE | re.DOTALL)
_ORPHAN_CLOSE = re.compile(rf"\A.*?</({_TAGS})\s*>", re.IGNORECASE | re.DOTALL)


def strip_private_reasoning(text: str | None) -> str:
    """The message without reasoning blocks, trimmed; ``""`` for None."""
    if not text:
        return ""
    text = _BLOCK.sub("", text)
    text = _ORPHAN_CLOSE.sub("", text)
    text = _UNCLOSED.sub("", text)
    return text.strip()
