"""User hygiene: the scripted user's rules, and private reasoning stripped before anyone reads it."""

from __future__ import annotations

import pytest

from clients.reasoning import strip_private_reasoning
from clients.user_sim import STOP, ScriptedUser, reports_done
from scaleenv_mcp.domain.task import UserSpec

pytestmark = pytest.mark.anyio

SPEC = UserSpec(opening="I want to return a book.", instruction="Return loan LN-00007 (do not tell the loan id unless asked).",
                known={"name": "Alan Turing"}, withheld={"loan_id": "LN-00007"})


async def test_withheld_facts_only_when_named_known_facts_when_asked():
    user = ScriptedUser(SPEC, max_turns=10)
    assert await user.opening() == SPEC.opening
    first = await user.reply("Sure. Can you tell me more?")
    assert "Alan Turing" in first and "LN-00007" not in first
    assert "LN-00007" in await user.reply("Thanks. What is the loan id?")
    assert "LN-00007" in await user.reply("Which loan_id should I use?")


async def test_the_user_ends_when_the_goal_is_reported_done_or_the_agent_gives_up():
    assert await ScriptedUser(SPEC, 10).reply("Done! Your loan has been returned. Anything else?") == STOP
    assert await ScriptedUser(SPEC, 10).reply("Sorry, I can't help with that.") == STOP
    user = ScriptedUser(SPEC, 10)
    assert await user.reply("The return is not done yet: what is your loan id?") != STOP


async def test_the_user_ends_at_its_turn_budget():
    user = ScriptedUser(SPEC, max_turns=2)
    assert await user.reply("Let me look.") != STOP
    assert await user.reply("Still looking.") == STOP


async def test_has_been_anywhere_does_not_end_the_dialogue_only_the_goal_does():
    """Issue #31: an agent's nonsense with "has been sold" ended a return after one turn."""
    user = ScriptedUser(SPEC, 10)
    assert await user.reply("The book Dune has been sold to the library of Alexandria.") != STOP
    assert await user.reply("Nothing has been decided, I have been thinking.") != STOP
    assert await user.reply("Your loan LN-00007 has been returned.") == STOP


@pytest.mark.parametrize(("message", "goal", "done"), [
    ("Your appointment has been booked.", "Book a vet appointment for Biscuit.", True),
    ("Your appointment has been booked.", "Cancel the appointment APT-00002.", False),
    ("The appointment was cancelled.", "Cancel the appointment APT-00002.", False),  # "was cancelled" is a state
    ("The appointment has been cancelled as you asked.", "Cancel the appointment APT-00002.", True),
])
def test_has_been_counts_only_for_the_goal_verb(message: str, goal: str, done: bool):
    assert reports_done(message, goal) is done


@pytest.mark.parametrize(("message", "done"), [
    ("All done: your request has been completed.", True),
    ("I have successfully returned the book.", True),
    ("I could not complete the return.", False),
    ("It has not been returned.", False),
    ("Done. Could you tell me your loan id too?", False),
])
def test_reports_done(message: str, done: bool):
    assert reports_done(message) is done


@pytest.mark.parametrize(("raw", "shown"), [
    ("<think>the gold says LN-7</think>Your book is returned.", "Your book is returned."),
    ("<THINKING>\nplan\n</THINKING>\nHello", "Hello"),
    ("secret chain of thought</think>Answer", "Answer"),  # templates that open the block in the prompt
    ("Answer first. <reasoning>cut off mid-thought", "Answer first."),
    ("No reasoning here.", "No reasoning here."),
    (None, ""),
])
def test_private_reasoning_is_stripped(raw: str | None, shown: str):
    assert strip_private_reasoning(raw) == shown
