"""The user side of a task, from templates grounded in the seed chain: opening, goal, facts.

Only what the chain used goes in: the goal names the state-changing tools of each sub-goal, the facts
are exactly the user-sourced values of the actions (plus the selectors that tell list
elements apart). Facts for optional arguments, and for harder tasks one more fact, are
withheld: the simulated user gives them only when asked. An LLM can reword these later
(generator stage); the facts, not the wording, are what the verifier checks.
"""

from __future__ import annotations

import random
import re
from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import TaskAction, UserSpec
from scaleenv_mcp.generator.synthesis.slots import fill_slots, say_facts, say_facts_by_errand, slot_names
from scaleenv_mcp.generator.synthesis.values import is_label_column
from scaleenv_mcp.generator.synthesis.world import World

__all__ = ["Goal", "acting_profile", "argument_slots", "build_user", "errand_request", "goal_phrase", "person_profile"]

# One errand: its writing tools, the facts it needs, and which fact each slot of its phrasing means.
Goal = tuple[list[str], dict[str, Any], dict[str, str]]

_NAME_COLUMNS = ("full_name", "name", "display_name")
_CONTACT_COLUMNS = ("email", "phone")

_OPENINGS = [
    "Hi, I'd like to {goal}.", "Hello! Can you help me {goal}?", "I need to {goal}, please.",
    "Could you {goal} for me?", "Hey there, I want to {goal}.", "Good morning. I'm hoping you can {goal}.",
    "Hi! I was told you could {goal}.", "I'd appreciate help to {goal}.",
]
_JOIN = [" Also, {goal}.", " After that I also need to {goal}.", " And once that's done, {goal}."]
_VERBS = {"get": "look up", "find": "find", "list": "list", "create": "create", "add": "add", "update": "update",
          "cancel": "cancel", "delete": "delete", "remove": "remove", "set": "set", "schedule": "schedule",
          "book": "book", "assign": "assign", "close": "close", "record": "record", "log": "log", "submit": "submit",
          "approve": "approve", "reject": "reject", "transfer": "transfer", "change": "change", "move": "move",
          "revoke": "revoke", "resolve": "resolve", "acknowledge": "acknowledge", "install": "install",
          "run": "run", "file": "file", "request": "request", "reschedule": "reschedule", "refill": "refill"}


def _action_phrase(tool: str) -> str:
    verb, _, rest = tool.partition("_")
    return f"{_VERBS.get(verb, verb)} the {rest.replace('_', ' ')}" if rest else tool.replace("_", " ")


def goal_phrase(tools: list[str], facts: dict[str, Any]) -> str:
    """[borrow_book, return_book] + facts -> "borrow the book and then return the book (book title Dune)"."""
    phrase = " and then ".join(_action_phrase(t) for t in tools)
    described = [f"{k.replace('_', ' ')} {v}" for k, v in facts.items() if isinstance(v, str | int | float)][:3]
    return phrase + (f" ({', '.join(described)})" if described else "")


def _mentionable(key: str, value: Any) -> bool:
    return isinstance(value, str) and (is_label_column(key) or key.endswith("_id")) and len(value) <= 60


def _person(row: dict[str, Any]) -> str | None:
    name = next((row[c] for c in _NAME_COLUMNS if isinstance(row.get(c), str)), None)
    if name is None and isinstance(row.get("first_name"), str) and isinstance(row.get("last_name"), str):
        name = f"{row['first_name']} {row['last_name']}"
    contact = next((row[c] for c in _CONTACT_COLUMNS if isinstance(row.get(c), str)), None)
    return f"{name} ({contact})" if name and contact else None


def person_profile(world: World, facts: dict[str, Any]) -> str | None:
    """Who the user is: the person a fact names, directly or through one parent row (an account's
    investor), as "Ada Byron (ada@example.org)"; a person has a name and an email or phone.
    None when the facts name no person."""
    rows: list[tuple[str, dict[str, Any]]] = []
    for key, value in sorted(facts.items()):
        table = world.key_table(re.sub(r"_\d+$", "", key))  # user_id_2 is the second user_id fact
        row = world.row(table, value) if table else None
        if table is not None and row is not None:
            rows.append((table, row))
            person = _person(row)
            if person:
                return person
    for table, row in rows:
        for child, columns, parent, refs in world.links:
            if child == table and list(refs) == world.primary[parent]:
                found = world.by_key[parent].get(tuple(row.get(c) for c in columns))
                person = _person(found) if found else None
                if person:
                    return person
    return None


