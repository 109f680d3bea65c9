"""When an LLM reply counts as cut off at its token cap: one rule for eval, generate and doctor.

``finish_reason`` alone is not enough: llama-cpp-python reports a forced tool call cut at
``max_tokens`` as ``"tool_calls"``, and some servers say ``"stop"``. The token count settles
it when the server reports one: a reply that used its whole budget was cut. A server that
reports no ``usage`` (some gateways and proxies drop it) leaves only the text: JSON that opens
an object or array and never closes it stopped mid-value, which no finished structured reply
does (docs/model-servers.md). No imports: the core, the eval clients and the generator all use it.
"""

from __future__ import annotations

__all__ = ["is_truncated", "json_end", "unclosed_json"]


def is_truncated(finish_reason: str | None, completion_tokens: int | None, max_tokens: int | None,
                 text: str | None = None) -> bool:
    """True when the reply stopped at its cap.

    finish_reason "length"; else, when the server counted the reply's tokens
    (``completion_tokens`` not None), every allowed token used; else (no usage reported) a
    ``text`` whose JSON never closes. A reply whose tokens were counted and fell short of the
    cap was not cut, whatever its text: a model that stops inside its JSON gets a repair. A
    count above the cap means the server did not apply it (issue #31's sweep: llama-cpp-python
    with tool_choice auto): then the text tells, as with no usage.
    """
    if finish_reason == "length":
        return True
    if completion_tokens is not None and not (max_tokens is not None and completion_tokens > max_tokens):
        return max_tokens is not None and completion_tokens >= max_tokens
    # no usage, or more tokens than the cap: a server that ignores max_tokens (llama-cpp-python's
    # chatml-function-calling with tool_choice auto), whose count says nothing about a cut
    return text is not None and unclosed_json(text)


def unclosed_json(text: str) -> bool:
    """Does ``text`` open a JSON object or array (after any prose or code fence) that it never
    closes? Brackets inside strings do not count; an unterminated string is unclosed too."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    return bool(starts) and json_end(text, min(starts)) is None


def json_end(text: str, start: int) -> int | None:
    """The index just past the bracket that brings the depth opened at ``text[start]`` back to 0
    (brackets inside strings skipped), or None when the text ends first. The generator's parser
    cuts its JSON candidates with it too."""
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return None
