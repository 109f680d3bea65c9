"""The only project module a domain's ``tools.py`` may import from.

Tool code is untrusted (see docs/threat-model.md): the static policy allows
``from scaleenv_mcp.toolkit import <name>`` for exactly the names in ``__all__`` here,
so this module is the whole surface tool authors get besides ``ctx``. It holds the typed
errors and the argument checks every domain needs, written once (domains must not copy
them). Keep it small and free of anything that reaches the process (no module objects,
no I/O, no clock).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date
from typing import Any

from scaleenv_mcp.errors import (
    ConflictError,
    InvalidArgumentError,
    NotFoundError,
    NotPermittedError,
    PermissionDeniedError,
)

__all__ = [
    "ConflictError",
    "InvalidArgumentError",
    "NotFoundError",
    "NotPermittedError",
    "PermissionDeniedError",
    "require_choice",
    "require_date",
    "optional_choice",
    "optional_date",
    "paginate",
    "require_page",
    "require_permission",
    "require_row",
]


def require_choice(value: str, choices: Collection[str], name: str) -> str:
    """``value`` if it is one of ``choices``, else InvalidArgumentError naming the argument."""
    if value not in choices:
        raise InvalidArgumentError(f"{name} must be one of {', '.join(sorted(choices))}; got {value!r}")
    return value


def require_date(value: str, name: str) -> date:
    """Parse a ``YYYY-MM-DD`` argument, or raise InvalidArgumentError naming it."""
    try:
        if len(value) != 10:
            raise ValueError(value)
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"{name} must be a date as YYYY-MM-DD; got {value!r}") from None


def require_page(limit: int, offset: int, max_limit: int = 100) -> tuple[int, int]:
    """Check paging arguments: 1 <= limit <= max_limit and offset >= 0."""
    if not 1 <= limit <= max_limit:
        raise InvalidArgumentError(f"limit must be between 1 and {max_limit}; got {limit}")
    if offset < 0:
        raise InvalidArgumentError(f"offset must be 0 or more; got {offset}")
    return limit, offset


def require_row(ctx: Any, sql: str, params: Sequence[Any], missing: str) -> dict[str, Any]:
    """The first row of a literal SELECT, or NotFoundError(missing) when there is none.

    The static policy checks ``sql`` at the call site exactly as for ``ctx.db.fetch_one``.
    """
    row: dict[str, Any] | None = ctx.db.fetch_one(sql, params)
    if row is None:
        raise NotFoundError(missing)
    return row


def require_permission(allowed: bool, rule: str) -> None:
    """Raise PermissionDeniedError naming ``rule`` unless the acting principal is ``allowed``.

    ``rule`` is the tool's one-line permission rule from the manifest ("only the seller of the
    listing may counter an offer"), so the agent reads the same words the policy uses.
    """
    if not allowed:
        raise PermissionDeniedError(f"permission denied: {rule}")


def optional_choice(value: str | None, choices: Collection[str], name: str) -> str | None:
    """``require_choice`` for optional filters: None passes through."""
    return None if value is None else require_choice(value, choices, name)


def optional_date(value: str | None, name: str) -> str | None:
    """``require_date`` for optional filters: None passes through; a date comes back as ISO text."""
    return None if value is None else require_date(value, name).isoformat()


def paginate(rows: list[dict[str, Any]], limit: int, offset: int, max_limit: int = 100) -> dict[str, Any]:
    """One page of ``rows`` as ``{"items": [...], "total": n}``, after checking the paging arguments."""
    require_page(limit, offset, max_limit)
    return {"items": rows[offset:offset + limit], "total": len(rows)}
