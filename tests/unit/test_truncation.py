"""The one truncation rule (scaleenv_mcp/truncation.py): finish_reason, else the token count, else the text."""

from __future__ import annotations

import pytest

from scaleenv_mcp.truncation import is_truncated, unclosed_json


@pytest.mark.parametrize(("text", "cut"), [
    ('{"a": 1}', False),
    ('Sure: ```json\n{"a": [1, 2]}\n``` hope that helps', False),
    ('{"a": "}"}', False),                     # a bracket inside a string does not close anything
    ('{"a": "say \\"}\\" twice"}', False),     # nor does one after an escaped quote
    ('{"a": [1, 2', True),
    ('{"a": "unterminated', True),
    ('<tool_call>\n{"name": "f", "arguments": {"x": 1', True),
    ('[{"name": "f", "parameters": {}}]', False),
    ("no JSON here at all", False),
])
def test_unclosed_json(text: str, cut: bool):
    assert unclosed_json(text) is cut


def test_the_text_counts_only_when_the_server_reported_no_usage():
    assert is_truncated("length", 3, 100)
    assert is_truncated("tool_calls", 100, 100)                   # every allowed token used
    assert not is_truncated("stop", 40, 100, '{"a": [1')          # counted, short of the cap: a bad reply, not a cut
    assert is_truncated("stop", None, 100, '{"a": [1')            # no usage: the text tells
    assert not is_truncated("stop", None, 100, '{"a": [1]}')


def test_a_count_above_the_cap_says_the_server_ignored_it_and_the_text_tells():
    """llama-cpp-python's chatml-function-calling ignores max_tokens with tool_choice auto: a complete
    call of 60 tokens under a cap of 48 was not cut (issue #31's sweep counted five such as cut)."""
    assert not is_truncated("tool_calls", 60, 48, '{"member_id": "MEM-1", "book_id": "BK-1"}')
    assert is_truncated("tool_calls", 60, 48, '{"member_id": "MEM-1", "book_id": "BK')
    assert is_truncated("tool_calls", 48, 48, '{"member_id": "MEM-1"}')  # exactly the cap: cut
