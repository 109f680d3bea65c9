"""Load a variant of a loaded tools module that differs from it in one top-level function.

Validation runs each tool's cases against some 300 mutants (``procedural.mutation``), each a copy
of tools.py with one function changed. Loaded as a new module, a mutant cost about 55 ms (parse,
policy check, compile and run 1,000 lines), most of what a mutant costs. A variant whose text is
its base's with exactly one top-level function replaced is loaded from that function alone:

* the policy checks the new function in its module's context: a module holding the base's
  imports, constants and function names, the other functions as empty stubs (their bodies passed
  when the base loaded, and nothing the checker decides about one function depends on another's
  body);
* only the new function is compiled (with the module's imports, which change its code, and the line
  numbers it has in the variant's text);
* it runs in a copy of the base's namespace whose functions are rebound to the copy, so the other
  functions call the new one, as in a fresh load of the variant. The copy shares with the base only
  what the policy keeps immutable (module constants, default values, imported functions) and the
  builtins table, which tool code cannot name.

Any other variant is loaded in full by ``tool_loader.load_tool_functions``, so a variant's tools
never depend on which path loaded them (tests/unit/domain/test_tool_variants.py).
"""

from __future__ import annotations

import ast
import bisect
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from scaleenv_mcp.domain.policy import check_tree
from scaleenv_mcp.domain.tool_loader import load_tool_functions, refusal, tool_functions

__all__ = ["load_variant"]

Tools = dict[str, Callable[..., dict[str, Any]]]
_OTHER_LINE_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


@dataclass(frozen=True)
class _Layout:
    """Where the base's top-level functions are, and the context a changed one is checked in."""

    source: str
    offsets: list[int]  # character offset of each line's start, and of the end
    spans: list[tuple[int, int, str]]  # (first line, end line) 0-based, end exclusive, per function
    context: list[ast.stmt]  # module body with every function an empty stub
    imports: list[ast.ImportFrom]  # compiled with the function: `from __future__` and imported names change its code


def load_variant(base: Mapping[str, Callable[..., Any]], base_source: str, source: str, filename: str,
                 tool_names: list[str]) -> Tools:
    """The tools of ``source``, a variant of the module ``base`` was loaded from (``base_source``).

    Raises ``ToolLoadError`` as ``load_tool_functions`` does, for the same sources.
    """
    namespace = next(iter(base.values())).__globals__ if base else None
    changed = _changed_function(_layout(base_source), source, filename) if namespace is not None else None
    if namespace is None or changed is None:
        return load_tool_functions(source, filename, tool_names)
    function, layout = changed
    body = [function if isinstance(s, ast.FunctionDef) and s.name == function.name else s for s in layout.context]
    report = check_tree(ast.Module(body=body, type_ignores=[]), filename)
    if report.violations:
        raise refusal(report)
    try:
        code = compile(ast.Module(body=[*layout.imports, function], type_ignores=[]), filename, "exec",
                       dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the compiler's own refusals
        return load_tool_functions(source, filename, tool_names)  # which reports them as a full load does
    copy = _rebound(namespace)
    exec(code, copy)  # noqa: S102 - checked above, in the base's restricted namespace (tool_loader)
    return tool_functions(copy, filename, tool_names)


@lru_cache(maxsize=4)
def _layout(base_source: str) -> _Layout:
    tree = ast.parse(base_source)
    offsets = [0]
    for line in base_source.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    # Line numbers count "\n" only here; a source with another line break (which the parser or
    # str.splitlines also counts) is always loaded in full rather than cut at the wrong place.
    plain = not any(mark in base_source for mark in _OTHER_LINE_BREAKS)
    spans: list[tuple[int, int, str]] = []
    context: list[ast.stmt] = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and plain and not statement.decorator_list and statement.end_lineno:
            spans.append((statement.lineno - 1, statement.end_lineno, statement.name))
            stub = ast.FunctionDef(name=statement.name, args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                                                            kw_defaults=[], defaults=[]),
                                   body=[ast.Pass()], decorator_list=[], returns=None)
            context.append(ast.copy_location(stub, statement))
        else:
            context.append(statement)
    imports = [s for s in tree.body if isinstance(s, ast.ImportFrom)]
    return _Layout(base_source, offsets, spans, context, imports)


def _changed_function(layout: _Layout, source: str, filename: str) -> tuple[ast.FunctionDef, _Layout] | None:
    """The one top-level function ``source`` replaces in the base, parsed at its lines; None otherwise."""
    base = layout.source
    low, high = 0, min(len(base), len(source))  # the length of the common prefix, by bisection
    while low < high:
        middle = (low + high + 1) // 2
        if base[:middle] == source[:middle]:
            low = middle
        else:
            high = middle - 1
    line = bisect.bisect_right(layout.offsets, low) - 1
    span = next(((first, end, name) for first, end, name in layout.spans if first <= line < end), None)
    if span is None:
        return None
    first, end, name = span
    head, tail = layout.offsets[first], base[layout.offsets[end]:]
    if len(source) - len(tail) < head or not source.endswith(tail):
        return None
    try:
        tree = ast.parse(source[head:len(source) - len(tail)], filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the full load reports it
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != name:
        return None
    return ast.increment_lineno(tree.body[0], first), layout


def _rebound(namespace: dict[str, Any]) -> dict[str, Any]:
    """A copy of a tools module's namespace whose own functions see the copy as their globals."""
    copy = dict(namespace)
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
            clone = types.FunctionType(value.__code__, copy, value.__name__, value.__defaults__, value.__closure__)
            clone.__kwdefaults__ = value.__kwdefaults__
            clone.__annotations__ = value.__annotations__
            clone.__doc__ = value.__doc__
            clone.__qualname__ = value.__qualname__
            copy[name] = clone
    return copy
