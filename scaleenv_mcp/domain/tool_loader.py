"""Turn a domain's ``tools.py`` source into callable tool functions, defence in depth.

The only way tool code becomes executable (``tool_variants`` loads a copy with one function changed,
over a module loaded here, under the same policy and namespace rules). Order matters: the static policy
(``policy.check_policy``) must pass first; only then is the source compiled and executed
in a fresh namespace whose ``__builtins__`` holds just ``ALLOWED_BUILTINS`` and an
``__import__`` that admits only ``ALLOWED_IMPORTS``, so a construct the static check
missed still finds no ``open``, ``print``, ``eval`` or ``os`` at run time
(tests/unit/domain/test_tool_loader.py::test_runtime_builtins_are_restricted).

It must not import tool code as a Python module (``domains/`` is data, not a package),
must not share namespaces between loads, and must not run anything before the policy
passed. In-process Python is not a security boundary against a determined author (see
docs/threat-model.md): workers run this code under process limits, and a
container is the answer for stronger isolation.

``tool_signature`` reads a tool's parameters from the AST, without executing anything,
so the host can compare them with the manifest's input schemas.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import marshal
import traceback
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.policy import ALLOWED_BUILTINS, ALLOWED_IMPORTS, PolicyReport, PolicyViolation, compile_checked
from scaleenv_mcp.errors import DomainError

__all__ = ["ParamInfo", "ToolLoadError", "ToolSignature", "checked_code", "load_tool_functions", "parse_tools",
           "tool_signature"]


class ToolLoadError(DomainError):
    """A tools file cannot be loaded: refused by the policy, failed at import, or lacks a tool.

    A ``DomainError`` (code ``domain_invalid``): the domain package is broken, not the agent.
    The message reads ``file:line: reason``; ``violations`` holds the policy's findings.
    """

    def __init__(
        self, file: str, reason: str, line: int | None = None, violations: Sequence[PolicyViolation] = ()
    ) -> None:
        super().__init__(f"{file}:{line}" if line else file, reason)
        self.file = file
        self.line = line
        self.violations = list(violations)


class ParamInfo(BaseModel):
    """One parameter of a tool function, after ``ctx``."""

    name: str = Field(description="Parameter name; the key of the argument in the tool's input schema.")
    required: bool = Field(description="True when the parameter has no default value.")
    annotation: str | None = Field(default=None, description="Annotation as written in the source, if any.")


class ToolSignature(BaseModel):
    """A tool function's parameters as declared in ``tools.py``, read without executing it."""

    name: str = Field(description="Tool (function) name.")
    params: list[ParamInfo] = Field(description="Parameters after ctx, in declaration order (keyword-only last).")


@functools.lru_cache(maxsize=64)
def checked_code(source: str, filename: str = "tools.py") -> tuple[PolicyReport, bytes | None]:
    """The policy's report on ``source`` and, when it passed, the code compiled from the tree it checked,
    marshalled for a worker (None when refused). Cached: treat the report as read-only.

    The host checks a domain's source once per process (here) and its workers run the very code
    that was checked (``load_tool_functions(..., checked=...)``), instead of each worker checking
    and compiling it again: a worker loads every domain it serves, and the check and compile took
    0.1-0.2 s of its CPU per domain. A refused source sends no code, so the worker's own load reports
    the refusal as it always has. The bytes come from the host, which is trusted; they hold code
    only (a marshalled code object runs nothing until ``_execute_module`` runs it, restricted)."""
    report, code = compile_checked(source, filename)
    return report, None if code is None else marshal.dumps(code)


def load_tool_functions(source: str, filename: str, tool_names: list[str],
                        checked: bytes | None = None) -> dict[str, Callable[..., dict[str, Any]]]:
    """Check, compile and execute a tools module; return the named tool functions.

    Use it wherever tool code must run (workers, the procedural-test engine). Helper
    functions in the module are fine and stay reachable from the tools, but only the
    requested names are returned.

    Args:
        source: the text of ``tools.py``.
        filename: the name used in errors and tracebacks.
        tool_names: the tools the manifest declares.
        checked: ``checked_code(source, filename)`` from the host, which ran the policy over this
            source: executed as it is, without checking and compiling again.

    Returns:
        Tool name -> plain function defined in the module, first parameter ``ctx``.

    Raises:
        ToolLoadError: the policy refused the source (all violations listed), executing
            the module raised, or a tool is missing or is not a ``def name(ctx, ...)``.
    """
    if checked is not None:
        code = marshal.loads(checked)
    else:
        report, compiled = compile_checked(source, filename)
        if compiled is None:
            raise refusal(report)
        code = compiled
    return tool_functions(_execute_module(code, filename), filename, tool_names)


