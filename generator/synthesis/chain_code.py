"""A seed chain written by an LLM as Python code over the tools, read without running it.

The paper has the LLM write the seed chain C1 as executable code so each call's output
feeds the next call's arguments. That code is untrusted, so it is never executed here: it is
parsed with ``ast`` and only one shape is accepted, a straight-line function

    def chain(call):
        found = call("find_pets", {"owner_id": "OWN-00003"})
        pet = found["items"][0]["pet_id"]
        return call("book_visit", {"pet_id": pet, "reason": "check-up"})

whose statements bind a name to ``call("<tool>", {...})`` or to a subscript path of an
earlier result, and whose argument values are literals or such names and paths. Anything
else (imports, loops, attribute access, calls other than ``call``, unknown tools or
parameters, a name used before it is bound) is refused with the line and the reason. The
program becomes a chain plan: literal arguments are what the user will state, references are
the data flow the executor must honour; the executor then runs it on the task's episode like
any sampled chain, and the verifier's gates decide whether the task is kept.
"""

from __future__ import annotations

import ast
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest

__all__ = ["ChainCodeError", "ChainRequest", "ChainStep", "ChainWriter", "StartRow", "WrittenChain", "parse_chain_code"]

MAX_STEPS = 6


class ChainRequest(BaseModel):
    """What a chain writer is asked: reach ``end_tool`` about the entity ``subject`` names, in this world."""

    task_id: str
    end_tool: str
    hint: list[str] = Field(description="A path through the tool graph that reaches end_tool (a suggestion).")
    subject: str | None = Field(description="The parameter naming the entity the task is about.")
    anchor: dict[str, Any] | None = Field(description="That entity's row.")
    nearby: list[dict[str, Any]] = Field(default_factory=list, description="Rows linked to it: {table, row}.")
    tools: list[dict[str, Any]] = Field(description="The tools a chain may call: name, description, parameters.")
    tables: list[dict[str, Any]] = Field(default_factory=list,
                                         description="The tables start-state rows may go to: name, columns, keys.")


class StartRow(BaseModel):
    table: str = Field(description="The table the row goes to.")
    row: dict[str, Any] = Field(description="Every column of the row; its id must be new.")
    distractor: bool = Field(default=False, description="True for a look-alike the goal does not touch.")


class WrittenChain(BaseModel):
    """A chain writer's answer: the seed chain as code, and rows to add to the task's start state."""

    code: str = Field(description="The seed chain as one Python function, def chain(call): ..., straight-line code.")
    rows: list[StartRow] = Field(default_factory=list, description="Start-state rows the chain needs that are not in "
                                 "the rows given (new entities), and look-alike distractors. Optional.")


#: Answers a request with a written chain (the generator's ``chain_writer`` role).
ChainWriter = Callable[[ChainRequest], Awaitable[WrittenChain]]


class ChainCodeError(ValueError):
    """The code is not a chain this module accepts; the message names the line and why."""


@dataclass
class ChainStep:
    tool: str
    literals: dict[str, Any] = field(default_factory=dict)  # parameter -> the value the code gives
    references: dict[str, tuple[int, tuple[str | int, ...]]] = field(default_factory=dict)  # parameter -> (step, path)


def _strip_fences(code: str) -> str:
    lines = code.strip().splitlines()
    if lines and lines[0].startswith("```"):
        lines = lines[1:]
        if lines and lines[-1].startswith("```"):
            lines = lines[:-1]
    return "\n".join(lines)


def _literal(node: ast.AST, line: int) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError):
        raise ChainCodeError(f"line {line}: an argument must be a literal, a name bound earlier, or a path into one") from None


