"""Host and Origin allow-lists shared by the agent and control listeners (DNS-rebinding defence)."""

from __future__ import annotations

from mcp.server.transport_security import TransportSecuritySettings

__all__ = ["allowed_hosts", "allowed_origins", "is_allowed", "transport_security"]

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def allowed_hosts(bind_host: str) -> list[str]:
    hosts = [f"{h}:*" for h in _LOOPBACK] + list(_LOOPBACK)
    if bind_host not in ("127.0.0.1", "localhost", "::1"):
        hosts += [f"{bind_host}:*", bind_host]
    return hosts


def allowed_origins(extra: list[str]) -> list[str]:
    return [f"http://{h}:*" for h in _LOOPBACK] + list(extra)


def transport_security(bind_host: str, extra_origins: list[str]) -> TransportSecuritySettings:
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts(bind_host),
        allowed_origins=allowed_origins(extra_origins),
    )


def _matches(value: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        if pattern.endswith(":*"):
            base = pattern[:-2]
            if value == base or value.startswith(base + ":"):
                return True
        elif value == pattern:
            return True
    return False


def is_allowed(host_header: str | None, origin: str | None, bind_host: str, extra_origins: list[str]) -> bool:
    """Same rule as the MCP SDK's check, for listeners that are not MCP (the control API)."""
    if host_header is None or not _matches(host_header, allowed_hosts(bind_host)):
        return False
    return origin is None or _matches(origin, allowed_origins(extra_origins))
