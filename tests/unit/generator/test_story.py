"""A task's later errands and questions stay in its story; chains take real steps; amounts are said as
people say them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.generator.graph import build_graph
from scaleenv_mcp.generator.synthesis.chain import ChainSampler
from scaleenv_mcp.generator.synthesis.lookups import lookup_sources
from scaleenv_mcp.generator.synthesis.slots import fill_slots, money, slot_names
from scaleenv_mcp.generator.synthesis.story import Story, written_rows
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.state.diff import RowChange, StateDiff, TableDiff

SMART_HOME = Path(__file__).resolve().parents[3] / "domains" / "smart_home"


@pytest.fixture(scope="module")
def home() -> tuple:
    package = load_domain(SMART_HOME)
    world = World(package.manifest, package.seed)
    people = {row["user_id"] for row in world.rows["users"]}
    return package.manifest, world, people


def test_the_story_of_a_device_is_the_device_its_home_and_its_room_not_its_people(home):
    manifest, world, people = home
    device = world.rows["devices"][0]
    story = Story.around(manifest, world, ("devices", device), people)
    assert {device["device_id"], device["home_id"]} <= story.ids
    assert not story.ids & {str(p) for p in people}
    other_home = next(d for d in world.rows["devices"] if d["home_id"] != device["home_id"])
    assert story.names({"device_id": device["device_id"], "name": "x"})
    assert not story.names({"device_id": other_home["device_id"], "home_id": other_home["home_id"]})
    assert "homes" in story.tables and "users" not in story.tables


def test_a_write_is_on_the_story_when_an_argument_names_a_story_row_but_not_by_the_acting_person(home):
    manifest, world, people = home
    device = world.rows["devices"][0]
    story = Story.around(manifest, world, ("devices", device), people)
    assert story.touched_by({"home_id": device["home_id"], "mode": "away"})
    owner = next(iter(people))
    assert not story.touched_by({"acting_user_id": owner, "mode": "away"}, skip="acting_user_id")
    assert not story.touched_by({"name": device["device_id"]}), "only key arguments name a row"


def test_rows_the_task_wrote_join_its_story(home):
    manifest, world, people = home
    device = world.rows["devices"][0]
    diff = StateDiff(tables={"rooms": TableDiff(added=[{"room_id": "ROOM-99999", "home_id": device["home_id"]}])})
    story = Story.around(manifest, world, ("devices", device), people, diff)
    assert "ROOM-99999" in story.ids and "rooms" in story.tables
    assert story.touched_by({"room_id": "ROOM-99999"})


def test_a_story_without_an_anchor_is_what_the_task_wrote():
    package = load_domain(SMART_HOME)
    world = World(package.manifest, package.seed)
    assert Story.around(package.manifest, world, None, set()).ids == frozenset()


def test_money_slots_say_minor_units_as_amounts():
    assert money(125000, "USD") == "$1,250.00"
    assert money(-250, "EUR") == "-€2.50"
    assert money(999, "CHF") == "CHF 9.99"
    assert money("n/a", "USD") == "n/a" and money(5, None) == "5"
    text = "I'd like to deposit {amount_cents:money} into account {account_id}."
    assert slot_names(text) == ["amount_cents", "account_id"]
    assert fill_slots(text, {"amount_cents": 50000, "account_id": "ACC-1"}, "USD") == \
        "I'd like to deposit $500.00 into account ACC-1."
    assert fill_slots("{n} items", {"n": 3}) == "3 items"


def test_seed_chains_take_steps_that_find_something_and_never_identify(home):
    """A chain step gives the next tool an id it did not need itself (no automations-then-rooms of the
    same home), and identification stays the task's opening, never a step inside a chain."""
    manifest, world, _ = home
    sampler = ChainSampler(manifest, build_graph(manifest), world, 1)
    identifying = {path.tool for p in manifest.principals for path in p.identify}
    rng = random.Random(0)
    steps = 0
    for index in range(200):
        plan = sampler.sample(sampler.end_tool(index), 4, rng)
        assert not identifying & set(plan.tools)
        for source, target in zip(plan.tools, plan.tools[1:]):
            needs = set(manifest.tool(source).input_schema.get("required", []))
            assert set(sampler.feeds[(source, target)]) - needs, (source, target)
            steps += 1
    assert steps > 100, "chains still grow past one tool"
    passes_on = [(s, t) for (s, t), fed in sampler.feeds.items()
                 if not set(fed) - set(manifest.tool(s).input_schema.get("required", []))]
    assert passes_on, "smart_home has reads that only pass their own input on: the filter is exercised"


def test_a_device_is_looked_up_among_devices_not_through_a_scene(home):
    """A read in a chain is where a person's agent looks the id up (find_devices), not one that only
    mentions it (a scene's actions name devices): get_scene reads devices too, but not only them."""
    manifest, world, _ = home
    sampler = ChainSampler(manifest, build_graph(manifest), world, 1)
    assert "device_id" in sampler.feeds[("get_scene", "set_light_brightness")]
    assert not sampler._finds("get_scene", "set_light_brightness")
    assert sampler._finds("find_devices", "set_light_brightness")
    lookups = lookup_sources(manifest, build_graph(manifest), world)
    order = lookups[("set_light_brightness", "device_id")]
    assert order.index("find_devices") < order.index("get_scene")


def test_an_errand_that_puts_a_row_back_undoes_the_one_before(home):
    """Deposit then withdraw the same cash, add a member then remove them: the first errand's row drops
    out of what the task wrote, so the second one undoes it; touching another row does not."""
    manifest, world, _ = home
    device = world.rows["devices"][0]
    key = {"device_id": device["device_id"]}
    moved = StateDiff(tables={"devices": TableDiff(changed=[RowChange(key=key, before={"room_id": "A"},
                                                                      after={"room_id": "B"})])})
    added = StateDiff(tables={"rooms": TableDiff(added=[{"room_id": "ROOM-99999", "home_id": device["home_id"]}])})
    both = StateDiff(tables={**moved.tables, **added.tables})
    assert written_rows(manifest, moved) <= written_rows(manifest, both)
    assert not written_rows(manifest, moved) <= written_rows(manifest, added), "the move was put back"
    assert ("rooms", repr(["ROOM-99999"])) in written_rows(manifest, added)


def test_taking_back_a_row_the_task_added_or_changed_is_an_undo_but_cancelling_another_is_not(home):
    manifest, world, people = home
    device = world.rows["devices"][0]
    diff = StateDiff(tables={"access_codes": TableDiff(added=[{"code_id": "ACC-99999", "device_id": device["device_id"]}])})
    story = Story.around(manifest, world, ("devices", device), people, diff)
    assert story.added_of("access_codes")[0]["code_id"] == "ACC-99999"
    assert story.undoes("revoke_access_code", {"acting_user_id": "USR-00001", "code_id": "ACC-99999"})
    old = world.rows["access_codes"][0]["code_id"]
    assert not story.undoes("revoke_access_code", {"code_id": old}), "revoking a code that was there is an errand"
    assert not story.undoes("set_lock_state", {"code_id": "ACC-99999"}), "only verbs that take back"
    changed = StateDiff(tables={"access_codes": TableDiff(changed=[RowChange(
        key={"code_id": old}, before={"label": "a"}, after={"label": "b"})])})
    worked_on = Story.around(manifest, world, ("devices", device), people, changed)
    assert worked_on.undoes("revoke_access_code", {"code_id": old}), "relabel a code, then revoke it"