def refusal(report: PolicyReport) -> ToolLoadError:
    """The error for a tools file the policy refused, every violation listed."""
    listed = "; ".join(f"{report.file}:{v.line} [{v.rule}] {v.reason}" for v in report.violations)
    return ToolLoadError(report.file, f"refused by the tool policy: {listed}", report.violations[0].line,
                         report.violations)


def tool_functions(namespace: dict[str, Any], filename: str,
                   tool_names: list[str]) -> dict[str, Callable[..., dict[str, Any]]]:
    """The named tools of an executed module's namespace, each a ``def name(ctx, ...)`` defined there."""
    functions: dict[str, Callable[..., dict[str, Any]]] = {}
    for name in tool_names:
        obj = namespace.get(name)
        # A function defined in this module has this namespace as its globals; an imported
        # one (``from json import loads`` then a tool named loads) does not.
        if not isinstance(obj, types.FunctionType) or obj.__globals__ is not namespace:
            raise ToolLoadError(filename, f"tool {name!r} is not defined as a function in the module")
        code = obj.__code__
        if code.co_argcount < 1 or code.co_varnames[0] != "ctx":
            raise ToolLoadError(filename, f"tool {name!r} must take ctx as its first parameter", code.co_firstlineno)
        functions[name] = obj
    return functions


def parse_tools(source: str) -> ast.Module:
    """Parse tools.py once; ``tool_signature`` takes the tree so that a package of 40 tools is
    not parsed 40 times (that was most of the start-up time of `scaleenv serve`)."""
    try:
        return ast.parse(source, "tools.py")
    except SyntaxError as exc:
        raise ToolLoadError("tools.py", f"syntax error: {exc.msg}", exc.lineno) from exc


def tool_signature(source: str | ast.Module, name: str) -> ToolSignature:
    """Read the parameters of the top-level tool ``name`` from the AST, without running code.

    ``source`` is the text of tools.py or its tree from ``parse_tools``.

    Raises:
        ToolLoadError: syntax error, no such function, first parameter not ``ctx``, or
            parameters an input schema cannot describe (``*args``, ``**kwargs``,
            positional-only).
    """
    tree = source if isinstance(source, ast.Module) else parse_tools(source)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if node is None:
        raise ToolLoadError("tools.py", f"tool {name!r} is not defined as a top-level function")
    args = node.args
    if not args.args or args.args[0].arg != "ctx" or args.posonlyargs:
        raise ToolLoadError("tools.py", f"tool {name!r} must be def {name}(ctx, ...) without positional-only "
                            "parameters", node.lineno)
    if args.vararg or args.kwarg:
        raise ToolLoadError("tools.py", f"tool {name!r} takes *args/**kwargs, which no input schema describes",
                            node.lineno)
    positional = args.args[1:]
    first_default = len(positional) - len(args.defaults)
    params = [_param(a, i < first_default) for i, a in enumerate(positional)]
    params += [_param(a, d is None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return ToolSignature(name=name, params=params)


def _param(arg: ast.arg, required: bool) -> ParamInfo:
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else None
    return ParamInfo(name=arg.arg, required=required, annotation=annotation)


def _restricted_import(
    name: str,
    module_globals: Mapping[str, object] | None = None,
    module_locals: Mapping[str, object] | None = None,
    fromlist: Sequence[str] | None = (),
    level: int = 0,
) -> types.ModuleType:
    """``__import__`` for tool code: only ``from <allowed module> import <allowed names>``."""
    allowed = ALLOWED_IMPORTS.get(name)
    names = list(fromlist or ())
    if level != 0 or allowed is None or not names or not set(names) <= allowed:
        raise ImportError(f"import of {name!r} {names} is not allowed in tool code")
    return importlib.import_module(name)


def _tool_builtins() -> dict[str, Any]:
    """A fresh builtins mapping for one tools module: the allow-list and the guarded import."""
    table: dict[str, Any] = {name: getattr(builtins, name) for name in ALLOWED_BUILTINS}
    table["__import__"] = _restricted_import
    return table


def _execute_module(code: types.CodeType, filename: str) -> dict[str, Any]:
    """Run checked code (``policy.compile_checked``) in a fresh namespace with restricted builtins."""
    namespace: dict[str, Any] = {"__builtins__": _tool_builtins(), "__name__": "scaleenv_tools"}
    try:
        exec(code, namespace)  # noqa: S102 - the point of this module; see the docstring
    except Exception as exc:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == filename]
        line = frames[-1].lineno if frames else getattr(exc, "lineno", None)
        raise ToolLoadError(filename, f"executing the module raised {type(exc).__name__}: {exc}", line) from exc
    return namespace