def acting_profile(world: World, manifest: DomainManifest, actions: list[TaskAction]) -> str | None:
    """The person the task's first acting call acts for, as ``person_profile`` writes one: the user
    is the principal the tools act for, not whoever else the facts happen to name."""
    tools = {t.name: t for t in manifest.tools}
    for action in actions:
        tool = tools.get(action.tool)
        if tool is None or tool.acting is None:
            continue
        who = action.arguments.get(tool.acting.argument)
        for kind in tool.acting.kinds:
            principal = manifest.principal(kind)
            row = world.row(principal.table, who)
            if row is not None:
                return _person(row)
    return None


_GREETINGS = ["Hi.", "Hello!", "Good morning.", "Hi there.", "Hello, I hope you can help."]
_MORE = ["One more thing:", "While I have you:", "And another thing:", "Also:"]


def _intent(manifest: DomainManifest, tools: list[str], known: dict[str, Any], rng: random.Random,
            kind: str | None = None) -> str | None:
    """The goal in the words the domain's author wrote for its writing tools (``ToolSpec.intents``),
    each slot filled with a fact the user knows; None when a tool has no phrasing whose slots are
    all known. The rng is drawn only when phrasings exist, so domains without them keep their bytes."""
    sentences = []
    for name in tools:
        usable = [i for i in manifest.tool(name).phrasings(kind) if set(slot_names(i)) <= set(known)]
        if not usable:
            return None
        sentences.append(sentence(fill_slots(rng.choice(usable), known, manifest.currency)))
    return " ".join(sentences) if sentences else None


def errand_request(manifest: DomainManifest, goal: Goal, known: dict[str, Any], rng: random.Random,
                   kind: str | None = None) -> str | None:
    """One errand in the author's words, its slots filled from what the user knows; None when no
    phrasing of its writing tools has every slot known."""
    tools, goal_facts, slots = goal
    return _intent(manifest, tools, _goal_view(known, goal_facts, tools, slots), rng, kind)


def who_you_are(manifest: DomainManifest, profile: str | None) -> str:
    """The instruction's first sentence: the person, and whom they are talking to."""
    return f"You are {profile or 'a customer'}, talking to the {manifest.title} assistant."


def sentence(text: str) -> str:
    """``text`` ending in one full stop (an author's phrasing already ends in one: no "..")."""
    text = text.strip()
    return text if text.endswith((".", "?", "!")) else f"{text}."


def argument_slots(records: list[dict[str, Any]], writing: set[int]) -> dict[str, str]:
    """Slot -> fact key, from the grounding of an errand's writing actions (``writing``: their
    indexes): ``{name}`` is the fact the ``name`` argument was given, ``{device_name}`` the name
    the ``device_id`` argument's row was told apart by. An id that refers to another row than the
    one it was read from (``names``) is named by that row's label; its selector describes the
    row it was read from (the device whose room it is) and fills no slot of this argument."""
    slots: dict[str, str] = {}
    for record in records:
        if record.get("action") not in writing:
            continue
        param = record["argument"]
        entity = param[:-3] if param.endswith("_id") else param
        if record.get("source") == "user" and record.get("fact"):
            slots[param] = record["fact"]
        described = record.get("names") or record.get("select_by") or {}
        for field, fact in described.items():
            if "[]." not in field:
                slots[field if field.startswith(f"{entity}_") else f"{entity}_{field}"] = fact
    return slots


def _goal_view(known: dict[str, Any], goal_facts: dict[str, Any], tools: list[str] | tuple[str, ...] = (),
               slots: dict[str, str] | None = None) -> dict[str, Any]:
    """The known facts as one goal's phrasing sees them: its own ``device_name_2`` fills a
    ``{device_name}`` slot, so a second errand names its own device, not the first one's, and its
    own role-named ``room_name`` (``FactBook.add``: the name of the room that ``create_room``
    makes, beside an automation's ``name``) fills that tool's ``{name}``. ``slots``
    (``argument_slots``) say it exactly, from what each argument was given, and win."""
    view = dict(known)
    roles = [tool.partition("_")[2] for tool in tools if "_" in tool]
    for key in goal_facts:
        if key not in known:
            continue
        base = re.sub(r"_\d+$", "", key)
        if base != key:
            view[base] = known[key]
        for role in roles:
            if base.startswith(f"{role}_"):
                view[base[len(role) + 1:]] = known[key]
    for slot, key in (slots or {}).items():
        if key in known:
            view[slot] = known[key]
    return view


