"""Turning data into HTML: the Jinja environment (autoescape always on), pagination, the page response.

Every value from a domain, a task, an agent or a results file reaches HTML only through a
template, and every template is autoescaped, so a tool result holding ``<script>`` is shown as
text (tests/integration/test_web_ui.py). Markup built in Python is marked safe in one place
only: the tool graph's SVG (``scaleenv_mcp.generator.graph_render``) and the tables' diagram (``webui.er_diagram``), both
drawn with every name escaped.
This module must not read the host or the disk beyond the packaged templates.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse

__all__ = ["PAGE_SIZE", "Page", "paginate", "render", "templates"]

PAGE_SIZE = 50
_TEMPLATES = Path(__file__).parent / "templates"


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str)


def _cell(value: Any) -> str:
    """One table cell as text: JSON for containers, 'NULL' for None."""
    if value is None:
        return "NULL"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=select_autoescape(default=True,
                      default_for_string=True), undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(pretty=_pretty, cell=_cell, num=_num)
    return env


templates = _environment()


@dataclass(frozen=True)
class Page:
    """One page of a list: its items and where the others are."""

    items: list[Any]
    number: int
    pages: int
    total: int

    @property
    def first(self) -> int:
        return (self.number - 1) * PAGE_SIZE + 1 if self.total else 0

    @property
    def last(self) -> int:
        return min(self.number * PAGE_SIZE, self.total)


def paginate(items: list[Any], raw_page: str | None, size: int = PAGE_SIZE) -> Page:
    pages = max(1, math.ceil(len(items) / size))
    try:
        number = min(max(1, int(raw_page or 1)), pages)
    except ValueError:
        number = 1
    return Page(items[(number - 1) * size: number * size], number, pages, len(items))


def render(template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
    """A whole page; ``context`` must hold ``ui`` (the nav and CSRF token come from it)."""
    return HTMLResponse(templates.get_template(template).render(**context), status_code=http_status,
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                 "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                 "style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
                                 "Referrer-Policy": "same-origin"})
