"""Hostile copies of a domain package, as an attacker would edit its ``tools.py`` (issue #30).

Each copy still passes the static policy (loops, recursion and big constant expressions are
allowed syntax), so only running it shows what it does: every tool loops forever, every tool
recurses without end, or the module runs a CPU or memory bomb when it is imported. Used by
the fail-fast validation tests and by ``scaleenv bench`` (time to verdict), so both measure
the same packages.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

__all__ = ["HOSTILE_KINDS", "drifting_copy", "hostile_copy", "hostile_source"]

#: kind -> what the edit does
HOSTILE_KINDS = {
    "loop": "every tool starts with `while True: pass`",
    "recurse": "every tool starts by calling itself with its own arguments",
    "import_cpu_bomb": "tools.py computes 9 ** 9 ** 9 at import",
    "import_memory_bomb": "tools.py builds a 100 GB string at import",
}

_BOMBS = {"import_cpu_bomb": "WARM_UP = 9 ** 9 ** 9", "import_memory_bomb": 'WARM_UP = "x" * 10 ** 11'}


def _first_statement(function: ast.FunctionDef, kind: str) -> ast.stmt:
    if kind == "loop":
        return ast.parse("while True:\n    pass").body[0]
    names = [a.arg for a in function.args.args[1:] + function.args.kwonlyargs]  # all but ctx
    call = f"{function.name}(ctx, {', '.join(f'{n}={n}' for n in names)})"
    return ast.parse(f"return {call}").body[0]


def hostile_source(source: str, tools: list[str], kind: str) -> str:
    """``source`` with the ``kind`` edit applied to every function in ``tools`` (or to the module)."""
    tree = ast.parse(source)
    if kind in _BOMBS:
        after_imports = max((i + 1 for i, s in enumerate(tree.body) if isinstance(s, ast.ImportFrom)), default=0)
        tree.body.insert(after_imports, ast.parse(_BOMBS[kind]).body[0])
    elif kind in HOSTILE_KINDS:
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name in tools:
                node.body.insert(0, _first_statement(node, kind))
    else:
        raise ValueError(f"unknown hostile kind {kind!r}; one of {sorted(HOSTILE_KINDS)}")
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def hostile_copy(package: Path, target: Path, kind: str) -> Path:
    """Copy the package at ``package`` to ``target`` with ``kind`` applied to its tools.py."""
    shutil.copytree(package, target)
    tools = [t["name"] for t in json.loads((target / "domain.json").read_text())["tools"]]
    (target / "tools.py").write_text(hostile_source((target / "tools.py").read_text(), tools, kind))
    return target


class _Drift(ast.NodeTransformer):
    """``return EXPR`` -> ``return {k: str(v) for k, v in (EXPR).items()}``: every value a string."""

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        return node  # nested functions keep their returns

    def visit_Return(self, node: ast.Return) -> ast.Return:
        if node.value is None:
            return node
        drifted = ast.parse(f"{{k: str(v) for k, v in ({ast.unparse(node.value)}).items()}}", mode="eval").body
        return ast.copy_location(ast.Return(value=drifted), node)


def drifting_copy(package: Path, target: Path, tools: list[str]) -> Path:
    """Copy the package with ``tools`` drifting from their output schemas: each returns every value
    of its result as a string (``{"total": 6}`` becomes ``{"total": "6"}``). Not a runaway: it
    passes the static policy and runs, and only the output check tells (issue #25)."""
    shutil.copytree(package, target)
    tree = ast.parse((target / "tools.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in tools:
            node.body = [_Drift().visit(statement) for statement in node.body]
    (target / "tools.py").write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n")
    return target
