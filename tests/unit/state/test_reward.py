"""compute_reward: the one state comparison behind the control API, the verifier and eval."""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.state.diff import RowChange, StateDiff, TableDiff
from scaleenv_mcp.state.reward import compute_reward


def _column(name: str, reward: str = "hard") -> dict[str, Any]:
    return {"name": name, "type": "TEXT", "reward": reward}


# "lines" comes before "orders" in table order, so a line's reference to a created order is
# compared before the orders table is aligned: the case the global alignment exists for.
MANIFEST = DomainManifest.model_validate({
    "slug": "shop", "title": "Shop", "description": "d", "version": "1", "provenance": {"kind": "reference"},
    "clock": "2026-01-01T00:00:00", "policy": "p", "tools": [],
    "tables": [
        {"name": "lines", "primary_key": ["line_id"],
         "columns": [_column("line_id", "exempt"), _column("order_id"), _column("sku")],
         "foreign_keys": [{"columns": ["order_id"], "table": "orders", "references": ["order_id"]}]},
        {"name": "orders", "primary_key": ["order_id"],
         "columns": [_column("order_id", "exempt"), _column("customer"), _column("status"), _column("note", "semantic")]},
    ],
})


def _diff(**tables: TableDiff) -> StateDiff:
    return StateDiff(tables=tables)


def _order(order_id: str, customer: str, note: str = "Leave at the door") -> dict[str, Any]:
    return {"order_id": order_id, "customer": customer, "status": "placed", "note": note}


GOLD = _diff(
    orders=TableDiff(added=[_order("ORD-00010", "ana"), _order("ORD-00011", "ben")]),
    lines=TableDiff(added=[{"line_id": "LN-00020", "order_id": "ORD-00010", "sku": "tea"},
                           {"line_id": "LN-00021", "order_id": "ORD-00011", "sku": "jam"}]),
)


def test_the_gold_itself_and_other_minted_ids_score_one():
    assert compute_reward(MANIFEST, GOLD, GOLD).reward == 1.0
    # the agent created the orders in the other order: other ids, same world
    actual = _diff(
        orders=TableDiff(added=[_order("ORD-00011", "ana"), _order("ORD-00010", "ben")]),
        lines=TableDiff(added=[{"line_id": "LN-00021", "order_id": "ORD-00010", "sku": "jam"},
                               {"line_id": "LN-00020", "order_id": "ORD-00011", "sku": "tea"}]),
    )
    report = compute_reward(MANIFEST, GOLD, actual)
    assert report.reward == 1.0, report.explain()


def test_a_row_referencing_the_wrong_created_row_scores_zero_whatever_the_table_order():
    # tea went on ben's order and jam on ana's: each line has *some* created order, but not the right one
    actual = _diff(
        orders=TableDiff(added=[_order("ORD-00010", "ana"), _order("ORD-00011", "ben")]),
        lines=TableDiff(added=[{"line_id": "LN-00020", "order_id": "ORD-00011", "sku": "tea"},
                               {"line_id": "LN-00021", "order_id": "ORD-00010", "sku": "jam"}]),
    )
    report = compute_reward(MANIFEST, GOLD, actual)
    assert report.reward == 0.0
    assert report.mismatches


def test_an_extra_unrelated_write_scores_zero_and_is_named():
    actual = GOLD.model_copy(deep=True)
    actual.tables["orders"].changed.append(RowChange(key={"order_id": "ORD-00001"}, after={"status": "cancelled"}))
    report = compute_reward(MANIFEST, GOLD, actual)
    assert report.reward == 0.0
    assert [(m.table, m.column, m.reason) for m in report.mismatches] == [("orders", "status", "unexpected change")]
    assert report.table_match == {"lines": 1.0, "orders": round(2 / 3, 4)}


def test_a_harmless_read_leaves_no_trace_and_a_missing_write_scores_zero():
    assert compute_reward(MANIFEST, StateDiff(), StateDiff()).reward == 1.0
    report = compute_reward(MANIFEST, GOLD, _diff(orders=GOLD.tables["orders"]))
    assert report.reward == 0.0
    assert {m.reason for m in report.mismatches} == {"expected row was not created"}


def test_semantic_columns_pass_paraphrases_and_fail_changed_facts():
    def with_note(note: str) -> StateDiff:
        return _diff(orders=TableDiff(added=[_order("ORD-00010", "ana", note)]))

    gold = with_note("Leave at the door, not with a neighbour")
    assert compute_reward(MANIFEST, gold, with_note("Leave it at the door, not with neighbours")).reward == 1.0
    assert compute_reward(MANIFEST, gold, with_note("Leave it with a neighbour")).reward == 0.0


def test_hard_values_compare_canonically_and_exempt_columns_not_at_all():
    gold = _diff(orders=TableDiff(changed=[RowChange(key={"order_id": "ORD-00001"}, after={"status": "shipped"})]))
    same = _diff(orders=TableDiff(changed=[RowChange(key={"order_id": "ORD-00001"}, after={"status": "shipped"})]))
    other = _diff(orders=TableDiff(changed=[RowChange(key={"order_id": "ORD-00001"}, after={"status": "held"})]))
    assert compute_reward(MANIFEST, gold, same).reward == 1.0
    report = compute_reward(MANIFEST, gold, other)
    assert report.reward == 0.0 and report.mismatches[0].expected == "shipped" and report.mismatches[0].actual == "held"
