"""Kind quotas: a set holds each kind's share, taken in candidate order, whatever kind passes most."""

from __future__ import annotations

from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.generator.synthesis.quotas import kind_targets, select_by_kind, shortfall


def _task(index: int, kind: str) -> Task:
    return Task.model_validate({"id": f"d-1-{index:04d}", "domain": "d", "kind": kind, "difficulty": "easy",
                                "user": {"opening": "Hi.", "instruction": "You are a customer."}, "actions": []})


def test_targets_give_each_buildable_kind_its_share_and_actions_the_rest():
    assert kind_targets(250, {"action", "information", "refusal"}) == {"information": 50, "refusal": 30, "action": 170}
    assert kind_targets(10, {"action"}) == {"action": 10}


def test_each_kind_is_taken_in_index_order_up_to_its_target():
    kinds = ["information"] * 6 + ["action"] * 3 + ["refusal"] * 2 + ["action"] * 5
    accepted = {i: _task(i, k) for i, k in enumerate(kinds)}
    targets = {"information": 2, "refusal": 1, "action": 7}
    chosen = select_by_kind(accepted, 10, targets)
    assert [accepted[i].kind for i in chosen].count("information") == 2
    assert chosen == [0, 1, 6, 7, 8, 9, 11, 12, 13, 14]
    assert shortfall(accepted, targets)["information"] == 0 and shortfall({}, targets)["refusal"] == 1


def test_a_kind_that_falls_short_is_filled_by_the_earliest_of_the_rest():
    accepted = {i: _task(i, "information") for i in range(8)} | {8: _task(8, "action")}
    chosen = select_by_kind(accepted, 5, {"information": 2, "action": 3})
    assert chosen == [0, 1, 2, 3, 8]