def build_user(manifest: DomainManifest, goals: list[Goal], facts: dict[str, Any],
               optional: set[str], difficulty: str, rng: random.Random, profile: str | None = None,
               identity: frozenset[str] = frozenset(), questions: list[str] | None = None,
               kind: str | None = None) -> UserSpec:
    """Opening, simulator instruction, known and withheld facts for the (writing tools, their facts) goals.

    ``profile`` (``person_profile``) is who the simulated user is, stated in the instruction only;
    ``identity`` are the facts that identify them (email; name and date of birth), never withheld;
    ``questions`` are asked once the errands are done, one after another (their answers are the
    task's ``communicate``); ``kind`` is the persona's principal kind, whose own phrasings
    (``ToolSpec.intents_by_kind``) it may use.
    """
    questions = questions or []
    # An optional argument the gold sets is something the user wants: they say it unprompted, or an
    # agent doing exactly what was asked would score 0. Only a required fact may wait to be asked for.
    volunteered = {k for k in facts if k in optional and k not in identity}
    withheld_keys: set[str] = set()
    spare = sorted(k for k in facts if k not in volunteered and k not in identity
                   and not any(str(facts[k]) in q for q in questions))  # what a question names is said
    if difficulty != "easy" and len(spare) > 2:
        withheld_keys.add(rng.choice(spare[1:]))
    known = {k: v for k, v in sorted(facts.items()) if k not in withheld_keys}
    withheld = {k: v for k, v in sorted(facts.items()) if k in withheld_keys}
    first_tool, first_facts, _ = goals[0]
    intents = [_intent(manifest, tool, _goal_view(known, goal_facts, tool, slots), rng, kind)
               for tool, goal_facts, slots in goals]
    if all(intents):  # the domain's author wrote how people ask for this: say it that way
        # one person's errands in one conversation: the second is announced, not glued on
        more = "".join(f" {rng.choice(_MORE)} {intent}" for intent in intents[1:])
        opening = f"{rng.choice(_GREETINGS)} {intents[0]}{more}"
        steps = f"{intents[0]}{more}"
    else:
        in_opening = {k: v for k, v in first_facts.items() if k in known and _mentionable(k, v)}
        opening = rng.choice(_OPENINGS).format(goal=goal_phrase(first_tool, in_opening))
        for tool, more, _ in goals[1:]:
            opening += rng.choice(_JOIN).format(goal=goal_phrase(tool, {k: v for k, v in more.items()
                                                                        if k in known and _mentionable(k, v)}))
        steps = "; then ".join(goal_phrase(tool, {k: v for k, v in f.items() if k in facts}) for tool, f, _ in goals)
    asked = {k: v for k, v in known.items() if k not in volunteered}
    if len(goals) > 1:  # two errands: say which fact is for which
        requests = intents if all(intents) else [goal_phrase(tool, {}) for tool, _, _ in goals]
        errands = [(str(request), set(goal_facts)) for request, (_, goal_facts, _) in zip(requests, goals)]
        known_text = say_facts_by_errand(asked, errands, manifest.currency) or "nothing beyond the opening"
        withheld_text = say_facts_by_errand(withheld, errands, manifest.currency)
    else:
        known_text = say_facts(asked, manifest.currency) or "nothing beyond the opening"
        withheld_text = say_facts(withheld, manifest.currency)
    said_text = say_facts({k: v for k, v in known.items() if k in volunteered}, manifest.currency)
    then = "".join(f" Once that is {'done' if n == 0 else 'answered'}, ask: {sentence(q)}" for n, q in enumerate(questions))
    instruction = f"{who_you_are(manifest, profile)} Your goal: {sentence(steps)}{then} "
    if said_text:
        instruction += f"Say these as part of your request, without being asked: {said_text}. "
    instruction += f"Give these facts when the agent asks: {known_text}."
    if withheld_text:
        instruction += f" Give these only if the agent asks for them specifically: {withheld_text}."
    instruction += (" Do not invent other details; say you do not know. End the conversation once it is done"
                    + (f" and you have your answer{'s' if len(questions) > 1 else ''}." if questions else "."))
    return UserSpec(opening=opening, instruction=instruction, known=known, withheld=withheld)
