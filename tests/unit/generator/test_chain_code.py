"""Seed chains written as code: read with ast (never run), refused with a reason, run like sampled chains."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.synthesis.chain_code import (
    ChainCodeError,
    ChainRequest,
    StartRow,
    WrittenChain,
    parse_chain_code,
)
from scaleenv_mcp.generator.tasks import synthesize_tasks

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"
MANIFEST = load_domain(FIXTURE).manifest

GOOD = '''```python
def chain(call):
    """Find the book, then borrow it."""
    found = call("find_books", {"text": "Dune", "available_only": True})
    book = found["items"][0]["book_id"]
    return call("borrow_book", {"member_id": "MEM-00001", "book_id": book})
```'''


def test_a_straight_line_chain_becomes_steps_with_literals_and_references():
    steps = parse_chain_code(GOOD, MANIFEST)
    assert [s.tool for s in steps] == ["find_books", "borrow_book"]
    assert steps[0].literals == {"text": "Dune", "available_only": True} and steps[0].references == {}
    assert steps[1].literals == {"member_id": "MEM-00001"}
    assert steps[1].references == {"book_id": (0, ("items", 0, "book_id"))}


@pytest.mark.parametrize(("code", "reason"), [
    ("import os\ndef chain(call):\n    return call('get_member', {'member_id': 'M'})", "exactly one function"),
    ("def chain(call):\n    for i in range(3):\n        call('get_member', {'member_id': 'M'})", "For is not allowed"),
    ("def chain(call):\n    return os.system('rm -rf /')", "only function a chain may call"),
    ("def chain(call):\n    return call.__class__", "only call(...) statements"),
    ("def chain(call):\n    return call('drop_tables', {})", "unknown tool 'drop_tables'"),
    ("def chain(call):\n    return call('get_member', {'id': 'M'})", "has no parameter 'id'"),
    ("def chain(call):\n    return call('return_book', {'loan_id': later['loan_id']})", "used before it is bound"),
    ("def chain(call):\n    return call('get_member', {'member_id': open('/etc/passwd').read()})", "must be a literal"),
    ("def chain(call, os):\n    return call('get_member', {'member_id': 'M'})", "exactly one parameter"),
    ("def chain(call):\n    m = 'MEM-00001'\n    return call('get_member', {'member_id': m})", "may only hold a call's result"),
    ("def chain(call):\n" + "    call('get_member', {'member_id': 'M'})\n" * 7, "at most 6 calls"),
    ("def chain(call):\n    return call('get_member', {'member_id': 'M'}", "line 2"),
])
def test_anything_else_is_refused_with_the_line_and_why(code: str, reason: str):
    with pytest.raises(ChainCodeError, match=re.escape(reason)):
        parse_chain_code(code, MANIFEST)


NEW_MEMBER = {"member_id": "MEM-00050", "name": "Grace Hopper", "email": "grace@example.org", "status": "active",
              "max_loans": 2}


@pytest.mark.anyio
async def test_written_chains_are_run_verified_and_recorded(tmp_path: Path):
    target = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, target)
    requests: list[ChainRequest] = []

    async def writer(request: ChainRequest) -> WrittenChain:
        requests.append(request)
        if len(requests) % 3 == 0:  # refused: the sampled chain is used
            return WrittenChain(code="def chain(call):\n    while True:\n        pass")
        if request.end_tool == "borrow_book":  # a new member, written as a start-state row, borrows
            rows = [StartRow(table="members", row=NEW_MEMBER),
                    StartRow(table="members", row={**NEW_MEMBER, "member_id": "MEM-00001"}),  # an id that exists
                    StartRow(table="members", row={**NEW_MEMBER, "member_id": "MEM-00051", "shoe_size": 9})]
            return WrittenChain(rows=rows, code=(
                "def chain(call):\n    found = call('find_books', {'text': 'a'})\n"
                "    return call('borrow_book', {'member_id': 'MEM-00050', 'book_id': found['items'][0]['book_id']})"))
        return WrittenChain(code=f"def chain(call):\n    return call('{request.end_tool}', {{}})")  # arguments left to the executor

    report = await synthesize_tasks(target, 6, 3, workers=1, writer=writer)
    tasks = load_tasks(target / "tasks.jsonl")
    assert report.produced == 6 and requests
    assert report.chain_code.get("refused", 0) >= 1 and "not allowed" in report.chain_code_examples["refused"]
    assert report.chain_code["rows_refused"] == 2 * report.chain_code["rows_kept"] > 0  # the duplicate and shoe_size
    assert "UNIQUE" in report.chain_code_examples["rows_refused"] or "shoe_size" in report.chain_code_examples["rows_refused"]
    written = [t for t in tasks if t.meta.seed_chain_code]
    assert report.chain_code.get("used", 0) >= len(written) >= 1
    for task in written:
        steps = parse_chain_code(task.meta.seed_chain_code or "", MANIFEST)
        assert task.meta.seed_chain == [s.tool for s in steps]
        assert [a.tool for a in task.actions][:len(steps)] == [s.tool for s in steps]
        assert task.verified is not None and task.verified.result == "pass"
    borrowed = [t for t in written if t.meta.seed_chain == ["find_books", "borrow_book"]]
    assert borrowed, "the written chain with a reference and a written row should be kept"
    for task in borrowed:  # the written member row is in the start state, and the loan is hers
        assert any(op.table == "members" and op.row == NEW_MEMBER and not op.distractor for op in task.setup)
        assert task.actions[-1].arguments["member_id"] == "MEM-00050"
    assert all(r.tools and r.tables and r.end_tool in {t["name"] for t in r.tools} for r in requests)
