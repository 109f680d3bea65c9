"""What the host keeps per served domain: the package, its worker bundle, compiled argument validators.

Compiled once when the domain comes online, never per call (the hot path only looks up): the
verdict by ``domain.schema_code``'s plain function, jsonschema only for a failing call's message.
Arguments are checked against the bounded input schemas (``domain.schema_limits``), the
same ones ``tools/list`` serves.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import jsonschema

from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.domain.schema_code import compile_check
from scaleenv_mcp.domain.schema_limits import bounded_schema
from scaleenv_mcp.domain.tool_loader import checked_code
from scaleenv_mcp.workers.protocol import DomainBundle

__all__ = ["DomainRuntime", "describe_argument_error"]


def _names(kind: str, names: list[str]) -> str:
    return f"{kind} argument{'s' if len(names) > 1 else ''} {', '.join(repr(n) for n in names)}"


def argument_names_problem(schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    """'missing required arguments 'a', 'b'; unexpected argument 'c'': all of them, in schema order."""
    properties = schema.get("properties", {})
    missing = [name for name in schema.get("required", []) if name not in arguments]
    extra = sorted(set(arguments) - set(properties)) if schema.get("additionalProperties") is False else []
    parts = ([_names("missing required", missing)] if missing else []) + ([_names("unexpected", extra)] if extra else [])
    return "; ".join(parts)


def describe_argument_error(error: jsonschema.ValidationError) -> str:
    """One sentence naming the parameter, for an agent to fix its call."""
    if error.validator in ("required", "additionalProperties") and isinstance(error.instance, dict):
        return argument_names_problem(error.schema, error.instance)
    path = ".".join(str(p) for p in error.absolute_path)
    value = json.dumps(error.instance)[:80]
    if error.validator == "type":
        return f"argument '{path}' must be of type {error.validator_value}, got {value}"
    if error.validator == "enum":
        return f"argument '{path}' must be one of {error.validator_value}, got {value}"
    if error.validator == "maxLength":
        return f"argument '{path}' is {len(error.instance)} characters long, over its limit of {error.validator_value}"
    if error.validator in ("minimum", "maximum"):
        bound = "at least" if error.validator == "minimum" else "at most"
        return f"argument '{path}' must be {bound} {error.validator_value}, got {value}"
    return f"argument '{path}' is invalid: {error.message[:200]}"


def _is_integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# JSON Schema calls 1.0 and -0.0 integers; tools bind them to SQLite as floats, and an OFFSET of
# -0.0 failed inside the tool as an environment fault (the soak found it). Only an int is one here.
_StrictValidator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer))


class DomainRuntime:
    def __init__(self, package: DomainPackage) -> None:
        self.package = package
        self.manifest = package.manifest
        # What workers load the domain from; it carries the code the host's policy check compiled once
        # ``worker_bundle()`` has run (until then a worker checks and compiles the source itself).
        self.bundle = DomainBundle(
            content_hash=package.content_hash,
            manifest_json=package.manifest.model_dump_json(),
            schema_sql=package.schema_sql,
            seed=package.seed,
            tools_source=package.tools_source,
        )
        self._checking: asyncio.Future[tuple[Any, bytes | None]] | None = None
        self.input_schemas: dict[str, dict[str, Any]] = {
            t.name: bounded_schema(t.input_schema) for t in package.manifest.tools
        }
        self.validators = {name: _StrictValidator(schema) for name, schema in self.input_schemas.items()}
        # the verdict in plain code where the schema allows it; jsonschema only for the message (#25)
        self.argument_checks = {name: compile_check(schema, strict_integer=True)
                                for name, schema in self.input_schemas.items()}

    async def worker_bundle(self) -> DomainBundle:
        """The bundle with the tool code the policy check compiled here: checked once per process, in a
        thread, when the first worker needs the domain, so every later worker load (another worker, a
        replaced one, an episode moved) runs that code instead of checking and compiling the source again
        (``tool_loader.checked_code``). Not at start-up: a domain no episode uses costs nothing, and
        ``serve`` brings domains online as fast as before. A refused source keeps the plain bundle, and
        the worker's own load reports the refusal."""
        if self.bundle.tools_code is None:
            checking = self._checking  # one check for every episode opened meanwhile (a batch opens many)
            if checking is None or checking.get_loop() is not asyncio.get_running_loop():
                checking = self._checking = asyncio.ensure_future(
                    asyncio.to_thread(checked_code, self.package.tools_source, "tools.py"))
            try:
                code = (await asyncio.shield(checking))[1]
            except Exception:  # a check that broke here must not stop episodes: the worker checks the source itself
                self._checking = None
                return self.bundle
            if code is not None and self.bundle.tools_code is None:  # refused: the plain bundle stays
                self.bundle = dataclasses.replace(self.bundle, tools_code=code)
        return self.bundle

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
        compiled = self.argument_checks[tool]
        if compiled is not None and compiled(arguments):
            return None
        errors = list(self.validators[tool].iter_errors(arguments))
        if not errors:
            return None
        # every missing and every unexpected argument in one message, so an agent (or a person
        # at the CLI) fixes its call in one go rather than one name per attempt
        wrong_names = [e for e in errors if not e.absolute_path and e.validator in ("required", "additionalProperties")]
        if wrong_names:
            return argument_names_problem(self.validators[tool].schema, arguments)
        return describe_argument_error(jsonschema.exceptions.best_match(errors) or errors[0])
