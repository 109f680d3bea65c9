"""Bind a listening socket, cheaply: ``scaleenv serve`` binds before it imports the MCP stack.

Kept free of heavy imports so the port is held (and printed) within a fraction of a second of
the command starting; connections made before the app is ready wait in the backlog.
A port already in use is a ``PortInUseError`` naming the port, never an ``OSError`` traceback.
"""

from __future__ import annotations

import errno
import socket
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scaleenv_mcp.errors import ScaleEnvError

if TYPE_CHECKING:
    from scaleenv_mcp.settings import HostSettings

__all__ = ["BoundSockets", "PortInUseError", "bind_socket", "display_host"]


class PortInUseError(ScaleEnvError):
    """The port is taken (another ``scaleenv serve``?). The CLI exits 3 with this one line."""

    code = "port_in_use"


def bind_socket(host: str, port: int, what: str = "agent", option: str = "--port") -> socket.socket:
    """A non-blocking listening socket on (host, port); port 0 picks a free one."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # accepted sockets inherit it: no 40 ms Nagle stalls
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortInUseError(f"{what} port {port} on {host} is already in use (another scaleenv serve?): "
                                 f"stop that process or pass {option} N (0 picks a free port)") from None
        raise ScaleEnvError(f"cannot bind the {what} listener to {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def display_host(host: str) -> str:
    """The host as it appears in a URL (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host else host


@dataclass(frozen=True)
class BoundSockets:
    """The listening sockets, bound before the host loads anything (``scaleenv serve``)."""

    agent: socket.socket
    control: socket.socket | None

    @classmethod
    def bind(cls, settings: HostSettings) -> BoundSockets:
        agent = bind_socket(settings.host, settings.port)
        try:
            control = (None if settings.control_port is None
                       else bind_socket(settings.host, settings.control_port, "control", "--control-port"))
        except BaseException:
            agent.close()
            raise
        return cls(agent, control)
