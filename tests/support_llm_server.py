"""A loopback OpenAI-compatible server that plays every generator role for a small "pet care" world.

Real HTTP (Starlette + uvicorn on 127.0.0.1, port 0) and the real ``openai`` client on the
other side: nothing of ours is patched. It answers by ROLE (the ``ROLE: <role>`` first line
the generator puts in every system prompt) and by the markers of the user message (``TOOL:``,
``TABLE:``, ``REPAIR:``, ``CONTINUE:``), never by exact prompt text, so prompts can change
freely. Defects are injected per role on demand, the way real endpoints misbehave: code
fences, prose around the JSON, a missing field, truncation (finish_reason "length"), HTTP
429 and 500, slow replies, refusal of ``response_format``, and a reply cut at max_tokens that
a server reports as "stop" or "tool_calls" (``cut``: only the token count tells;
``cut_no_usage``: no usage either, only the unclosed JSON tells); a server
``profile`` (tests/support_server_profiles.py) answers what llama.cpp, vLLM, Ollama or
SGLang would (a 500 to json_schema, a forced tool call ignored); and behaviours: a buggy tool
fixed by the debug agent, a tool that never passes, a tool draft that loops forever (fixed by
the debug agent once validation names the runaway), seed rows that break a CHECK. Every
request is logged (role, markers, a hash of the request body, the status sent), so tests
can assert that no request was answered twice and inspect what the debug agent was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.support_hostile import hostile_source
from tests.support_server_profiles import PROFILES, ServerProfile, cut_usage

__all__ = ["FakeLLM", "Fault", "running_fake_llm"]


@dataclass
class Fault:
    """One injected defect for the next request(s) of ``role`` (and ``tool``/``table`` when given)."""

    role: str
    kind: str  # fence | prose | missing_field | truncate | cut | cut_no_usage | http429 | http500 | slow | bad_json
    times: int = 1
    marker: str | None = None
    seconds: float = 0.0


@dataclass
class Logged:
    role: str
    marker: str | None
    kind: str  # first | repair | continue
    body_hash: str
    status: str  # "200", "429", "500", "400", "slow", "killed"
    user: str


@dataclass
class FakeLLM:
    base_url: str = ""
    faults: list[Fault] = field(default_factory=list)
    buggy: set[str] = field(default_factory=set)          # first code answer wrong, debug fixes it
    never_pass: set[str] = field(default_factory=set)     # code and every debug answer wrong
    looping: set[str] = field(default_factory=set)        # first code answer loops forever, debug fixes it
    bad_seed: bool = False                                # appointments rows break a CHECK until repaired
    reject_response_format: bool = False
    profile: ServerProfile = PROFILES["openai"]
    always_fail: int | None = None                        # every request answered with this status
    on_request: Callable[[str, str | None], bool] | None = None  # (role, marker) -> True: drop it (client killed)
    # task_writer: (the good answer, {"chain", "rows"} of the prompt) -> the answer sent instead
    wording: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] | None = None
    log: list[Logged] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- what tests read -----------------------------------------------------------------
    def requests(self, role: str | None = None, status: str | None = None) -> list[Logged]:
        return [r for r in self.log if (role is None or r.role == role) and (status is None or r.status == status)]

    def answered_twice(self) -> list[str]:
        """Body hashes of requests answered (HTTP 200) more than once: must stay empty after a resume."""
        counts = Counter(r.body_hash for r in self.log if r.status == "200")
        return sorted(h for h, n in counts.items() if n > 1)

    def reset(self) -> None:
        self.faults, self.buggy, self.never_pass, self.looping, self.log = [], set(), set(), set(), []
        self.bad_seed = self.reject_response_format = False
        self.profile = PROFILES["openai"]
        self.always_fail, self.on_request, self.wording = None, None, None

    # -- answering -----------------------------------------------------------------------
    def _take_fault(self, role: str, marker: str | None) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.role == role and fault.times > 0 and fault.marker in (None, marker):
                    fault.times -= 1
                    return fault
        return None

    def answer(self, role: str, marker: str | None, kind: str, user: str, messages: list[dict[str, Any]]) -> dict:
        first_code = kind == "first" and not any(m["role"] == "assistant" for m in messages)
        first_user = next(m["content"] for m in messages if m["role"] == "user")
        if role == "domain_card":
            return CARD
        if role == "tool_plan":
            return {"tools": [{"name": t["name"], "purpose": t["description"].split(".")[0],
                               "changes_state": t["name"].startswith(("register", "book", "cancel"))} for t in TOOLS]}
        if role == "tool_schemas":
            batch = re.search(r"^BATCH: (.+)$", user if kind == "first" else first_user, re.MULTILINE)
            names = batch.group(1).split(", ") if batch else []
            return {"tools": [t for t in TOOLS if t["name"] in names]}
        if role == "db_schema":
            return DATABASE
        if role == "seed_data":
            return {"rows": bad_seed() if self.bad_seed and marker == "appointments" else SEED[marker or ""]}
        if role == "db_repair":
            named = sorted(t for t in SEED if f'"{t}"' in user)
            return {"diagnosis": "slot values outside the clinic's slots", "rows": {t: SEED[t] for t in named}}
        if role == "code":
            if marker in self.never_pass:
                return {"code": NEVER_PASSING_CODE[marker]}
            if marker in self.looping and first_code:
                return {"code": hostile_source(CODE[marker], [marker], "loop")}
            return {"code": BUGGY_CODE[marker] if marker in self.buggy and first_code else CODE[marker or ""]}
        if role == "tests":
            return {"cases": CASES[marker or ""]}
        if role == "debug":
            code = NEVER_PASSING_CODE[marker] if marker in self.never_pass else CODE[marker or ""]
            return {"diagnosis": "the tool did not enforce its declared rule", "code": code}
        if role == "graph_edges":
            return {"edges": EDGES}
        if role == "task_writer":
            facts = json.loads(_section(user, "FACTS (JSON):", inline=True) or "{}")
            chain = json.loads(_section(user, "REFERENCE SOLUTION:") or "[]")
            goal = " then ".join(a["tool"].replace("_", " ") for a in chain)
            stated = "; ".join(f"your {k.replace('_', ' ')} is {v}" for k, v in sorted(facts.items()))
            good = {"opening": "Hi! I'd like some help with my pet's care, please.",
                    "instruction": f"You are a pet owner. You want to {goal}. Answer questions with your facts "
                                   f"({stated}); end the conversation once it is done.",
                    "known": facts, "withheld": {}}
            if self.wording is None:
                return good
            rows = json.loads(_section(user, "START ROWS OF THE TASK (distractor rows are flagged):") or "[]")
            return self.wording(good, {"chain": chain, "rows": rows})
        if role == "chain_writer":  # the end tool on the subject row, fenced; odd-numbered tasks get code it must refuse
            task = _section(user, "TASK:", inline=True) or ""
            end = _section(user, "END TOOL:", inline=True)
            subject = _section(user, "SUBJECT PARAMETER:", inline=True)
            anchor = json.loads(_section(user, "SUBJECT ROW:", inline=True) or "null") or {}
            if task[-1:].isdigit() and int(task[-1]) % 2 == 1:
                return {"code": f"import os\ndef chain(call):\n    return call({end!r}, {{}})"}
            arguments = {subject: anchor[subject]} if subject in anchor else {}
            return {"code": f"```python\ndef chain(call):\n    return call({end!r}, {json.dumps(arguments)})\n```"}
        if role == "expansion_gate":  # one more chain for even-numbered tasks that have only their seed chain
            chains = json.loads(_section(user, "CHAINS SO FAR:", inline=True) or "[]")
            task = _section(user, "TASK:", inline=True) or ""
            grow = len(chains) == 1 and task[-1:].isdigit() and int(task[-1]) % 2 == 0
            return {"add_chain": grow, "feasibility": 0.8, "reason": "room for one more goal" if grow else "rich enough"}
        raise KeyError(f"no scripted answer for role {role}")

    def build_app(self) -> Starlette:
        async def completions(request: Request) -> JSONResponse:
            body = await request.json()
            messages = body["messages"]
            system, user = messages[0]["content"], messages[-1]["content"] if messages[-1]["role"] == "user" else ""
            role = re.match(r"ROLE: (\S+)", system).group(1)  # type: ignore[union-attr]
            first_user = next(m["content"] for m in messages if m["role"] == "user")
            marker_match = re.search(r"^(?:TOOL|TABLE): (\S+)$", first_user, re.MULTILINE)
            marker = marker_match.group(1) if marker_match else None
            kind = "repair" if user.startswith("REPAIR:") else "continue" if user.startswith("CONTINUE:") else "first"
            body_hash = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()

            def logged(status: str) -> None:
                with self._lock:
                    self.log.append(Logged(role, marker, kind, body_hash, status, first_user if kind == "first" else user))

            if self.on_request is not None and self.on_request(role, marker):
                logged("killed")
                return JSONResponse({"error": {"message": "client gone"}}, status_code=500)
            if self.always_fail is not None:
                logged(str(self.always_fail))
                return _error(self.always_fail, "the endpoint is down")
            if self.reject_response_format and ("response_format" in body or "tools" in body):
                logged("400")
                return _error(400, "response_format json_schema is not supported by this server")
            refused = self.profile.refusal(body)
            if refused:
                logged(str(refused[0]))
                return _error(*refused)
            fault = self._take_fault(role, marker) if kind != "continue" else None
            if fault and fault.kind in ("http429", "http500"):
                status = 429 if fault.kind == "http429" else 500
                logged(str(status))
                return _error(status, "rate limited" if status == 429 else "internal error")
            if fault and fault.kind == "slow":
                logged("slow")
                await asyncio.sleep(fault.seconds)
                return _completion(body, "{}", "stop", self.profile)
            full = json.dumps(self.answer(role, marker, kind, user, messages), indent=1, sort_keys=True)
            text, finish = full, "stop"
            if kind == "continue":
                done = next(m["content"] for m in reversed(messages) if m["role"] == "assistant")
                text = full[len(done):]
            elif fault is not None and fault.kind in ("cut", "cut_no_usage"):  # cut at max_tokens, said "stop"
                logged("200")
                return _completion(body, full[: len(full) // 2], "stop", self.profile, cut=True,
                                   usage=fault.kind == "cut")
            elif fault is not None:
                text, finish = _defect(fault.kind, full)
            logged("200")
            return _completion(body, text, finish, self.profile)

        return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def _section(text: str, header: str, inline: bool = False) -> str | None:
    index = text.find(header)
    if index < 0:
        return None
    rest = text[index + len(header):]
    if inline:
        return rest.split("\n", 1)[0].strip()
    return rest.lstrip("\n").split("\n\n", 1)[0]


def _defect(kind: str, full: str) -> tuple[str, str]:
    value = json.loads(full)
    if kind == "fence":
        return f"```json\n{full}\n```", "stop"
    if kind == "prose":
        return f"Sure! Here is the answer you asked for:\n{full}\nLet me know if you need anything else.", "stop"
    if kind == "missing_field":
        first = sorted(value)[-1]
        return json.dumps({k: v for k, v in value.items() if k != first}), "stop"
    if kind == "truncate":
        return full[: max(1, len(full) // 2)], "length"
    if kind == "bad_json":
        return full.replace('"', "'", 4), "stop"
    raise ValueError(kind)


def _error(status: int, message: str) -> JSONResponse:
    headers = {"retry-after": "0"} if status == 429 else {}
    return JSONResponse({"error": {"message": message, "type": "fake", "code": status}}, status_code=status,
                        headers=headers)


def _completion(body: dict[str, Any], text: str, finish: str, profile: ServerProfile, cut: bool = False,
                usage: bool = True) -> JSONResponse:
    """The reply; a forced tool call when the request forced one and the server honours it; ``cut``:
    every max_tokens token used, reported the way ``profile`` reports a cut reply (a call with broken
    arguments, or its text when the server's tool parser gives up); ``usage`` False: no usage at all."""
    prompt = sum(len(str(m.get("content") or "")) for m in body["messages"]) // 4
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if "tools" in body and finish == "stop" and profile.forces_named_tool(body):
        name = body["tools"][0]["function"]["name"]
        as_text = profile.cut_call_text(body, name, text) if cut else None
        if as_text is None:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]}
            finish = profile.cut_tool_call_finish if cut else profile.forced_call_finish
        else:
            message = {"role": "assistant", "content": as_text}
    counted = cut_usage(body, prompt) if cut else {"prompt_tokens": prompt, "completion_tokens": len(text) // 4,
                                                   "total_tokens": prompt + len(text) // 4}
    reply = {"id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
             "model": body.get("model", "fake"), "choices": [{"index": 0, "message": message, "finish_reason": finish}]}
    return JSONResponse({**reply, "usage": counted} if usage else reply)


@contextlib.contextmanager
def running_fake_llm() -> Iterator[FakeLLM]:
    """Serve a FakeLLM on 127.0.0.1 (a free port) in a background thread."""
    fake = FakeLLM()
    config = uvicorn.Config(fake.build_app(), host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the fake LLM server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    fake.base_url = f"http://127.0.0.1:{port}/v1"
    try:
        yield fake
    finally:
        server.should_exit = server.force_exit = True  # do not wait for idle keep-alive connections
        thread.join(timeout=5)


# -- the scripted world: "pet care", 5 tools over 3 tables ------------------------------------

CARD = {"title": "Pet Care Clinic", "description": "A veterinary clinic's front desk: owners register pets and book, "
        "look up and cancel appointments.", "keywords": ["pet care", "veterinary", "appointments", "pets"],
        "entities": ["owners", "pets", "appointments"]}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


_S, _NS = {"type": "string"}, {"type": ["string", "null"]}
_PET = _obj({"pet_id": _S, "owner_id": _S, "name": _S, "species": _S}, ["pet_id", "owner_id", "name", "species"])
TOOLS = [
    {"name": "find_pets", "description": "Find pets by owner id (OWN-NNNNN), species or part of the name. "
     "Returns {items: [...]} ordered by pet id.",
     "input_schema": {**_obj({"owner_id": _NS, "species": _NS, "name": _NS}, []), "additionalProperties": False},
     "output_schema": _obj({"items": {"type": "array", "items": _PET}}, ["items"])},
    {"name": "get_pet", "description": "Get a pet by id (PET-NNNNN). Errors: not_found.",
     "input_schema": _obj({"pet_id": _S}, ["pet_id"]),  # additionalProperties left out: the stage adds it
     "output_schema": _obj({**_PET["properties"], "birth_date": _S}, ["pet_id", "name", "species", "birth_date"]),
     "raises": [{"code": "not_found", "when": "no pet has this id"}]},
    {"name": "register_pet", "description": "Register a pet for an owner (OWN-NNNNN); birth_date is YYYY-MM-DD. "
     "Errors: not_found (owner), not_permitted (owner blocked), invalid_argument (species).",
     "input_schema": {**_obj({"owner_id": _S, "name": _S, "species": {"type": "string"}, "birth_date": _S},
                             ["owner_id", "name", "species", "birth_date"]), "additionalProperties": False},
     "output_schema": _obj({"pet_id": _S}, ["pet_id"]),
     "raises": [{"code": "not_found", "when": "no owner has this id"},
                {"code": "not_permitted", "when": "the owner is blocked"},
                {"code": "invalid_argument", "when": "species is not one of dog, cat, rabbit, bird"}],
     "postconditions": ["the pet can be booked"]},
    {"name": "book_appointment", "description": "Book a clinic slot (09:00, 10:00, 11:00, 14:00 or 15:00) on a day "
     "(YYYY-MM-DD, today or later) for a pet (PET-NNNNN). Errors: not_found, conflict (slot taken), "
     "invalid_argument (past day or unknown slot).",
     "input_schema": {**_obj({"pet_id": _S, "day": _S, "slot": _S, "reason": _S}, ["pet_id", "day", "slot", "reason"]),
                      "additionalProperties": False},
     "output_schema": _obj({"appointment_id": _S, "day": _S, "slot": _S, "status": _S},
                           ["appointment_id", "day", "slot", "status"]),
     "raises": [{"code": "not_found", "when": "no pet has this id"},
                {"code": "conflict", "when": "the slot is already booked"},
                {"code": "invalid_argument", "when": "the day is in the past or the slot is not a clinic slot"}],
     "preconditions": ["the pet is registered"]},
    {"name": "cancel_appointment", "description": "Cancel a booked appointment (APT-NNNNN). Errors: not_found, "
     "conflict (not booked any more).",
     "input_schema": {**_obj({"appointment_id": _S}, ["appointment_id"]), "additionalProperties": False},
     "output_schema": _obj({"appointment_id": _S, "status": _S}, ["appointment_id", "status"]),
     "raises": [{"code": "not_found", "when": "no appointment has this id"},
                {"code": "conflict", "when": "the appointment is not booked"}]},
]


def _col(name: str, reward: str = "hard", type_: str = "TEXT", nullable: bool = False) -> dict[str, Any]:
    return {"name": name, "type": type_, "reward": reward, "nullable": nullable}


DATABASE = {
    "tables": [
        {"name": "owners", "description": "Pet owners.", "primary_key": ["owner_id"], "id_prefix": "OWN",
         "columns": [_col("owner_id", "exempt"), _col("name"), _col("phone"), _col("status")],
         "checks": ["status IN ('active', 'blocked')"]},
        {"name": "pets", "description": "Registered pets.", "primary_key": ["pet_id"], "id_prefix": "PET",
         "columns": [_col("pet_id", "exempt"), _col("owner_id"), _col("name"), _col("species"), _col("birth_date")],
         "foreign_keys": [{"columns": ["owner_id"], "table": "owners", "references": ["owner_id"]}],
         "checks": ["species IN ('dog', 'cat', 'rabbit', 'bird')"]},
        {"name": "appointments", "description": "Clinic appointments.", "primary_key": ["appointment_id"],
         "id_prefix": "APT", "columns": [_col("appointment_id", "exempt"), _col("pet_id"), _col("day"), _col("slot"),
                                         _col("reason", "semantic"), _col("status")],
         "foreign_keys": [{"columns": ["pet_id"], "table": "pets", "references": ["pet_id"]}],
         "checks": ["slot IN ('09:00', '10:00', '11:00', '14:00', '15:00')",
                    "status IN ('booked', 'cancelled', 'done')"]},
    ],
    "access": [{"tool": "find_pets", "reads": ["pets"]}, {"tool": "get_pet", "reads": ["pets"]},
               {"tool": "register_pet", "reads": ["owners", "pets"], "writes": ["pets"]},
               {"tool": "book_appointment", "reads": ["pets", "appointments"], "writes": ["appointments"]},
               {"tool": "cancel_appointment", "reads": ["appointments"], "writes": ["appointments"]}],
    "policy": "Blocked owners may not register pets. A slot holds one booked appointment. Appointments are booked "
              "for today or later, in the clinic's slots. Only booked appointments can be cancelled.",
}

SEED = {
    "owners": [{"owner_id": "OWN-00001", "name": "Maya Lopez", "phone": "+1-555-0101", "status": "active"},
               {"owner_id": "OWN-00002", "name": "Sam Carter", "phone": "+1-555-0102", "status": "active"},
               {"owner_id": "OWN-00003", "name": "Maya Lopez", "phone": "+1-555-0199", "status": "blocked"}],
    "pets": [{"pet_id": "PET-00001", "owner_id": "OWN-00001", "name": "Biscuit", "species": "dog", "birth_date": "2019-04-02"},
             {"pet_id": "PET-00002", "owner_id": "OWN-00001", "name": "Mochi", "species": "cat", "birth_date": "2021-08-15"},
             {"pet_id": "PET-00003", "owner_id": "OWN-00002", "name": "Biscuit", "species": "rabbit", "birth_date": "2022-01-20"},
             {"pet_id": "PET-00004", "owner_id": "OWN-00003", "name": "Rex", "species": "dog", "birth_date": "2015-06-30"}],
    "appointments": [
        {"appointment_id": "APT-00001", "pet_id": "PET-00001", "day": "2026-03-12", "slot": "09:00",
         "reason": "annual vaccination", "status": "booked"},
        {"appointment_id": "APT-00002", "pet_id": "PET-00002", "day": "2026-03-12", "slot": "10:00",
         "reason": "dental check", "status": "booked"},
        {"appointment_id": "APT-00003", "pet_id": "PET-00003", "day": "2026-03-01", "slot": "14:00",
         "reason": "nail trim", "status": "done"},
        {"appointment_id": "APT-00004", "pet_id": "PET-00001", "day": "2026-03-15", "slot": "11:00",
         "reason": "limping on the left leg", "status": "cancelled"}],
}


def bad_seed() -> list[dict[str, Any]]:
    """The appointments with one slot outside the clinic's slots (a CHECK failure to repair)."""
    rows = [dict(r) for r in SEED["appointments"]]
    rows[1]["slot"] = "13:30"
    return rows


CODE = {
    "find_pets": '''def find_pets(ctx, owner_id: str | None = None, species: str | None = None, name: str | None = None) -> dict:
    rows = ctx.db.fetch_all(
        "SELECT pet_id, owner_id, name, species FROM pets WHERE (? IS NULL OR owner_id = ?) "
        "AND (? IS NULL OR species = ?) AND (? IS NULL OR name LIKE '%' || ? || '%') ORDER BY pet_id",
        (owner_id, owner_id, species, species, name, name))
    return {"items": rows}
''',
    "get_pet": '''def get_pet(ctx, pet_id: str) -> dict:
    pet = ctx.db.fetch_one("SELECT pet_id, owner_id, name, species, birth_date FROM pets WHERE pet_id = ?", (pet_id,))
    if pet is None:
        raise NotFoundError(f"no pet {pet_id}")
    return pet
''',
    "register_pet": '''def register_pet(ctx, owner_id: str, name: str, species: str, birth_date: str) -> dict:
    owner = ctx.db.fetch_one("SELECT status FROM owners WHERE owner_id = ?", (owner_id,))
    if owner is None:
        raise NotFoundError(f"no owner {owner_id}")
    if owner["status"] != "active":
        raise NotPermittedError(f"owner {owner_id} is blocked and cannot register pets")
    if species not in ("dog", "cat", "rabbit", "bird"):
        raise InvalidArgumentError(f"species {species!r} is not one of dog, cat, rabbit, bird")
    pet_id = ctx.new_id("PET")
    ctx.db.execute("INSERT INTO pets (pet_id, owner_id, name, species, birth_date) VALUES (?, ?, ?, ?, ?)",
                   (pet_id, owner_id, name, species, birth_date))
    return {"pet_id": pet_id}
''',
    "book_appointment": '''def book_appointment(ctx, pet_id: str, day: str, slot: str, reason: str) -> dict:
    if ctx.db.fetch_one("SELECT pet_id FROM pets WHERE pet_id = ?", (pet_id,)) is None:
        raise NotFoundError(f"no pet {pet_id}")
    if day < ctx.today or slot not in ("09:00", "10:00", "11:00", "14:00", "15:00"):
        raise InvalidArgumentError(f"cannot book {day} {slot}: the day is in the past or the slot is not a clinic slot")
    taken = ctx.db.fetch_one("SELECT appointment_id FROM appointments WHERE day = ? AND slot = ? AND status = 'booked'",
                             (day, slot))
    if taken is not None:
        raise ConflictError(f"the slot {day} {slot} is already booked")
    appointment_id = ctx.new_id("APT")
    ctx.db.execute("INSERT INTO appointments (appointment_id, pet_id, day, slot, reason, status) "
                   "VALUES (?, ?, ?, ?, ?, 'booked')", (appointment_id, pet_id, day, slot, reason))
    return {"appointment_id": appointment_id, "day": day, "slot": slot, "status": "booked"}
''',
    "cancel_appointment": '''def cancel_appointment(ctx, appointment_id: str) -> dict:
    row = ctx.db.fetch_one("SELECT status FROM appointments WHERE appointment_id = ?", (appointment_id,))
    if row is None:
        raise NotFoundError(f"no appointment {appointment_id}")
    if row["status"] != "booked":
        raise ConflictError(f"appointment {appointment_id} is {row['status']}, not booked")
    ctx.db.execute("UPDATE appointments SET status = 'cancelled' WHERE appointment_id = ?", (appointment_id,))
    return {"appointment_id": appointment_id, "status": "cancelled"}
''',
}

#: book_appointment that forgets the slot conflict check: its "slot taken" case fails.
BUGGY_CODE = {"book_appointment": CODE["book_appointment"].replace(
    "    if taken is not None:\n        raise ConflictError(f\"the slot {day} {slot} is already booked\")\n", "")}

#: cancel_appointment writing a status its CHECK refuses: a fault in every round.
NEVER_PASSING_CODE = {"cancel_appointment": CODE["cancel_appointment"].replace("'cancelled'", "'canceled'")}


def _case(tool: str, name: str, arguments: dict[str, Any], expect: dict[str, Any], rows: list | None = None) -> dict:
    case = {"name": f"{tool} {name}", "tool": tool, "arguments": arguments, "expect": expect}
    if rows:
        case["fixture"] = {"base": "seed", "rows": rows}
    return case


def _reject(code: str, when: str) -> dict[str, Any]:
    return {"outcome": "rejection", "error": code, "condition": when}


CASES = {
    "find_pets": [
        _case("find_pets", "by owner", {"owner_id": "OWN-00001"}, {"outcome": "success", "result": {"items": [
            {"pet_id": "PET-00001"}, {"pet_id": "PET-00002"}]}}),
        _case("find_pets", "tells namesakes apart", {"name": "Biscuit"}, {"outcome": "success", "result": {"items": [
            {"pet_id": "PET-00001", "species": "dog"}, {"pet_id": "PET-00003", "species": "rabbit"}]}}),
        _case("find_pets", "no bird", {"species": "bird"}, {"outcome": "success", "result": {"items": []}})],
    "get_pet": [
        _case("get_pet", "returns the pet", {"pet_id": "PET-00003"},
              {"outcome": "success", "result": {"name": "Biscuit", "species": "rabbit", "birth_date": "2022-01-20"}}),
        _case("get_pet", "returns another", {"pet_id": "PET-00004"}, {"outcome": "success", "result": {"name": "Rex"}}),
        _case("get_pet", "unknown id", {"pet_id": "PET-09999"}, _reject("not_found", "no pet has this id"))],
    "register_pet": [
        _case("register_pet", "registers a cat", {"owner_id": "OWN-00002", "name": "Pepper", "species": "cat",
                                                  "birth_date": "2024-05-01"},
              {"outcome": "success", "result": {"pet_id": "PET-00005"}, "changes": {"tables": {"pets": {"added": [
                  {"pet_id": "PET-00005", "owner_id": "OWN-00002", "name": "Pepper", "species": "cat",
                   "birth_date": "2024-05-01"}]}}}}),
        _case("register_pet", "unknown owner", {"owner_id": "OWN-09999", "name": "A", "species": "dog",
                                                "birth_date": "2024-01-01"}, _reject("not_found", "no owner has this id")),
        _case("register_pet", "blocked owner", {"owner_id": "OWN-00003", "name": "A", "species": "dog",
                                                "birth_date": "2024-01-01"}, _reject("not_permitted", "the owner is blocked")),
        _case("register_pet", "unknown species", {"owner_id": "OWN-00001", "name": "Zed", "species": "lizard",
                                                  "birth_date": "2024-01-01"},
              _reject("invalid_argument", "species is not one of dog, cat, rabbit, bird"))],
    "book_appointment": [
        _case("book_appointment", "books a free slot", {"pet_id": "PET-00003", "day": "2026-03-12", "slot": "11:00",
                                                        "reason": "vaccination booster"},
              {"outcome": "success", "result": {"appointment_id": "APT-00005", "status": "booked"},
               "changes": {"tables": {"appointments": {"added": [
                   {"pet_id": "PET-00003", "day": "2026-03-12", "slot": "11:00", "reason": "vaccination booster",
                    "status": "booked"}]}}}}),
        _case("book_appointment", "unknown pet", {"pet_id": "PET-09999", "day": "2026-03-12", "slot": "11:00",
                                                  "reason": "x"}, _reject("not_found", "no pet has this id")),
        _case("book_appointment", "slot taken", {"pet_id": "PET-00003", "day": "2026-03-12", "slot": "09:00",
                                                 "reason": "x"}, _reject("conflict", "the slot is already booked")),
        _case("book_appointment", "past day", {"pet_id": "PET-00003", "day": "2026-03-01", "slot": "09:00",
                                               "reason": "x"},
              _reject("invalid_argument", "the day is in the past or the slot is not a clinic slot"))],
    "cancel_appointment": [
        _case("cancel_appointment", "cancels a booking", {"appointment_id": "APT-00002"},
              {"outcome": "success", "result": {"status": "cancelled"}, "changes": {"tables": {"appointments": {
                  "changed": [{"key": {"appointment_id": "APT-00002"}, "after": {"status": "cancelled"}}]}}}}),
        _case("cancel_appointment", "unknown id", {"appointment_id": "APT-09999"},
              _reject("not_found", "no appointment has this id")),
        _case("cancel_appointment", "not booked", {"appointment_id": "APT-00003"},
              _reject("conflict", "the appointment is not booked"))],
}

#: The edge judge's answer: two real preconditions, one refusal (the client keeps only pairs it asked about).
EDGES = [{"source": "register_pet", "target": "book_appointment", "required": True,
          "reason": "the pet must be registered before it can be booked"},
         {"source": "book_appointment", "target": "cancel_appointment", "required": True,
          "reason": "an appointment must be booked before it can be cancelled"},
         {"source": "register_pet", "target": "find_pets", "required": False, "reason": "searching needs nothing"}]
