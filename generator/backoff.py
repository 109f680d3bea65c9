"""The run's retry budget and backoff: how long to wait after a 429 or 5xx, and when to give up.

Retries are shared by the whole run rather than counted per request: an endpoint that is
down should end the run after a bounded number of attempts and a bounded time, with exit
code 3 and a message that says so, not after (requests x retries) attempts. Jitter comes
from a seeded ``random.Random`` so two runs with the same seed wait the same amounts
(STYLE: determinism), and a server's ``Retry-After`` is honoured up to the cap.
"""

from __future__ import annotations

import asyncio
import random

from scaleenv_mcp.errors import HarnessError

__all__ = ["LLMEndpointError", "RetryBudget", "RetryBudgetExhaustedError"]


class LLMEndpointError(HarnessError):
    """The endpoint refused the request for a reason retrying cannot fix (401, 403, 404, bad request)."""

    code = "llm_endpoint"


class RetryBudgetExhaustedError(HarnessError):
    """The run used its whole retry budget on failing requests: the endpoint is down or overloaded."""

    code = "retry_budget_exhausted"


class RetryBudget:
    """A shared count of retries with exponential backoff and seeded jitter.

    Args:
        total: retries allowed over the whole run (0 means no retry at all).
        base: first wait in seconds; doubles per consecutive failure of one request.
        cap: longest single wait in seconds.
        seed: seeds the jitter.
    """

    def __init__(self, total: int, *, base: float = 1.0, cap: float = 30.0, seed: int = 0) -> None:
        self.total = total
        self.base = base
        self.cap = cap
        self.used = 0
        self._random = random.Random(seed)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before attempt ``attempt + 1`` of one request (full jitter in [0.5, 1.5))."""
        if retry_after is not None and retry_after >= 0:
            return min(self.cap, retry_after)
        return min(self.cap, self.base * (2 ** attempt)) * (0.5 + self._random.random())

    async def spend(self, attempt: int, reason: str, retry_after: float | None = None) -> None:
        """Take one retry from the budget and wait; raise when none is left.

        Raises:
            RetryBudgetExhaustedError: naming the last failure, so the user knows what failed.
        """
        if self.used >= self.total:
            raise RetryBudgetExhaustedError(
                f"gave up after {self.used} retries (the run's retry budget, --retry-budget {self.total}); "
                f"last failure: {reason}. Work done so far is kept in the workdir: run the same command "
                "again to resume without repeating any answered request.")
        self.used += 1
        await asyncio.sleep(self.delay(attempt, retry_after))
