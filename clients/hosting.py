"""Where the eval clients get a host: a remote one (``--url``/``--control-url``), host actors on Ray
(``--ray``), or their own.

Without URLs, ``scaleenv eval`` (and the gym's ``local`` constructors) start an in-process
host with real loopback listeners, exactly what ``scaleenv serve`` runs, so evaluation always
goes through the control API and MCP over HTTP. With ``--ray`` the same control API fronts host
actors (scaleenv_mcp/cluster): each episode's URL names its owner, so the agent's calls go straight
to it, and the connection carries the cluster (the Ray tasks that play the episodes reach the control
API with its URL and token: ``on_ray``). This module must not run episodes.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from scaleenv_mcp.cluster.options import require_ray_for_hosts
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.errors import ControlAuthError, HarnessError, UsageError

if TYPE_CHECKING:
    from scaleenv_mcp.cluster.hosts import ClusterControl

__all__ = ["HostConnection", "connect"]


@dataclass(frozen=True)
class HostConnection:
    control: ControlClient
    host_version: str  # the package version of a host we started; "remote (control API vN)" otherwise
    agent_url: str | None  # the agent listener as this client must reach it (--url), if it differs
    cluster: ClusterControl | None = None  # with --ray: the host actors and their control API (token, URL)

    def episode_url(self, served: str) -> str:
        """The MCP URL of an episode: the control API's, re-based on ``--url`` for a remote host
        (a host behind a proxy or a port forward names itself by an address we cannot reach)."""
        if not self.agent_url:
            return served
        path = urlsplit(served).path
        return self.agent_url.rstrip("/") + path


@contextlib.asynccontextmanager
async def connect(domains: list[str], domain_dirs: list[Path] | None = None, *, url: str | None = None,
                  control_url: str | None = None, token_file: Path | None = None,
                  workers: int | None = None, ray: str | None = None,
                  hosts: int | None = None) -> AsyncIterator[HostConnection]:
    """A control client of a remote host, of host actors started on the Ray cluster at ``ray``, or of a
    host started here for ``domains``.

    Raises:
        UsageError: only one of url/control_url given, no token file for a remote host, --ray with a
            remote host, --hosts without --ray, or more hosts than the cluster has CPUs for.
        ControlAuthError: the remote host refuses the token.
        EnvironmentFaultError: Ray is not installed or its cluster cannot be reached.
    """
    require_ray_for_hosts(ray, hosts)
    if ray is not None:
        if url or control_url:
            raise UsageError("--ray starts its own host actors: give it no --url/--control-url")
        async with _ray_connection(domains, domain_dirs, workers, ray, hosts) as connection:
            yield connection
        return
    if url or control_url:
        if not (url and control_url and token_file):
            raise UsageError("a remote host needs --url, --control-url and --token-file together")
        async with ControlClient(control_url, token_file=token_file) as control:
            await _check_token(control, token_file)
            yield HostConnection(control, await _remote_version(control_url), url)
        return
    import scaleenv_mcp
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.host.listeners import serving
    from scaleenv_mcp.settings import HostSettings

    with tempfile.TemporaryDirectory(prefix="scaleenv-eval-") as scratch:
        settings = HostSettings.from_env(port=0, control_port=0, token_file=Path(scratch) / "control-token",
                                         workers=workers)
        async with (Host.running(settings, domain_dirs or None, domains) as host, serving(host) as listeners,
                    ControlClient(listeners.control_url, listeners.token) as control):
            missing = sorted(set(host.load_errors) & {Path(d).name for d in domains})
            if missing:
                raise UsageError("; ".join(f"domain {slug} is not served: {host.load_errors[slug]}" for slug in missing))
            yield HostConnection(control, scaleenv_mcp.__version__, None)


@contextlib.asynccontextmanager
async def _ray_connection(domains: list[str], domain_dirs: list[Path] | None, workers: int | None, address: str,
                          hosts: int | None) -> AsyncIterator[HostConnection]:
    import scaleenv_mcp
    from scaleenv_mcp.cluster.hosts import cluster_control
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings.from_env(workers=workers)
    async with (cluster_control(settings, domain_dirs or None, domains, address=address, hosts=hosts) as served,
                ControlClient(served.url, token_file=served.token_file) as control):
        yield HostConnection(control, scaleenv_mcp.__version__, None, served)


async def _check_token(control: ControlClient, token_file: Path) -> None:
    """A token the host refuses fails the run at once, saying so; every episode would fail on it.

    Raises:
        ControlAuthError: the control API answered 401 or 403.
    """
    try:
        await control.domains()
    except ControlAuthError as error:
        raise ControlAuthError(f"{error.message}; is {token_file} the --token-file of the `scaleenv serve` at "
                               f"{control.base_url}? (its ready banner names the file)") from None
    except HarnessError:  # unreachable or failing: the episodes record it, retried, with the reason
        pass


async def _remote_version(control_url: str) -> str:
    import httpx

    try:
        async with httpx.AsyncClient(timeout=10) as http:
            response = await http.get(f"{control_url.rstrip('/')}/openapi.json")
        return f"remote (control API v{response.json()['info']['version']})"
    except Exception:  # noqa: BLE001 - the stamp is informative only
        return "remote (unknown version)"

