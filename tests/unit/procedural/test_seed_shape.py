"""The seed-shape check: status frequencies, repeated free text and marker suffixes are measured and named."""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.procedural.seed_shape import check_seed_shape


def _manifest(typical: list[str]) -> DomainManifest:
    columns = [
        {"name": "alarm_id", "type": "TEXT", "reward": "hard"},
        {"name": "label", "type": "TEXT", "reward": "hard", "user_visible": True},
        {"name": "status", "type": "TEXT", "reward": "hard", "typical": typical},
        {"name": "note", "type": "TEXT", "reward": "semantic", "nullable": True},
    ]
    return DomainManifest.model_validate({
        "slug": "alarms", "title": "Alarms", "description": "Alarm events.", "version": "1",
        "provenance": {"kind": "reference"}, "clock": "2026-03-10T09:00:00", "policy": "Be careful.",
        "tables": [{"name": "alarms", "primary_key": ["alarm_id"], "columns": columns}],
        "tools": [{"name": "list_alarms", "description": "List alarms.", "reads": ["alarms"], "writes": [],
                   "input_schema": {"type": "object", "properties": {}}, "output_schema": {"type": "object"}}],
    })


def _rows(statuses: list[str], notes: list[str | None] | None = None, labels: list[str] | None = None) -> dict[str, Any]:
    notes = notes or [None] * len(statuses)
    labels = labels or [f"Alarm at door {i}" for i in range(len(statuses))]
    return {"alarms": [{"alarm_id": f"ALM-{i}", "label": labels[i], "status": s, "note": notes[i]}
                       for i, s in enumerate(statuses)]}


def test_a_live_looking_seed_has_no_problems() -> None:
    statuses = ["resolved"] * 30 + ["acknowledged"] * 6 + ["open"] * 4
    notes = [f"Smoke from the toaster on day {i}, reset the panel" for i in range(40)]
    shape = check_seed_shape(_manifest(["resolved"]), _rows(statuses, notes))
    assert shape.problems == []
    assert shape.statuses == {"alarms.status": {"resolved": 30, "acknowledged": 6, "open": 4}}
    assert shape.most_repeated_text == {"alarms.note": 1}


def test_open_alarms_dominating_are_named() -> None:
    statuses = ["open"] * 19 + ["acknowledged"] * 16 + ["resolved"] * 11
    problems = check_seed_shape(_manifest(["resolved", "acknowledged"]), _rows(statuses)).problems
    assert problems == ["alarms.status: 'open' holds 19 of 46 rows; an exception holds at most 25%"]
    problems = check_seed_shape(_manifest(["resolved"]), _rows(statuses)).problems
    assert any("typical values ['resolved'] hold 11 of 46 rows" in p for p in problems)


def test_a_status_column_without_typical_values_is_named() -> None:
    problems = check_seed_shape(_manifest([]), _rows(["resolved"] * 25)).problems
    assert problems == ["alarms.status: declares no typical values (the statuses most rows of a live system hold)"]
    assert check_seed_shape(_manifest([]), _rows(["resolved"] * 5)).problems == []  # too few rows to judge


def test_free_text_written_by_many_is_named_and_short_labels_are_not() -> None:
    notes = ["Sender not available in the morning"] * 5 + [f"Gate code {i} works after six" for i in range(15)]
    shape = check_seed_shape(_manifest(["resolved"]), _rows(["resolved"] * 20, notes))
    assert shape.most_repeated_text == {"alarms.note": 5}
    assert shape.problems == ["alarms.note: 'Sender not available in the morning' is written 5 times (at most 3): "
                              "vary the free text as real people would"]
    short = check_seed_shape(_manifest(["resolved"]), _rows(["resolved"] * 20, ["False alarm"] * 20))
    assert short.problems == []


def test_marker_suffixes_are_named_and_real_words_are_not() -> None:
    for marked in ("Goodnight (old)", "Front door II", "Hall sensor - copy", "Kitchen (2)", "Dan Brooks Jr."):
        labels = [marked] + [f"Alarm {i}" for i in range(1, 20)]
        problems = check_seed_shape(_manifest(["resolved"]), _rows(["resolved"] * 20, labels=labels)).problems
        assert len(problems) == 1 and "marker suffix" in problems[0], marked
    labels = ["Update onboarding email copy", "Picker Arm Prototype v4"] + [f"Alarm {i}" for i in range(2, 20)]
    assert check_seed_shape(_manifest(["resolved"]), _rows(["resolved"] * 20, labels=labels)).problems == []
