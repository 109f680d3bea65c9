"""What the host keeps per served domain: the package, its worker bundle, compiled argument validators.

Compiled once when the domain comes online, never per call (the hot path only looks up).
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.workers.protocol import DomainBundle

__all__ = ["DomainRuntime", "describe_argument_error"]


def describe_argument_error(error: jsonschema.ValidationError) -> str:
    """One sentence naming the parameter, for an agent to fix its call."""
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return f"missing required argument '{missing}'"
    if error.validator == "additionalProperties":
        extra = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        return f"unexpected argument{'s' if len(extra) > 1 else ''} {', '.join(repr(e) for e in extra)}"
    path = ".".join(str(p) for p in error.absolute_path)
    value = json.dumps(error.instance)[:80]
    if error.validator == "type":
        return f"argument '{path}' must be of type {error.validator_value}, got {value}"
    if error.validator == "enum":
        return f"argument '{path}' must be one of {error.validator_value}, got {value}"
    return f"argument '{path}' is invalid: {error.message[:200]}"


class DomainRuntime:
    def __init__(self, package: DomainPackage) -> None:
        self.package = package
        self.manifest = package.manifest
        self.bundle = DomainBundle(
            content_hash=package.content_hash,
            manifest_json=package.manifest.model_dump_json(),
            schema_sql=package.schema_sql,
            seed=package.seed,
            tools_source=package.tools_source,
        )
        self.validators = {
            t.name: jsonschema.Draft202012Validator(t.input_schema) for t in package.manifest.tools
        }

    @property
    def slug(self) -> str:
        return self.manifest.slug

    def check_arguments(self, tool: str, arguments: Any, max_bytes: int) -> str | None:
        """None when the arguments fit the input schema, else a message naming the parameter."""
        if not isinstance(arguments, dict):
            return "arguments must be a JSON object"
        size = len(json.dumps(arguments, default=str))
        if size > max_bytes:
            largest = max(arguments, key=lambda k: len(json.dumps(arguments[k], default=str)), default="?")
            return f"arguments are {size} bytes, over the {max_bytes}-byte limit (largest: '{largest}')"
        error = next(iter(self.validators[tool].iter_errors(arguments)), None)
        if error is None:
            return None
        best = jsonschema.exceptions.best_match(self.validators[tool].iter_errors(arguments))
        return describe_argument_error(best or error)
