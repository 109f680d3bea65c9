"""Idempotent tool calls: a client-chosen call id makes a retried call safe.

Clients that reconnect and retry (verifiers' MCP toolsets, NeMo Gym's forwarding toolset, any
client that opens a session per call) may send a write again whose answer they lost. A call
carrying ``_meta["scaleenv/call_id"]`` is run at most once per episode: the same id with the
same tool and arguments gets the first answer back (also while the first is still running),
without running the tool or touching the trace; the same id with another tool or other
arguments is refused (``CallIdReusedError``) and nothing runs. A call that failed in the
environment (a lost worker, a limit) wrote nothing, so its id is forgotten and a retry runs it.

Memory is bounded: every id's fingerprint is kept for the episode's life (at most
``max_calls`` of them), the answers only of the last ``KEPT_ANSWERS``; a repeat of an older id
is refused with the reason, never run twice. This module must not run calls itself: the
registry passes it the call to make (tests/integration/test_keyed_episodes.py).
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from scaleenv_mcp.episodes.trace import CallOutcome
from scaleenv_mcp.errors import CallIdReusedError, UsageError

__all__ = ["CALL_ID_META_KEY", "KEPT_ANSWERS", "CallLedger"]

CALL_ID_META_KEY = "scaleenv/call_id"
KEPT_ANSWERS = 256
MAX_CALL_ID_LENGTH = 200


def _fingerprint(tool: str, arguments: dict[str, Any]) -> str:
    return json.dumps([tool, arguments], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


class CallLedger:
    """The call ids one episode has seen: id -> (fingerprint of the call, its answer)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}
        self._answers: OrderedDict[str, asyncio.Future[CallOutcome]] = OrderedDict()

    def clear(self) -> None:
        """Forget every id (the episode went back to its start state or to a snapshot)."""
        self._seen.clear()
        self._answers.clear()

    def copy(self) -> CallLedger:
        """The ids answered so far, for a fork (whose state holds those calls' writes)."""
        ledger = CallLedger()
        running = {k for k, answer in self._answers.items() if not answer.done()}
        ledger._seen = {k: v for k, v in self._seen.items() if k not in running}
        ledger._answers = OrderedDict((k, a) for k, a in self._answers.items() if k not in running)
        return ledger

    async def run(self, call_id: str, tool: str, arguments: dict[str, Any],
                  call: Callable[[], Awaitable[CallOutcome]]) -> CallOutcome:
        """``call()`` once for ``call_id``; a repeat of the same call gets its first answer.

        Raises:
            CallIdReusedError: the id was used for another tool or other arguments (nothing runs).
            UsageError: the id is empty or too long, or its answer is no longer kept.
        """
        if not call_id or len(call_id) > MAX_CALL_ID_LENGTH:
            raise UsageError(f"a call id must be 1 to {MAX_CALL_ID_LENGTH} characters")
        fingerprint = _fingerprint(tool, arguments)
        seen = self._seen.get(call_id)
        if seen is not None:
            if seen != fingerprint:
                raise CallIdReusedError(
                    f"call id {call_id!r} was already used for another call ({json.loads(seen)[0]} with other "
                    "arguments); nothing was run: give each distinct call its own id")
            answer = self._answers.get(call_id)
            if answer is None:
                raise UsageError(f"call id {call_id!r} was answered long ago and its answer is no longer kept (only "
                                 f"the last {KEPT_ANSWERS} are); it was not run again")
            return await asyncio.shield(answer)
        answer = asyncio.get_running_loop().create_future()
        self._seen[call_id] = fingerprint
        self._answers[call_id] = answer
        while len(self._answers) > KEPT_ANSWERS:
            self._answers.popitem(last=False)
        try:
            outcome = await call()
        except BaseException as error:
            # Failed in the environment, so nothing was written: forget the id, a retry runs it.
            self._seen.pop(call_id, None)
            self._answers.pop(call_id, None)
            answer.set_exception(error)
            answer.exception()  # retrieved here: waiters re-raise it, nobody else needs to
            raise
        answer.set_result(outcome)
        return outcome
