"""The pinned task model (one JSON object per line of ``tasks.jsonl``).

Row operations (``state.model.RowOp``) are shared by task setups and procedural-test
fixtures: one way to say "this world, plus these rows". Tasks carry no timestamps, so the same synthesis seed gives
byte-identical files (``Task.to_line``).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.model import RowOp

__all__ = ["GoldSpec", "PersonaRef", "Task", "TaskAction", "TaskMeta", "UserSpec", "VerifiedRecord"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UserSpec(_Model):
    opening: str = Field(description="The first message the user sends the agent.")
    instruction: str = Field(description="The goal, for the user simulator only; never shown to the agent.")
    known: dict[str, Any] = Field(default_factory=dict, description="Facts the user states when asked.")
    withheld: dict[str, Any] = Field(
        default_factory=dict, description="Facts the user gives only if the agent asks for them specifically."
    )


class TaskAction(_Model):
    tool: str = Field(description="Tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Arguments of the call.")


class GoldSpec(_Model):
    diff: StateDiff = Field(description="Expected difference between the start state and the gold end state.")
    fingerprint: str = Field(description="SHA-256 fingerprint of the gold end state.")


class TaskMeta(_Model):
    seed_chain: list[str] = Field(default_factory=list, description="Tools of the seed chain C1, in order.")
    seed_chain_code: str | None = Field(
        default=None, description="C1 as the LLM wrote it (def chain(call): ...), when a chain writer wrote it."
    )
    chains: list[list[str]] = Field(
        default_factory=list, description="Tools of every chain C1..Cn the task was grown from, C1 first "
        "(a read of a chain the gold did not need is not among the actions)."
    )
    expanded_tools: list[str] = Field(default_factory=list, description="The expanded tool set H.")
    expanded_size: int = Field(default=0, description="|H|.")
    complexity: float = Field(default=0.0, description="c(H) = (|V| + 0.5 |E|) / 50.")
    feasibility: float = Field(default=1.0, description="The expansion gate's feasibility score for the final H, 0-1.")
    patched_tools: list[str] = Field(
        default_factory=list, description="Tools of H that answer only thanks to a row the synthesiser patched into the setup."
    )
    distractors: int = Field(default=0, description="Number of distractor rows in the setup.")
    synthesis_seed: int = Field(default=0, description="Seed the task was synthesised from.")
    grounding: list[dict[str, Any]] = Field(
        default_factory=list, description="Per argument of every action: where its value comes from."
    )
    policy_rule: str | None = Field(default=None, description="refusal: the policy-only rule that says no.")
    forbidden: list[TaskAction] = Field(
        default_factory=list, description="refusal: the call the user asks for, which the tool would run and the rule "
        "forbids; the verifier proves it runs and scores 0.")


class VerifiedRecord(_Model):
    package_hash: str = Field(description="Content hash of the domain package the task was verified against.")
    result: Literal["pass", "fail"] = Field(description="Outcome of the verification gates.")


class PersonaRef(_Model):
    """Who the simulated user is: a principal of the domain. Every gold write acts as this person."""

    kind: str = Field(description="Principal kind from the manifest (customer, patient, seller...).")
    id: str = Field(description="The principal's key (internal: for the verifier, never told to the user).")


class Task(_Model):
    id: str = Field(description="Stable task id, unique within its domain.")
    domain: str = Field(description="Domain slug.")
    split: Literal["train", "test"] = Field(default="train", description="Dataset split.")
    difficulty: Literal["easy", "medium", "hard"] = Field(description="Chain length, sub-goals and distractor density.")
    user: UserSpec
    setup: list[RowOp] = Field(default_factory=list, description="Row operations applied on top of the seed.")
    actions: list[TaskAction] = Field(description="The reference solution, in order.")
    gold: GoldSpec | None = Field(default=None, description="Gold diff and fingerprint (set by synthesis).")
    communicate: list[str] = Field(default_factory=list, description="Facts the agent must tell the user.")
    kind: Literal["action", "information", "refusal"] = Field(
        default="action", description="action: change the world as asked; information: tell the user what they asked "
        "(the communicate facts); refusal: a policy says no to what the user asks (meta.forbidden), the right outcome is "
        "that it is not done and the reason is told (the communicate facts, when the rule names them); a mixed request's "
        "other, allowed errand is done (the gold diff; empty when there is none). Omitted from the line when "
        "action.")
    persona: PersonaRef | None = Field(
        default=None, description="The principal the user is. When set, the verifier holds the task to it: every gold "
        "write acts as this principal and the user's words name no internal id. Omitted from the line when None.")
    meta: TaskMeta = Field(default_factory=TaskMeta)
    verified: VerifiedRecord | None = Field(default=None)

    def to_line(self) -> str:
        data = self.model_dump(mode="json")
        if data["persona"] is None:  # tasks of before these fields keep their bytes (and their hashes)
            del data["persona"]
        if data["kind"] == "action":
            del data["kind"]
        for key in ("policy_rule", "forbidden"):
            if not data["meta"][key]:
                del data["meta"][key]
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
