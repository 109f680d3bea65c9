"""Turn what a model actually wrote into a pydantic model, or say precisely why not.

Models wrap JSON in code fences, put prose before and after it, emit two objects, leave a
trailing comma, or drop a required field. This module finds the JSON (fenced block first,
then the first balanced object or array outside strings), decodes it, and validates it; a
failure is a ``ParseProblem`` whose ``message`` is written to be sent back to the model in a
repair round-trip ("your reply ... failed because ..."), so it names the field and the rule.

It never calls a model and never guesses missing values: repair is the model's job.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from scaleenv_mcp.truncation import json_end

__all__ = ["ParseProblem", "extract_json", "parse_reply"]

Model = TypeVar("Model", bound=BaseModel)

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_MAX_BLOCKS = 12  # balanced blocks tried, in order of appearance (prose may hold braces too)


class ParseProblem(Exception):
    """The reply could not be turned into the expected model; ``message`` is for the model to read."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind  # "no_json" | "bad_json" | "invalid"
        self.message = message


def _balanced(text: str, start: int) -> str | None:
    """The balanced {...} or [...] starting at ``start``, skipping brackets inside strings."""
    end = json_end(text, start)
    closer = "}" if text[start] == "{" else "]"
    return text[start:end] if end is not None and text[end - 1] == closer else None


def _candidates(text: str) -> list[str]:
    found = [m.group(1).strip() for m in _FENCE.finditer(text)]
    stripped = text.strip()
    if stripped.startswith("```"):  # an unterminated fence (a truncated reply that was continued)
        found.append(stripped.split("\n", 1)[-1].rstrip("`").strip())
    found.append(stripped)
    # Blocks of the kind the reply opens with: a list nested in a broken object is not the answer.
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    opener = text[min(starts)] if starts else "{"
    blocks = 0
    for index, char in enumerate(text):
        if char == opener and blocks < _MAX_BLOCKS:
            block = _balanced(text, index)
            if block:
                found.append(block)
                blocks += 1
    return found


def extract_json(text: str) -> Any:
    """The JSON value in a reply: fenced, bare, or surrounded by prose.

    Raises:
        ParseProblem: no JSON found, or it does not decode (the decoder's message included).
    """
    if not text or not text.strip():
        raise ParseProblem("no_json", "the reply was empty; reply with one JSON object")
    last_error: str | None = None
    for candidate in _candidates(text):
        for attempt in (candidate, _TRAILING_COMMA.sub(r"\1", candidate)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError as error:
                last_error = f"{error.msg} at line {error.lineno} column {error.colno}"
    if "{" not in text and "[" not in text:
        raise ParseProblem("no_json", "the reply contained no JSON object; reply with one JSON object and nothing else")
    raise ParseProblem("bad_json", f"the JSON in the reply does not decode: {last_error}")


def _describe(error: ValidationError) -> str:
    lines = []
    for item in error.errors()[:12]:
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        lines.append(f"- {where}: {item['msg']}")
    more = len(error.errors()) - 12
    if more > 0:
        lines.append(f"- ... and {more} more problems")
    return "\n".join(lines)


def parse_reply(text: str, model: type[Model], *, tool_arguments: str | None = None,
                context: dict[str, Any] | None = None) -> Model:
    """Parse a reply (or a tool call's arguments) into ``model``.

    A bare list is accepted for a model whose only required field is a list (models often
    answer ``[...]`` when asked for ``{"items": [...]}``).

    Raises:
        ParseProblem: with a message naming each invalid field, for the repair round-trip.
    """
    value = extract_json(tool_arguments if tool_arguments is not None else text)
    if isinstance(value, list):
        lists = [name for name, field in model.model_fields.items() if field.is_required()]
        if len(lists) == 1:
            value = {lists[0]: value}
    if not isinstance(value, dict):
        raise ParseProblem("invalid", f"expected a JSON object, got {type(value).__name__}")
    try:
        return model.model_validate(value, context=context)
    except ValidationError as error:
        whole = _whole_reply_error(tool_arguments if tool_arguments is not None else text)
        if whole:  # what decoded was a part of a broken reply: the part's missing fields would mislead
            raise ParseProblem("bad_json", f"the reply is not valid JSON as a whole: {whole} (a double quote inside "
                               "a string must be escaped as \\\"); only a part of it decoded") from error
        raise ParseProblem("invalid", f"the JSON does not match the required schema:\n{_describe(error)}") from error


def _whole_reply_error(text: str) -> str | None:
    """The decoder's error for the reply as a whole (its fenced block, else the stripped text) when that
    looks like one JSON value but does not decode; None when it decodes or is prose around JSON."""
    fenced = _FENCE.search(text)
    whole = (fenced.group(1) if fenced else text).strip()
    if not whole.startswith(("{", "[")):
        return None
    try:
        json.loads(_TRAILING_COMMA.sub(r"\1", whole))
    except json.JSONDecodeError as error:
        return f"{error.msg} at line {error.lineno} column {error.colno}"
    return None
