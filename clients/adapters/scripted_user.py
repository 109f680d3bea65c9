"""The scripted user's rule, on plain data: what ``scaleenv eval --user scripted`` answers an agent.

Deterministic, no LLM: it answers questions from the facts it knows, gives a withheld fact only
when the agent names it, and ends the dialogue (``STOP``) when the agent clearly reports the
task's own goal done (clients/completion.py), gives up, or the turn budget is spent. Standard
library only (and scaleenv_mcp.clients.completion, which is too), so the framework adapters use the very
rule the eval clients do: clients/user_sim.py wraps it for them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from scaleenv_mcp.clients.completion import reports_done

__all__ = ["STOP", "ScriptedReplies", "is_stop"]

STOP = "###STOP###"

_GIVE_UP = re.compile(r"\b(can(?:no|')t help|unable to help|not able to help|can(?:no|')t do that|won't be able to)\b", re.I)


def is_stop(message: str) -> bool:
    return STOP in message


def _label(key: str) -> str:
    return key.replace("_", " ").strip().lower()


def _fact(key: str, value: Any) -> str:
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"My {_label(key)} is {shown}."


def _names(message: str, key: str) -> bool:
    """Does the agent's message ask for this fact specifically (by its name)?"""
    lowered = message.lower()
    return _label(key) in lowered or key.lower() in lowered


class ScriptedReplies:
    """One dialogue's scripted user, from the task's user side: ``instruction`` (the goal), ``known``
    and ``withheld`` facts (a task card of the control API, or ``UserSpec.model_dump()``)."""

    def __init__(self, user: dict[str, Any], max_turns: int) -> None:
        self.instruction: str = user["instruction"]
        self.known: dict[str, Any] = user.get("known", {})
        self.withheld: dict[str, Any] = user.get("withheld", {})
        self.turns, self.max_turns = 0, max_turns
        self.told: set[str] = set()

    def reply(self, agent_message: str) -> str:
        """The user's next message; ``STOP`` when the user ends the dialogue."""
        self.turns += 1
        if self.turns >= self.max_turns:
            return STOP
        if reports_done(agent_message, self.instruction):
            return STOP  # the agent reports the goal done: the user ends it
        if _GIVE_UP.search(agent_message):
            return STOP  # the agent gave up: a real user would leave
        named = [k for k in self.withheld if _names(agent_message, k)]
        named += [k for k in self.known if _names(agent_message, k)]
        if not named:  # a general question, or no progress: state what the agent has not heard yet
            named = [k for k in self.known if k not in self.told]
            if not named and "?" in agent_message:
                named = list(self.known)
        if named:
            facts = {**self.known, **self.withheld}
            self.told.update(named)
            return " ".join(_fact(k, facts[k]) for k in dict.fromkeys(named))
        return "Please go ahead."
