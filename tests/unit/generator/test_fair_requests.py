"""What a person says and what they ask next: money as money, text that agrees with the choice it
goes with, the next step of the same order, and no step that belongs to another kind of person."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from pydantic import ValidationError

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.manifest import ToolSpec
from scaleenv_mcp.generator.graph import build_graph
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver
from scaleenv_mcp.generator.synthesis.chain import ChainSampler
from scaleenv_mcp.generator.synthesis.expansion import others_tools
from scaleenv_mcp.generator.synthesis.slots import say_facts, say_facts_by_errand
from scaleenv_mcp.generator.synthesis.story import Story
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.state.diff import RowChange, StateDiff, TableDiff

MARKET = Path(__file__).resolve().parents[3] / "domains" / "second_hand_marketplace"


@pytest.fixture(scope="module")
def market() -> tuple:
    package = load_domain(MARKET)
    world = World(package.manifest, package.seed)
    return package.manifest, world, ChainSampler(package.manifest, build_graph(package.manifest), world, 1)


def test_facts_of_two_errands_are_said_with_the_errand_they_are_for():
    """express_logistics-1-1752 told "quote_created_on_2 = '2026-04-10'" in one flat list: which quote,
    for what? Grouped, the date stands under the request it picks the quote for, without the _2."""
    facts = {"email": "reto@steineroptik.ch", "quote_created_on": "2026-04-12", "quote_created_on_2": "2026-04-10",
             "contents": "Ceramic vase", "weight_kg": 13.9}
    errands = [("I'd like to book a shipment from the quote I got.", {"quote_created_on", "contents"}),
               ("I'd like a price for sending a parcel.", {"quote_created_on_2", "weight_kg"})]
    assert say_facts_by_errand(facts, errands) == (
        "email = 'reto@steineroptik.ch'; "
        "for \"I'd like to book a shipment from the quote I got.\": quote_created_on = '2026-04-12', contents = 'Ceramic vase'; "
        "for \"I'd like a price for sending a parcel.\": quote_created_on = '2026-04-10', weight_kg = 13.9")
    # two facts of one base in one errand keep their numbers; a fact two errands share is said once
    both = {"quote_created_on": "2026-04-12", "quote_created_on_2": "2026-04-10"}
    assert say_facts_by_errand(both, [("Book it.", set(both))]) == (
        "for \"Book it.\": quote_created_on = '2026-04-12', quote_created_on_2 = '2026-04-10'")
    assert say_facts_by_errand({"title": "Vase"}, [("A.", {"title"}), ("B.", {"title"})]) == 'for "A.": title = \'Vase\''


def test_facts_are_said_as_money_and_each_value_once():
    said = say_facts({"listing_title": "Hot Wheels set", "price_pence": 6200, "title": "Hot Wheels set", "stars": 4}, "GBP")
    assert said == "listing_title = 'Hot Wheels set', price = £62.00, stars = 4"
    assert say_facts({"price_pence": 6200}) == "price_pence = 6200"  # no currency declared: as stored
    assert say_facts({}) == ""


def test_text_fits_must_name_a_text_and_an_enum_of_the_tool():
    base = {"name": "file_claim", "description": "d", "output_schema": {"type": "object"},
            "input_schema": {"type": "object", "properties": {
                "kind": {"type": "string", "enum": ["damage", "loss"]}, "note": {"type": "string"}}}}
    ToolSpec.model_validate({**base, "text_fits": {"note": {"by": "kind", "examples": {"loss": ["Never came."]}}}})
    for fits, error in (({"note": {"by": "kind", "examples": {"theft": ["x"]}}}, "not values of"),
                        ({"note": {"by": "note", "examples": {}}}, "not an enum"),
                        ({"kind": {"by": "kind", "examples": {}}}, "not a string argument"),
                        ({"missing": {"by": "kind", "examples": {}}}, "not a string argument")):
        with pytest.raises(ValidationError, match=error):
            ToolSpec.model_validate({**base, "text_fits": fits})


def test_a_text_that_goes_with_a_choice_is_written_for_that_choice(market):
    """A dispute's description says what its reason says: never 'the handle is snapped' under
    'not_received' (the agent that reads the user's words would pick 'damaged' and score 0)."""
    manifest, world, _ = market
    tool = manifest.tool("open_dispute")
    fit = tool.text_fits["description"]
    resolver = ArgumentResolver(manifest, world, random.Random(0))
    for reason, texts in fit.examples.items():
        picked = resolver.from_user(tool, "description", None, [], {"reason": reason})
        assert picked and {c.value for c in picked} <= set(texts), reason
    unfitted = resolver.from_user(tool, "description", None, [], {})
    assert {c.value for c in unfitted} <= set(tool.input_schema["properties"]["description"]["examples"])


def test_the_step_a_done_errand_makes_possible_is_asked_next(market):
    """Delivered, so complete it; completed, so review it; paid, so buy the label: from the named
    preconditions and from a postcondition a precondition states word for word."""
    manifest, world, sampler = market
    for pair in [("confirm_delivery", "complete_order"), ("complete_order", "leave_review"),
                 ("pay_order", "create_shipping_label"), ("create_shipping_label", "mark_order_shipped")]:
        assert pair in sampler.follows, pair
    assert ("leave_review", "confirm_delivery") not in sampler.follows
    for index in range(len(sampler.writers)):
        ends = sampler.story_ends(index, {"confirm_delivery"}, 1, frozenset({"orders", "listings"}), "member")
        assert ends[0] == "complete_order"


def test_a_person_never_takes_another_kind_of_persons_step(market):
    manifest, _, sampler = market
    members_not = others_tools(manifest, "member")
    assert {"identify_moderator", "find_disputes", "resolve_dispute", "review_report"} <= members_not
    assert not members_not & {"identify_member", "buy_now", "search_listings"}
    assert {"identify_member", "buy_now"} <= others_tools(manifest, "moderator")
    assert others_tools(manifest, None) == set()
    rng = random.Random(1)
    for index in range(300):
        for kind in ("member", "moderator"):
            plan = sampler.sample(sampler.end_tool(index), 4, rng, kind)
            assert not set(plan.tools[:-1]) & others_tools(manifest, kind), (kind, plan.tools)


def test_a_changed_row_of_the_story_is_known_as_written(market):
    manifest, world, _ = market
    order = world.rows["orders"][0]
    diff = StateDiff(tables={"orders": TableDiff(changed=[RowChange(key={"order_id": order["order_id"]},
                                                                    before={"status": "a"}, after={"status": "b"})])})
    story = Story.around(manifest, world, ("orders", order), set(), diff)
    assert story.wrote(manifest, "orders", order)
    assert not story.wrote(manifest, "orders", world.rows["orders"][1])
    other = world.rows["orders"][5]
    joined = story.joined("orders", [other])
    assert other in joined.rows_of("orders") and str(other["order_id"]) in joined.ids
