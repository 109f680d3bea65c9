"""The task writer's answer: a kept task's user side, reworded by an LLM (``scaleenv_mcp.generator.synthesis.rewording``
checks it). A model of its own, so that ``scaleenv_mcp.generator.drafts`` lists it with every role's answer
while synthesis does not import ``drafts``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["TaskWording"]


class TaskWording(BaseModel):
    opening: str = Field(description="The user's first message to the agent.")
    instruction: str = Field(description="The user's goal, for the user simulator only.")
    known: dict[str, Any] = Field(default_factory=dict, description="Facts the user states when asked.")
    withheld: dict[str, Any] = Field(default_factory=dict, description="Facts given only when asked specifically.")
    communicate: list[str] = Field(default_factory=list, description="Facts the agent must tell the user.")
