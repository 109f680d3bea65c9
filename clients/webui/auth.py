"""Who may see the web view: the control token, or a session opened with a one-time login link.

Every page and asset is refused (401) without one of them; the Host and Origin checks of the
control listener apply too (DNS rebinding). A login key works once and for a limited time; it
becomes a session cookie (HttpOnly, SameSite=Lax, path ``/ui``). A state-changing request made
with the cookie must be a same-origin POST carrying the session's CSRF token; one made with the
bearer token needs neither (a header is never sent by a browser on its own). This module must
not render anything.
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass, field

from starlette.requests import Request

from scaleenv_mcp.host.security import is_allowed

__all__ = ["COOKIE", "Session", "UiAuth"]

COOKIE = "scaleenv_ui"
LOGIN_KEY_SECONDS = 24 * 3600  # an unused login link stops working after this
SESSION_SECONDS = 7 * 24 * 3600
_MAX_SESSIONS = 1000


@dataclass
class Session:
    id: str
    csrf: str
    expires: float


@dataclass
class UiAuth:
    """Login keys and sessions of one web view, kept in memory (a restart logs everyone out)."""

    token: str
    bind_host: str = "127.0.0.1"
    extra_origins: list[str] = field(default_factory=list)
    keys: dict[str, float] = field(default_factory=dict)  # one-time login key -> expiry
    sessions: dict[str, Session] = field(default_factory=dict)

    def mint_login_key(self) -> str:
        now = time.time()
        self.keys = {k: t for k, t in self.keys.items() if t > now}
        key = secrets.token_urlsafe(32)
        self.keys[key] = now + LOGIN_KEY_SECONDS
        return key

    def login(self, key: str) -> Session | None:
        """Spend a login key: a new session, or None when the key is unknown, used or expired."""
        expires = self.keys.pop(key, None)
        now = time.time()
        if expires is None or expires < now:
            return None
        if len(self.sessions) >= _MAX_SESSIONS:
            oldest = min(self.sessions.values(), key=lambda s: s.expires)
            del self.sessions[oldest.id]
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now + SESSION_SECONDS)
        self.sessions[session.id] = session
        return session

    def session(self, request: Request) -> Session | None:
        session = self.sessions.get(request.cookies.get(COOKIE, ""))
        if session is None or session.expires < time.time():
            return None
        return session

    def has_bearer(self, request: Request) -> bool:
        supplied = request.headers.get("authorization", "")
        return hmac.compare_digest(supplied.encode(), f"Bearer {self.token}".encode())

    def is_foreign(self, request: Request) -> bool:
        return not is_allowed(request.headers.get("host"), request.headers.get("origin"), self.bind_host,
                              self.extra_origins)

    def may_change(self, request: Request, form_csrf: str | None) -> bool:
        """A state-changing POST: with the bearer token, or same-origin with the session's CSRF token."""
        if self.has_bearer(request):
            return True
        session = self.session(request)
        if session is None or not form_csrf or not hmac.compare_digest(form_csrf.encode(), session.csrf.encode()):
            return False
        origin = request.headers.get("origin")
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        return origin is None or origin == own  # browsers send Origin on every POST; None only from scripts
