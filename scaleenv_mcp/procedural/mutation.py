"""Small automatic changes to a tool's code, to measure whether its test cases would notice.

Operators: flipped comparisons (< to >=, == to !=, in to not in), and/or swapped, negated
if-conditions, integer constants off by one, a raise or a write statement dropped. Mutants
are chosen deterministically (evenly spaced over the sites) so the score is reproducible.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

__all__ = ["Mutant", "build_mutants"]

_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}


@dataclass(frozen=True)
class Mutant:
    tool: str
    line: int
    description: str
    source: str


def _sites(function: ast.FunctionDef) -> list[tuple[int, str]]:
    """(site index in walk order, description) for every mutable spot of one function."""
    sites: list[tuple[int, str]] = []
    for index, node in enumerate(ast.walk(function)):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in _FLIP:
            sites.append((index, f"line {node.lineno}: flip {type(node.ops[0]).__name__}"))
        elif isinstance(node, ast.BoolOp):
            sites.append((index, f"line {node.lineno}: swap and/or"))
        elif isinstance(node, ast.If):
            sites.append((index, f"line {node.lineno}: negate if-condition"))
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            sites.append((index, f"line {node.lineno}: constant {node.value} -> {node.value + 1}"))
        elif isinstance(node, ast.Raise):
            sites.append((index, f"line {node.lineno}: drop raise"))
        elif (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
              and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "execute"):
            sites.append((index, f"line {node.lineno}: drop write"))
    return sites


def _apply(function: ast.FunctionDef, site: int) -> None:
    for index, node in enumerate(ast.walk(function)):
        if index != site:
            continue
        if isinstance(node, ast.Compare):
            node.ops[0] = _FLIP[type(node.ops[0])]()
        elif isinstance(node, ast.BoolOp):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif isinstance(node, ast.If):
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif isinstance(node, ast.Constant):
            node.value = node.value + 1  # type: ignore[operator]  # the mutation site is a number constant
        elif isinstance(node, ast.Raise | ast.Expr):
            _replace_with_pass(function, node)
        return


def _replace_with_pass(function: ast.FunctionDef, target: ast.stmt) -> None:
    for parent in ast.walk(function):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and target in block:
                block[block.index(target)] = ast.Pass()
                return


def build_mutants(source: str, tool: str, limit: int = 10, tree: ast.Module | None = None) -> list[Mutant]:
    """Up to ``limit`` mutants of ``tool`` in ``source``, spread evenly over its mutation sites.

    Only the function is copied and re-rendered; its text replaces the original lines, so a
    mutant costs one small function, not the whole module (pass ``tree`` to parse once).
    """
    tree = tree or ast.parse(source)
    function = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == tool), None)
    if function is None:
        return []
    sites = _sites(function)
    if len(sites) > limit:
        step = len(sites) / limit
        sites = [sites[int(i * step)] for i in range(limit)]
    lines = source.splitlines(keepends=True)
    start = (function.decorator_list[0].lineno if function.decorator_list else function.lineno) - 1
    head, tail = "".join(lines[:start]), "".join(lines[function.end_lineno:])
    mutants = []
    for site, description in sites:
        target = copy.deepcopy(function)
        _apply(target, site)
        rendered = ast.unparse(ast.fix_missing_locations(target))
        mutants.append(Mutant(tool, int(description.split(":")[0].split()[1]), description, f"{head}{rendered}\n{tail}"))
    return mutants
