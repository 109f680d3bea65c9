"""Host settings, read from arguments or ``SCALEENV_<SETTING>`` environment variables in one place."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["HostSettings"]


class HostSettings(BaseModel):
    host: str = Field(default="127.0.0.1", description="Bind address; loopback by default so nothing is exposed by accident.")
    port: int = Field(default=8765, description="Agent listener (MCP streamable HTTP).")
    control_port: int | None = Field(default=8766, description="Control listener (HTTP JSON, bearer token); None disables it, 0 picks a free port.")
    workers: int | None = Field(default=None, description="Worker processes; default one per core.")
    call_timeout: float = Field(default=10.0, description="Wall-time budget of one tool call, seconds.")
    stall_after: float = Field(default=0.5, ge=0, description="Seconds a worker may run one request before the "
                               "episodes whose requests wait behind it move to another worker (rebuilt there by replay), "
                               "so a runaway call stalls only its own episode; 0 keeps them waiting (the behaviour "
                               "before #29 item 5). With one worker nothing can move.")
    worker_memory_mb: int = Field(default=4096, description="Address-space limit of each worker, MiB.")
    idle_timeout: float = Field(default=1800.0, description="Seconds after which an unused episode is closed.")
    key_idle_timeout: float = Field(default=1800.0, description="Seconds after which a keyed episode "
                                    "(/mcp/{domain}/s/{key}) unused is closed; its key then answers episode_expired.")
    max_ended_keys: int = Field(default=100000, description="Keys of expired or closed keyed episodes remembered, so "
                                "that reusing one says it expired instead of starting a fresh episode; oldest forgotten first.")
    max_interactive_episodes: int = Field(default=1000, description="Live episodes opened by interactive MCP sessions.")
    max_harness_episodes: int = Field(default=20000, description="Live episodes created through the control API.")
    max_calls: int = Field(default=10000, description="Tool calls one episode may make.")
    max_trace: int = Field(default=10000, description="Trace records one episode may keep.")
    max_db_mb: int = Field(default=64, description="Largest episode database, MiB.")
    max_argument_bytes: int = Field(default=65536, description="Largest JSON of one call's arguments.")
    max_request_bytes: int = Field(default=1024 * 1024, description="Largest HTTP request body.")
    max_result_bytes: int = Field(default=512 * 1024, description="Largest JSON of one call's result; past it the "
                                  "call is refused with result_too_large (its writes rolled back).")
    trace_result_bytes: int = Field(default=16 * 1024, description="Results larger than this are kept in the trace "
                                    "as a bounded summary, not in full.")
    check_outputs: Literal["always", "sampled", "off"] = Field(
        default="always", description="How often a tool's result is checked against its output schema on the serving "
        "path: always (every result: a tool that drifts from its schema is refused on its first bad result), sampled "
        "(each tool's first result in each worker, then one in 16), off. A refused result is an environment fault, "
        "its writes rolled back. Validation always checks every case.")
    http_parser: Literal["auto", "h11", "httptools"] = Field(
        default="auto", description="uvicorn's HTTP/1.1 parser: auto takes httptools when it is installed (pip install "
        "'scaleenv-mcp[fast]'; about a tenth less server CPU per call), else h11 (pure Python, always there).")
    max_snapshots: int = Field(default=2000, description="Live snapshots per host; past it snapshot answers 429.")
    rotate_token: bool = Field(default=False, description="Write a new control token even if the token file has one.")
    token: str | None = Field(default=None, description="Control API bearer token; random when not given.")
    token_file: Path | None = Field(default=None, description="Where the control token is written (mode 0600).")
    allowed_origins: list[str] = Field(default_factory=list, description="Extra browser Origins allowed besides loopback.")
    skip_validation: bool = Field(default=False, description="Development only: serve domains without validation.")
    state_dir: Path = Field(default_factory=lambda: Path(os.environ.get("SCALEENV_STATE_DIR") or Path.home() / ".scaleenv"),
                            description="Host-side state: validation records, the control token file.")

    @classmethod
    def from_env(cls, **overrides: object) -> HostSettings:
        """Defaults, then SCALEENV_* variables, then explicit overrides (None means unset)."""
        values: dict[str, object] = {}
        for name, field in cls.model_fields.items():
            env = os.environ.get(f"SCALEENV_{name.upper()}")
            if env is not None:
                values[name] = env.split(",") if field.annotation == list[str] else env
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)

    @classmethod
    def for_proving(cls, **overrides: object) -> HostSettings:
        """``from_env`` for a host that proves tasks (synthesis, ``verify`` and its determinism run):
        every tool result checked against its output schema, whatever SCALEENV_CHECK_OUTPUTS says
        for serving (#25: only the serving path may sample or skip the check)."""
        return cls.from_env(**{**overrides, "check_outputs": "always"})
