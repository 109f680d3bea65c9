"""ScaleEnv MCP: host synthetic tool-use environments for LLM agents over MCP.

The public Python API is deliberately small (pinned by tests/contract/test_layers_and_api.py):
start a ``Host`` and drive episodes through its methods (create, call, reset, snapshot,
restore, fork, diff, fingerprint, reward, trace, close) or get MCP clients bound to them;
``ControlClient`` offers the same operations over a host's control API, and both satisfy
``EpisodeControl`` (tests/contract/test_host_api.py). Names resolve lazily so
that worker processes, which import ``scaleenv_mcp.workers``, never load the MCP stack.

The generator, the verifier and the clients are ``scaleenv_mcp.generator``, ``scaleenv_mcp.verifier``
and ``scaleenv_mcp.clients``: a wheel carries them inside this package (pyproject.toml), while a
checkout keeps them as the top-level folders of the design, where ``_checkout`` finds them.
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp import _checkout

_checkout.map_parts()

__all__ = ["ControlClient", "EpisodeControl", "Host", "HostSettings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "Host":
        from scaleenv_mcp.host.host import Host

        return Host
    if name == "HostSettings":
        from scaleenv_mcp.settings import HostSettings

        return HostSettings
    if name == "ControlClient":
        from scaleenv_mcp.control_client import ControlClient

        return ControlClient
    if name == "EpisodeControl":
        from scaleenv_mcp.host.episode_control import EpisodeControl

        return EpisodeControl
    raise AttributeError(f"module 'scaleenv_mcp' has no attribute {name!r}")
