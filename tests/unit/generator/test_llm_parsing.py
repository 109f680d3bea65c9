"""What models actually write, turned into pydantic models or into a message they can act on."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from scaleenv_mcp.generator.drafts import ToolCode
from scaleenv_mcp.generator.parsing import ParseProblem, extract_json, parse_reply


class Card(BaseModel):
    title: str
    keywords: list[str]


class Items(BaseModel):
    items: list[int]


@pytest.mark.parametrize("text", [
    '{"title": "Pet care", "keywords": ["pets"]}',
    '```json\n{"title": "Pet care", "keywords": ["pets"]}\n```',
    '```\n{"title": "Pet care", "keywords": ["pets"]}\n```\n',
    'Sure! Here it is:\n{"title": "Pet care", "keywords": ["pets"]}\nAnything else?',
    '{"title": "Pet care", "keywords": ["pets",],}',                       # trailing commas
    'Thoughts first {not json} then {"title": "Pet care", "keywords": ["pets"]}',
    '```json\n{"title": "Pet care", "keywords": ["pets"]}',                 # unterminated fence
])
def test_json_is_found_in_fences_prose_and_sloppy_syntax(text: str):
    assert parse_reply(text, Card) == Card(title="Pet care", keywords=["pets"])


def test_braces_inside_strings_do_not_end_the_object():
    text = 'Here: {"title": "a } tricky { title", "keywords": ["x]"]} done'
    assert parse_reply(text, Card).title == "a } tricky { title"


def test_a_bare_list_fills_the_only_required_list_field():
    assert parse_reply("[1, 2, 3]", Items) == Items(items=[1, 2, 3])


def test_a_missing_field_is_named_for_the_repair_round_trip():
    with pytest.raises(ParseProblem) as caught:
        parse_reply('{"title": "Pet care"}', Card)
    assert caught.value.kind == "invalid"
    assert "keywords" in caught.value.message and "Field required" in caught.value.message


@pytest.mark.parametrize(("text", "kind"), [("", "no_json"), ("I cannot help with that.", "no_json"),
                                            ('{"title": "Pet care", "keywords": [', "bad_json")])
def test_no_json_and_broken_json_are_told_apart(text: str, kind: str):
    with pytest.raises(ParseProblem) as caught:
        extract_json(text)
    assert caught.value.kind == kind


def test_tool_call_arguments_win_over_the_content():
    assert parse_reply("ignored", Card, tool_arguments='{"title": "T", "keywords": []}').title == "T"


def test_validators_see_the_context():
    code = 'def get_pet(ctx, pet_id: str) -> dict:\n    return {}\n'
    assert parse_reply(f'{{"code": {code!r}}}'.replace("'", '"'), ToolCode, context={"tool": "get_pet"}).code
    with pytest.raises(ParseProblem) as caught:
        parse_reply('{"code": "def other(ctx):\\n    return {}"}', ToolCode, context={"tool": "get_pet"})
    assert "def get_pet(ctx" in caught.value.message


def test_a_broken_reply_is_told_its_json_error_not_the_fields_of_the_part_that_decoded():
    """A capable model's reply through the relay (#27): an unescaped quote inside a string broke the
    object; an inner object decoded, and the repair used to say a top-level field was missing."""
    text = '{"items": [{"name": "a", "description": "returns {day, slots: ["09:00", ...]}"}, {"name": "b"}]}'
    with pytest.raises(ParseProblem) as caught:
        parse_reply(text, Items)
    assert caught.value.kind == "bad_json"
    assert "not valid JSON as a whole: Expecting ',' delimiter at line 1 column" in caught.value.message
    assert "must be escaped" in caught.value.message and "Field required" not in caught.value.message
