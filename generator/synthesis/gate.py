"""The gate that decides whether a task grows by one more chain (paper phase 2, step 4).

After the seed chain C1 and its expansion H, further chains C2..Cn are added to the task
while a gate accepts, looking at H's structural complexity c(H), a feasibility score and
the tools left. Offline, ``RuleGate`` decides by a fixed, seeded rule; the generator's
LLM mode passes its own gate (the ``expansion_gate`` role, ``scaleenv_mcp.generator.stages.tasks_stage``)
that answers the same question with the same model. Either way the synthesiser keeps the
hard limits (at most ``MAX_CHAINS`` chains, a writing tool left to end the next one), so a
gate can make a task richer but never unbounded.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from pydantic import BaseModel, Field

__all__ = ["ChainGate", "ExpansionDecision", "GateView", "MAX_CHAINS", "RuleGate"]

MAX_CHAINS = 3


class GateView(BaseModel):
    """What a gate sees of a task between chains."""

    task_id: str
    complexity: float = Field(description="c(H) = (|V| + 0.5 |E|) / 50 over the expanded tool set H.")
    whole: float = Field(description="c over all the tools a chain may use: the scale c(H) is read against "
                                     "(dense domains reach c(H) > 2 with |H| = 20).")
    expanded: list[str] = Field(description="H, in the order the expansion added its tools.")
    chains: list[list[str]] = Field(description="The chains so far, C1 first.")
    left: list[str] = Field(description="Tools a chain could use that are not in H yet.")
    answered: float = Field(description="Share of the tools the expansion tried that answered (after patches).")


class ExpansionDecision(BaseModel):
    add_chain: bool = Field(description="True to add another chain of tools to the task.")
    feasibility: float = Field(default=0.5, ge=0, le=1, description="How feasible the expanded task stays, 0-1.")
    reason: str = ""


ChainGate = Callable[[GateView, random.Random], Awaitable[ExpansionDecision]]


class RuleGate:
    """Accepts a further chain with a falling probability while the task is still small and feasible.

    Feasibility is measured, not guessed: the share of tools the expansion tried that gave a
    real observation. A task whose H is already complex (c(H) >= ``ceiling`` times the
    whole graph's c) or that has no tools left to draw on stops growing.
    """

    def __init__(self, chances: tuple[float, ...] = (0.85, 0.5), ceiling: float = 0.6,
                 min_feasibility: float = 0.35) -> None:
        self.chances, self.ceiling, self.min_feasibility = chances, ceiling, min_feasibility

    async def __call__(self, view: GateView, rng: random.Random) -> ExpansionDecision:
        draw = rng.random()  # always drawn, so later choices do not depend on which test failed
        feasibility = round(view.answered, 4)
        index = len(view.chains) - 1
        if index >= len(self.chances):
            return ExpansionDecision(add_chain=False, feasibility=feasibility, reason="enough chains")
        if view.complexity >= self.ceiling * view.whole:
            return ExpansionDecision(add_chain=False, feasibility=feasibility,
                                     reason=f"c(H) {view.complexity} >= {self.ceiling} x {view.whole}")
        if feasibility < self.min_feasibility:
            return ExpansionDecision(add_chain=False, feasibility=feasibility, reason=f"feasibility {feasibility} too low")
        if not view.left:
            return ExpansionDecision(add_chain=False, feasibility=feasibility, reason="no tools left")
        accept = draw < self.chances[index]
        return ExpansionDecision(add_chain=accept, feasibility=feasibility,
                                 reason=f"drew {draw:.3f} against {self.chances[index]}")
