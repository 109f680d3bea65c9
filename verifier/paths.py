"""Field paths into tool results: ``items[2].book_id`` names one value of one call's output.

Grounding records say where an argument came from with such a path, and the verifier
resolves it against the result the replay actually got. The generator uses the same
functions to list candidate values (``leaf_values``), so both sides read paths one way.
Pure functions over JSON values; nothing here talks to a host.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["get_path", "join_path", "leaf_values", "list_levels", "parent_list", "selector_field", "split_path"]

_STEP = re.compile(r"([^.\[\]]+)|\[(\d*)\]")


def split_path(path: str) -> list[str | int | None]:
    """``items[2].book_id`` -> ``["items", 2, "book_id"]``; ``[]`` (any element) becomes None."""
    steps: list[str | int | None] = []
    for name, index in _STEP.findall(path):
        if name:
            steps.append(name)
        else:
            steps.append(int(index) if index else None)
    return steps


def get_path(value: Any, path: str) -> Any:
    """The value at a concrete path, or raise KeyError naming the first missing step."""
    current = value
    for step in split_path(path):
        if isinstance(step, int) and isinstance(current, list) and 0 <= step < len(current):
            current = current[step]
        elif isinstance(step, str) and isinstance(current, dict) and step in current:
            current = current[step]
        else:
            raise KeyError(f"{path}: no {step!r}")
    return current


def list_levels(path: str) -> list[tuple[str, int]]:
    """For ``items[16].addresses[0].label``: [(``items``, 16), (``items[16].addresses``, 0)], each
    list the path steps into, outermost first, with the element it takes."""
    steps = split_path(path)
    return [(_join(steps[:position]), int(step)) for position, step in enumerate(steps)  # type: ignore[arg-type]
            if isinstance(step, int)]


def parent_list(path: str) -> tuple[str, int, str] | None:
    """For ``a.items[2].book_id``: (``a.items``, 2, ``book_id``), the innermost list step; None without one."""
    levels = list_levels(path)
    if not levels:
        return None
    head, index = levels[-1]
    tail = path[len(f"{head}[{index}]"):].lstrip(".")
    return head, index, tail


def selector_field(key: str, path: str) -> tuple[str, str]:
    """The (list, element field) a ``select_by`` key names for a value at ``path``: a plain field
    (``label``) is one of the innermost list's elements, ``items[].name`` one of the enclosing
    list ``items``'s (the customer whose address it is)."""
    head, marker, field = key.rpartition("[].")
    if marker:
        return head, field
    parent = parent_list(path)
    return (parent[0] if parent else ""), key


def join_path(steps: list[str | int | None] | tuple[str | int | None, ...]) -> str:
    """``["items", 2, "book_id"]`` -> ``items[2].book_id`` (the inverse of ``split_path``)."""
    return _join(list(steps))


def _join(steps: list[str | int | None]) -> str:
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        elif step is None:
            out += "[]"
        else:
            out += ("." if out else "") + step
    return out


def leaf_values(value: Any, prefix: str = "") -> list[tuple[str, str, Any]]:
    """Every scalar leaf as (concrete path, leaf name, value), depth first in document order."""
    found: list[tuple[str, str, Any]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            if isinstance(item, dict | list):
                found.extend(leaf_values(item, path))
            else:
                found.append((path, key, item))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            path = f"{prefix}[{index}]"
            if isinstance(item, dict | list):
                found.extend(leaf_values(item, path))
            else:
                found.append((path, prefix.rsplit(".", 1)[-1].split("[")[0], item))
    return found
