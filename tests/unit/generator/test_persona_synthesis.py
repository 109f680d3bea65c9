"""Synthesis for a domain that acts for someone: one persona per task, identified first."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.verifier.realism import task_problems
from scaleenv_mcp.verifier.verify import verify_domain

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("persona_synthesis")

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "acting_domains" / "lending_desk"


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task]]:
    package = tmp_path_factory.mktemp("persona") / "lending_desk"
    shutil.copytree(FIXTURE, package)
    report = anyio.run(lambda: synthesize_tasks(package, 20, 1, workers=1))
    assert report.produced == 20, report
    return package, load_tasks(package / "tasks.jsonl")


def test_every_task_identifies_its_persona_first_by_what_the_person_knows(synthesized):
    package, tasks = synthesized
    manifest = load_domain(package).manifest
    identify = {path.tool: set(path.keys) for p in manifest.principals for path in p.identify}
    for task in tasks:
        first = task.actions[0]
        assert first.tool in identify, task.id
        assert set(first.arguments) in [set(p.keys) for pr in manifest.principals for p in pr.identify
                                        if p.tool == first.tool], (task.id, first.arguments)
        assert all(task.user.known.get(k) == v for k, v in first.arguments.items()), "who they are is known, not withheld"


def test_every_acting_argument_comes_from_the_identification(synthesized):
    package, tasks = synthesized
    manifest = load_domain(package).manifest
    for task in tasks:
        records = {(g["action"], g["argument"]): g for g in task.meta.grounding}
        for index, action in enumerate(task.actions):
            tool = manifest.tool(action.tool)
            if tool.acting is None:
                continue
            record = records[(index, tool.acting.argument)]
            assert record["source"] == "call" and record["call"] == 0, (task.id, record)
            assert tool.acting.argument not in task.user.known
        assert not task_problems(task, manifest, load_domain(package).seed), task.id


def test_every_task_names_its_persona_and_the_user_says_no_internal_id(synthesized):
    package, tasks = synthesized
    manifest = load_domain(package).manifest
    internal = manifest.internal_id_columns()
    for task in tasks:
        assert task.persona is not None, task.id
        assert task.persona.kind in {p.kind for p in manifest.principals}
        acting = [a.arguments[manifest.tool(a.tool).acting.argument] for a in [*task.actions, *task.meta.forbidden]
                  if manifest.tool(a.tool).acting is not None]
        assert acting and all(str(who) == task.persona.id for who in acting), (task.id, acting)
        facts = {**task.user.known, **task.user.withheld}
        assert not [k for k in facts if k.removesuffix("_2") in internal], (task.id, facts)
        hidden = [g["select_by"] for g in task.meta.grounding if g.get("select_by")]
        assert not [name for selector in hidden for name in selector if name in internal], (task.id, hidden)


def test_persona_tasks_pass_every_gate(synthesized):
    package, tasks = synthesized
    report = anyio.run(lambda: verify_domain(package, transport="memory", workers=1))
    assert report.passed == len(tasks), report.failures_by_gate


def test_information_tasks_ask_what_a_read_answers_and_change_nothing(synthesized):
    package, tasks = synthesized
    asked = [t for t in tasks if t.kind == "information"]
    assert asked, "the fixture's read tools carry questions: some tasks must ask them"
    manifest = load_domain(package).manifest
    for task in asked:
        assert task.gold is not None and task.gold.diff.is_empty
        assert 1 <= len(task.communicate) <= 3 and task.user.opening.endswith("?")  # a question, then up to two more
        assert not any(manifest.tool(a.tool).is_writing for a in task.actions)
        assert task.user.withheld == {}


def test_refusal_tasks_ask_for_what_a_policy_only_rule_forbids(synthesized, tmp_path: Path):
    package, tasks = synthesized
    refusals = [t for t in tasks if t.kind == "refusal"]
    assert refusals, "the fixture's no_overdue_renewal rule says which loans it forbids renewing"
    for task in refusals:
        assert task.gold is not None and task.gold.diff.is_empty
        assert task.meta.policy_rule == "no_overdue_renewal" and [a.tool for a in task.meta.forbidden] == ["renew_loan"]
        assert "renew" in task.user.opening.lower()
    manifest = load_domain(package).manifest
    for task in refusals:  # the agent has seen the overdue loan before it says no, and must say why
        assert any("loans" in manifest.tool(a.tool).reads for a in task.actions), task.id
        assert not any(manifest.tool(a.tool).is_writing for a in task.actions), task.id
        assert task.communicate[0] < manifest.clock[:10], task.communicate  # the due date passed: the reason
        # one more thing about the same loan, once the request is settled: its answer is told too
        assert len(task.communicate) == 1 + ("Then ask:" in task.user.instruction), task.communicate
    # a refusal whose forbidden call the tool itself refuses proves nothing about the policy
    renewed_already = refusals[0].model_copy(deep=True, update={"id": "tool-says-no"})
    renewed_already.meta.forbidden[0].arguments["loan_id"] = "LN-00002"
    (tmp_path / "t.jsonl").write_text(renewed_already.to_line() + "\n")
    report = anyio.run(lambda: verify_domain(package, tmp_path / "t.jsonl", transport="memory", workers=1,
                                             determinism=False))
    verdict = report.verdicts[0]
    assert verdict.failed_gates == ["forbidden"]
    assert next(g for g in verdict.gates if g.gate == "do_nothing").passed  # saying nothing scores 0
    assert "refused by the tool" in next(g.detail for g in verdict.gates if g.gate == "forbidden")


def test_a_second_value_of_a_fact_is_named_by_its_role():
    from scaleenv_mcp.generator.synthesis.executor import FactBook

    facts = FactBook()
    assert facts.add("email", "ada@example.org") == "email"
    assert facts.add("email", "ada@example.org", role="home_member") == "email"  # the same value: one fact
    assert facts.add("email", "bo@example.org", role="home_member") == "home_member_email"
    assert facts.add("email", "cy@example.org", role="home_member") == "home_member_email_2"
    assert facts.add("email", "di@example.org") == "email_2"
    reserved = frozenset({"phone"})  # the user was identified by phone: a phone they give is someone else's
    assert facts.add("phone", "+1-555-0100", role="home_member", reserved=reserved) == "home_member_phone"
    assert facts.values == {"email": "ada@example.org", "home_member_email": "bo@example.org",
                            "home_member_email_2": "cy@example.org", "email_2": "di@example.org",
                            "home_member_phone": "+1-555-0100"}


def test_a_second_errand_names_its_own_row_not_the_first_ones():
    from scaleenv_mcp.generator.synthesis.templates import _goal_view

    known = {"device_name": "Main Thermostat", "device_name_2": "Kitchen Lights", "email": "ada@example.org"}
    assert _goal_view(known, {"device_name": "Main Thermostat"})["device_name"] == "Main Thermostat"
    assert _goal_view(known, {"device_name_2": "Kitchen Lights"})["device_name"] == "Kitchen Lights"
    assert _goal_view(known, {"device_name_2": "Kitchen Lights"})["email"] == "ada@example.org"
    # the room create_room makes is named by its role beside an automation's name (smart_home-1-0245)
    both = {"name": "Dim the lights at 9", "room_name": "Sunroom"}
    assert _goal_view(both, {"room_name": "Sunroom"}, ["create_room"])["name"] == "Sunroom"
    assert _goal_view(both, {"name": "Dim the lights at 9"}, ["create_automation"])["name"] == "Dim the lights at 9"


def test_a_phrasing_names_what_each_argument_was_given():
    """smart_home-1-0385: the room a device moves into was read off the Kettle Plug's row, so the
    Kettle Plug's name describes the room's source, not the device moved: {device_name} is the
    moved device's own selector and {room_name} the room's label."""
    from scaleenv_mcp.generator.synthesis.templates import _goal_view, argument_slots

    records = [
        {"action": 3, "argument": "device_id", "source": "call", "call": 1, "field": "items[0].device_id",
         "select_by": {"name": "device_name"}},
        {"action": 3, "argument": "room_id", "source": "call", "call": 1, "field": "items[3].room_id",
         "select_by": {"name": "device_name_2"}, "names": {"name": "room_name"}},
        {"action": 3, "argument": "note", "source": "user", "fact": "note_2"},
        {"action": 2, "argument": "lock_state", "source": "user", "fact": "lock_state"},
    ]
    slots = argument_slots(records, {3})
    assert slots == {"device_name": "device_name", "room_name": "room_name", "note": "note_2"}
    known = {"device_name": "Front Door Lock", "device_name_2": "Kettle Plug", "room_name": "Kitchen", "note_2": "x"}
    view = _goal_view(known, {"device_name_2": "Kettle Plug", "room_name": "Kitchen"}, ["move_device"], slots)
    assert (view["device_name"], view["room_name"], view["note"]) == ("Front Door Lock", "Kitchen", "x")


def test_action_tasks_ask_one_more_thing_about_their_story_once_the_errand_is_done(synthesized):
    package, tasks = synthesized
    manifest = load_domain(package).manifest
    asking = [t for t in tasks if t.kind == "action" and t.communicate]
    assert asking, "nine action tasks in ten try a follow-up question and the fixture's reads carry questions"
    for task in asking:
        writes = [i for i, a in enumerate(task.actions) if manifest.tool(a.tool).is_writing]
        assert not manifest.tool(task.actions[-1].tool).is_writing
        assert max(writes) < len(task.actions) - 1, "the question comes after the errand"
        assert "Once that is done, ask:" in task.user.instruction
        # a second question, when there is one, once the first is answered; never one answered already
        assert len(task.communicate) == 1 + ("Once that is answered, ask:" in task.user.instruction) <= 2
        assert len(set(task.communicate)) == len(task.communicate)
        said = {str(v) for v in {**task.user.known, **task.user.withheld}.values()}
        assert not said & set(task.communicate), task.id