class _Reader:
    def __init__(self, manifest: DomainManifest) -> None:
        self.manifest = manifest
        self.tools = {t.name: t for t in manifest.tools}
        self.names: dict[str, tuple[int, tuple[str | int, ...]]] = {}  # name -> (step, path)
        self.steps: list[ChainStep] = []

    def path(self, node: ast.AST, line: int) -> tuple[int, tuple[str | int, ...]] | None:
        """``name`` or ``name["a"][0]["b"]`` over names bound earlier, else None."""
        keys: list[str | int] = []
        while isinstance(node, ast.Subscript):
            key = node.slice
            if not isinstance(key, ast.Constant) or not isinstance(key.value, str | int) or isinstance(key.value, bool):
                raise ChainCodeError(f"line {line}: subscripts must be constant keys or indexes")
            keys.insert(0, key.value)
            node = node.value
        if isinstance(node, ast.Name):
            if node.id not in self.names:
                raise ChainCodeError(f"line {line}: {node.id!r} is used before it is bound to a call's result")
            step, base = self.names[node.id]
            return step, base + tuple(keys)
        if keys:
            raise ChainCodeError(f"line {line}: only results of earlier calls can be subscripted")
        return None

    def call(self, node: ast.AST, line: int) -> int | None:
        """Read ``call("tool", {...})`` into a step; its index, or None when ``node`` is no call."""
        if not isinstance(node, ast.Call):
            return None
        if not isinstance(node.func, ast.Name) or node.func.id != "call":
            raise ChainCodeError(f"line {line}: the only function a chain may call is call(tool, arguments)")
        if node.keywords or len(node.args) not in (1, 2):
            raise ChainCodeError(f"line {line}: write call(\"tool_name\", {{...arguments...}})")
        name = node.args[0]
        if not isinstance(name, ast.Constant) or not isinstance(name.value, str):
            raise ChainCodeError(f"line {line}: the tool name must be a string literal")
        spec = self.tools.get(name.value)
        if spec is None:
            raise ChainCodeError(f"line {line}: unknown tool {name.value!r}")
        step = ChainStep(tool=spec.name)
        if len(node.args) == 2:
            arguments = node.args[1]
            if not isinstance(arguments, ast.Dict):
                raise ChainCodeError(f"line {line}: the arguments must be a dict literal")
            properties = spec.input_schema.get("properties") or {}
            for key, value in zip(arguments.keys, arguments.values):
                if not isinstance(key, ast.Constant) or not isinstance(key.value, str):
                    raise ChainCodeError(f"line {line}: argument names must be string literals")
                if key.value not in properties:
                    raise ChainCodeError(f"line {line}: {spec.name} has no parameter {key.value!r}")
                reference = self.path(value, line) if isinstance(value, ast.Name | ast.Subscript) else None
                if reference is not None:
                    step.references[key.value] = reference
                else:
                    step.literals[key.value] = _literal(value, line)
        self.steps.append(step)
        if len(self.steps) > MAX_STEPS:
            raise ChainCodeError(f"line {line}: a seed chain has at most {MAX_STEPS} calls")
        return len(self.steps) - 1

    def statement(self, node: ast.stmt) -> None:
        line = node.lineno
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            step = self.call(node.value, line)
            bound = (step, ()) if step is not None else self.path(node.value, line)
            if bound is None:
                raise ChainCodeError(f"line {line}: a name may only hold a call's result or a path into one")
            self.names[node.targets[0].id] = bound
        elif isinstance(node, ast.Expr | ast.Return) and node.value is not None:
            if self.call(node.value, line) is None and not (isinstance(node, ast.Return) and self.path(node.value, line)):
                raise ChainCodeError(f"line {line}: only call(...) statements, assignments and a final return are allowed")
        else:
            raise ChainCodeError(f"line {line}: {type(node).__name__} is not allowed in a seed chain (straight-line code only)")


def parse_chain_code(code: str, manifest: DomainManifest) -> list[ChainStep]:
    """The steps of ``code`` (fences allowed around it), or ``ChainCodeError``."""
    try:
        module = ast.parse(_strip_fences(code))
    except SyntaxError as error:
        raise ChainCodeError(f"line {error.lineno}: {error.msg}") from None
    functions = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    if len(module.body) != 1 or len(functions) != 1:
        raise ChainCodeError("the code must be exactly one function, def chain(call): ...")
    function = functions[0]
    if [a.arg for a in function.args.args] != ["call"] or function.decorator_list:
        raise ChainCodeError(f"line {function.lineno}: the function must take exactly one parameter, call")
    reader = _Reader(manifest)
    for statement in function.body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str):
            continue  # a docstring
        reader.statement(statement)
    if not reader.steps:
        raise ChainCodeError("the chain calls no tool")
    return reader.steps
