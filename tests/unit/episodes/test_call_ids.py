"""The call-id ledger on its own: run once, answer repeats, refuse reuse, forget failures, stay bounded."""

from __future__ import annotations

import asyncio

import pytest

from scaleenv_mcp.episodes import call_ids
from scaleenv_mcp.episodes.call_ids import CallLedger
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind
from scaleenv_mcp.errors import CallIdReusedError, EnvironmentFaultError, UsageError

pytestmark = pytest.mark.anyio


class Tool:
    """Counts how often the ledger really runs a call."""

    def __init__(self) -> None:
        self.runs = 0

    async def __call__(self) -> CallOutcome:
        self.runs += 1
        await asyncio.sleep(0.01)
        return CallOutcome(kind=OutcomeKind.success, result={"run": self.runs})


async def test_a_repeat_gets_the_first_answer_and_reuse_runs_nothing():
    ledger, tool = CallLedger(), Tool()
    first = await ledger.run("a", "borrow", {"x": 1, "y": 2}, tool)
    again = await ledger.run("a", "borrow", {"y": 2, "x": 1}, tool)  # key order does not matter
    assert first is again and tool.runs == 1
    with pytest.raises(CallIdReusedError, match="already used for another call"):
        await ledger.run("a", "borrow", {"x": 2, "y": 2}, tool)
    with pytest.raises(CallIdReusedError):
        await ledger.run("a", "return", {"x": 1, "y": 2}, tool)
    assert tool.runs == 1


async def test_concurrent_repeats_wait_for_the_one_run():
    ledger, tool = CallLedger(), Tool()
    answers = await asyncio.gather(*(ledger.run("a", "t", {}, tool) for _ in range(5)))
    assert tool.runs == 1 and all(a is answers[0] for a in answers)


async def test_a_call_that_failed_in_the_environment_is_forgotten_and_runs_again():
    ledger, tool = CallLedger(), Tool()

    async def lost() -> CallOutcome:
        raise EnvironmentFaultError("worker lost")

    with pytest.raises(EnvironmentFaultError):
        await ledger.run("a", "t", {}, lost)
    assert (await ledger.run("a", "t", {}, tool)).result == {"run": 1}


async def test_only_recent_answers_are_kept_and_an_old_repeat_is_refused_not_rerun(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(call_ids, "KEPT_ANSWERS", 2)
    ledger, tool = CallLedger(), Tool()
    for key in ("a", "b", "c"):
        await ledger.run(key, "t", {"k": key}, tool)
    with pytest.raises(UsageError, match="no longer kept"):
        await ledger.run("a", "t", {"k": "a"}, tool)
    with pytest.raises(CallIdReusedError):  # its fingerprint is kept for the episode's life
        await ledger.run("a", "t", {"k": "other"}, tool)
    assert (await ledger.run("c", "t", {"k": "c"}, tool)).result == {"run": 3} and tool.runs == 3
    fork = ledger.copy()
    assert (await fork.run("c", "t", {"k": "c"}, tool)).result == {"run": 3}
    ledger.clear()
    assert (await ledger.run("a", "t", {"k": "a"}, tool)).result == {"run": 4}


@pytest.mark.parametrize("bad", ["", "x" * 201])
async def test_call_ids_are_bounded(bad: str):
    with pytest.raises(UsageError, match="1 to 200 characters"):
        await CallLedger().run(bad, "t", {}, Tool())
