"""When an LLM reply counts as cut off at its token cap: one rule for eval, generate and doctor.

``finish_reason`` alone is not enough: llama-cpp-python reports a forced tool call cut at
``max_tokens`` as ``"tool_calls"``, and some servers say ``"stop"``. The token count settles
it: a reply that used its whole budget was cut (docs/model-servers.md). No imports: the
core, the eval clients and the generator all use it.
"""

from __future__ import annotations

__all__ = ["is_truncated"]


def is_truncated(finish_reason: str | None, completion_tokens: int | None, max_tokens: int | None) -> bool:
    """True when the reply stopped at its cap: finish_reason "length", or every allowed token used."""
    if finish_reason == "length":
        return True
    return max_tokens is not None and completion_tokens is not None and completion_tokens >= max_tokens
