"""What every page handler gets: the host (None for ``scaleenv ui --results``), the results
folders, the login state, and ``page()`` that renders a template with the nav and CSRF token.
This module must not define routes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from scaleenv_mcp.clients.webui.auth import UiAuth
from scaleenv_mcp.clients.webui.render import render
from scaleenv_mcp.errors import ScaleEnvError, UsageError
from scaleenv_mcp.host.host import Host

__all__ = ["NoHostError", "PageNotFoundError", "Ui"]

NAV = (("domains", "Domains", "/ui/"), ("tasks", "Tasks", "/ui/tasks"), ("episodes", "Episodes", "/ui/episodes"),
       ("runs", "Eval runs", "/ui/runs"))


class PageNotFoundError(ScaleEnvError):
    """An unknown domain, task, run or trial: a 404 page."""

    code = "not_found"


class NoHostError(UsageError):
    code = "no_host"

    def __init__(self) -> None:
        super().__init__("this web view runs without a host (scaleenv ui --results): domains, tasks and episodes "
                         "are shown by the web view of `scaleenv serve`")


@dataclass
class Ui:
    auth: UiAuth
    host: Host | None = None
    results: list[Path] = field(default_factory=list)
    graphs: dict[str, str] = field(default_factory=dict)  # domain slug -> drawn SVG (content hash checked)

    def require_host(self) -> Host:
        if self.host is None:
            raise NoHostError()
        return self.host

    def page(self, request: Request, template: str, section: str, http_status: int = 200, **context: Any) -> HTMLResponse:
        session = self.auth.session(request)
        return render(template, http_status=http_status, nav=NAV, section=section, has_host=self.host is not None,
                      csrf=session.csrf if session else "", **context)
