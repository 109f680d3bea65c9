"""Parse ``--agent`` and ``--user`` values (``oracle``, ``noop``, ``random``, ``scripted``, ``openai:MODEL``).

A spec names a role's implementation and, for LLM roles, the model. It is stamped into
results, so it must be exactly what the user typed, normalised; it must not build anything.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from scaleenv_mcp.errors import UsageError

__all__ = ["AGENT_KINDS", "USER_KINDS", "RoleSpec", "parse_role"]

AGENT_KINDS = ("oracle", "noop", "random", "openai")
USER_KINDS = ("scripted", "openai")


class RoleSpec(BaseModel):
    kind: Literal["oracle", "noop", "random", "openai", "scripted"]
    model: str | None = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.model}" if self.model else self.kind


def parse_role(value: str, allowed: tuple[str, ...], option: str) -> RoleSpec:
    """``openai:gpt-4.1`` -> RoleSpec(kind="openai", model="gpt-4.1").

    Raises:
        UsageError: unknown kind, or a model missing from (or given to) the wrong kind.
    """
    kind, _, model = value.strip().partition(":")
    forms = " | ".join(f"{k}:MODEL" if k == "openai" else k for k in allowed)
    if kind not in allowed:
        raise UsageError(f"{option} {value!r}: expected one of {forms}")
    if kind == "openai" and not model:
        raise UsageError(f"{option} {value!r}: name the model, e.g. openai:gpt-4.1-mini")
    if kind != "openai" and model:
        raise UsageError(f"{option} {value!r}: {kind} takes no model")
    return RoleSpec(kind=kind, model=model or None)  # type: ignore[arg-type]
