"""Which model and endpoint each generator role talks to: the ``--roles`` file and its defaults.

Roles differ in what they need: the code and debug agents gain most from a strong model, the
seed writer from a long output budget, the edge judge from a cheap one. A roles file maps a
role (or ``default``) to its settings; anything a role leaves out comes from ``default``,
then from the command line (``--model``, ``--base-url``). JSON or TOML:

```toml
[default]
model = "gpt-4o-mini"
base_url = "https://api.openai.com/v1"

[code]
model = "gpt-4o"
temperature = 0.2
max_tokens = 6000

[graph_edges]
model = "qwen2.5-7b-instruct"
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "VLLM_API_KEY"
structured = "plain"
```

The API key is never in the file: ``api_key_env`` names the environment variable that holds
it (``OPENAI_API_KEY`` by default); local endpoints that need none get a placeholder.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scaleenv_mcp.errors import UsageError

__all__ = ["ROLES", "RoleSettings", "RolesFile", "load_roles", "resolve_roles"]

#: Every role of the pipeline; each has generator/prompts/<role>.md.
ROLES = ("domain_card", "tool_plan", "tool_schemas", "db_schema", "seed_data", "db_repair", "code", "tests", "debug",
         "graph_edges", "chain_writer", "task_writer", "expansion_gate")

StructuredMode = Literal["auto", "json_schema", "tool", "plain"]


class RoleSettings(BaseModel):
    """Settings of one role; every field optional in the file, filled from ``default`` and the CLI."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = Field(default=None, description="Model name sent to the endpoint.")
    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1.")
    api_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    temperature: float | None = Field(default=None, description="Sampling temperature (0 for reproducible output).")
    max_tokens: int | None = Field(default=None, description="Output budget of one reply; doubled once on truncation.")
    timeout: float | None = Field(default=None, description="Seconds before one request is abandoned and retried.")
    structured: StructuredMode | None = Field(
        default=None, description="auto (json_schema, falling back to plain JSON instructions), json_schema, "
        "tool (a forced function call) or plain.")


class RolesFile(BaseModel):
    """The parsed ``--roles`` file: ``default`` plus per-role overrides."""

    model_config = ConfigDict(extra="forbid")

    default: RoleSettings = Field(default_factory=RoleSettings)
    roles: dict[str, RoleSettings] = Field(default_factory=dict)


class ResolvedRole(BaseModel):
    """A role's complete settings, as the LLM client uses them."""

    role: str
    model: str
    base_url: str | None
    api_key_env: str
    temperature: float
    max_tokens: int
    timeout: float
    structured: StructuredMode


_MAX_TOKENS = {"seed_data": 8000, "code": 4000, "tests": 6000, "debug": 6000, "tool_schemas": 8000, "db_schema": 6000}


def load_roles(path: Path | None) -> RolesFile:
    """Read a roles file (``.json`` or ``.toml``; top-level keys are roles or ``default``).

    Raises:
        UsageError: unreadable file, unknown role, unknown setting.
    """
    if path is None:
        return RolesFile()
    try:
        text = Path(path).read_text()
        raw = tomllib.loads(text) if Path(path).suffix == ".toml" else json.loads(text)
    except (OSError, ValueError) as error:
        raise UsageError(f"roles file {path}: {error}") from error
    if not isinstance(raw, dict):
        raise UsageError(f"roles file {path}: must map role names to settings")
    unknown = sorted(set(raw) - set(ROLES) - {"default"})
    if unknown:
        raise UsageError(f"roles file {path}: unknown roles {unknown} (known: default, {', '.join(ROLES)})")
    try:
        return RolesFile(default=RoleSettings.model_validate(raw.get("default", {})),
                         roles={k: RoleSettings.model_validate(v) for k, v in raw.items() if k != "default"})
    except ValidationError as error:
        first = error.errors()[0]
        raise UsageError(f"roles file {path}: {'.'.join(map(str, first['loc']))}: {first['msg']}") from error


def resolve_roles(file: RolesFile, *, model: str | None, base_url: str | None, timeout: float = 120.0,
                  max_tokens: int | None = None, only: tuple[str, ...] = ROLES) -> dict[str, ResolvedRole]:
    """Every role's settings (or those of ``only``): role entry, then ``default``, then the command line, then built-ins.

    ``max_tokens`` (``--max-tokens``) replaces the built-in per-role budgets; ``timeout`` is ``--timeout``.

    ``only`` serves commands that ask one role (``tasks synth --model`` asks ``task_writer``): a
    roles file that names a model for that role alone is then enough.

    Raises:
        UsageError: a role ends up with no model.
    """
    resolved = {}
    for role in only:
        own, default = file.roles.get(role, RoleSettings()), file.default

        def pick(name: str, fallback: object) -> object:
            value = getattr(own, name)
            return value if value is not None else (getattr(default, name) if getattr(default, name) is not None
                                                    else fallback)

        chosen_model = pick("model", model)
        if not chosen_model:
            raise UsageError(f"no model for role {role}: pass --model or set it in the roles file")
        resolved[role] = ResolvedRole(
            role=role, model=str(chosen_model), base_url=pick("base_url", base_url),  # type: ignore[arg-type]
            api_key_env=str(pick("api_key_env", "OPENAI_API_KEY")), temperature=float(pick("temperature", 0.0)),
            max_tokens=int(pick("max_tokens", max_tokens or _MAX_TOKENS.get(role, 3000))),  # type: ignore[call-overload]
            timeout=float(pick("timeout", timeout)), structured=pick("structured", "auto"))  # type: ignore[arg-type]
    return resolved
