"""User hygiene: the scripted user's rules, and private reasoning stripped before anyone reads it."""

from __future__ import annotations

import pytest

from scaleenv_mcp.clients.reasoning import strip_private_reasoning
from scaleenv_mcp.clients.user_sim import STOP, ScriptedUser, reports_done
from scaleenv_mcp.domain.task import Task, UserSpec

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
    ("All done: your loan LN-00007 has been returned.", True),
    ("I have successfully returned the book.", True),
    ("I've returned your loan, you're all set. Anything else?", True),
    ("The return of your loan is complete.", True),
    ("I could not complete the return.", False),
    ("It has not been returned.", False),
    ("Done. Could you tell me your loan id too?", False),
])
def test_reports_done(message: str, done: bool):
    assert reports_done(message, SPEC.instruction) is done


@pytest.mark.parametrize("message", [
    "Let me know when you are done.",  # a request to the user
    "I successfully looked up your account. Let me now check the loan.",  # a step done, more work announced
    "I have found it, all set to proceed with the next step.",  # ready to go on, not finished
    "All done: your request has been completed.",  # a completion word about nothing in the goal
    "Done.",
    "I finished reading your account details.",  # finished, but not the goal
    "The return will be completed once you confirm.",  # a promise
    "Your loan return is being taken care of.",  # work under way
    "Please return the book at the desk when it is done.",
])
def test_completion_words_that_are_no_statement_about_the_goal_do_not_end_the_dialogue(message: str):
    """Issue #31: bare words ("done", "successfully", "all set") anywhere in a message ended it."""
    assert reports_done(message, SPEC.instruction) is False


@pytest.mark.parametrize(("message", "goal"), [
    ("All done: I have completed add home member for you, as you asked (Could you give a friend access to my home).",
     "You are Hannah Whitfield (h@x.org), talking to the Smart home assistant. Your goal: Could you give a friend "
     "access to my home in Minneapolis? Give these facts when the agent asks: email = 'h@x.org'."),
    ("Your firmware update for the Main Thermostat is scheduled, all done.",
     "You are Priya. You want this: Please schedule the firmware update on the Main Thermostat for later. "
     "Give these facts when the agent asks: phone = '+1-916'."),
    ("I've cancelled the appointment APT-00002 as you asked.", "Cancel the appointment APT-00002."),
])
def test_a_completion_statement_about_the_goal_ends_it(message: str, goal: str):
    assert reports_done(message, goal) is True


def test_the_goal_is_the_instruction_goal_not_the_persona_or_the_facts():
    """A user's name or facts are no goal words: 'Whitfield ... finished' is no statement about the goal."""
    goal = ("You are Hannah Whitfield, talking to the Smart home assistant. Your goal: Lock the Back Door. "
            "Give these facts when the agent asks: home_city = 'Tucson'.")
    assert reports_done("Hannah Whitfield, I have finished looking at Tucson.", goal) is False
    assert reports_done("The Back Door is locked: done.", goal) is True


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


async def test_the_oracle_says_what_it_did_so_every_shipped_task_ends_on_the_user_s_stop():
    """The stop rule was tightened, not the oracle's bar lowered: its last message names the goal."""
    from pathlib import Path

    from scaleenv_mcp.clients.agents.baselines import OracleAgent
    from scaleenv_mcp.clients.models import MessageAction, Observation

    tasks = [Task.model_validate_json(line) for path in sorted(Path(__file__).resolve().parents[3].glob(
        "domains/*/tasks.jsonl")) for line in path.read_text().splitlines() if line.strip()]
    assert len(tasks) > 100
    not_ended = []
    for task in tasks:
        oracle, observation = OracleAgent(task), Observation(kind="user_message", text=task.user.opening)
        while not isinstance(action := await oracle.act(observation), MessageAction):
            observation = Observation(kind="tool_result", text="{}", call_id=action.call_id)
        if await ScriptedUser(task.user, 20).reply(action.text) != STOP:
            not_ended.append((task.id, action.text))
    assert not_ended == []
