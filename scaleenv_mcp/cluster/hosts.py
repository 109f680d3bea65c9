"""Start N host actors on a Ray cluster and put one router over them (``RayHosts``; ``scaleenv serve --ray``).

    async with RayHosts.running(settings, hosts=4, address="auto") as cluster:
        episodes = await cluster.router.create_episodes("tiny_library", count=8)   # spread over the 4
        ...                                                                        # agents: episodes[i].agent_url

Each actor is a full host (``actor.HostActor``) with its own workers and listeners on its node; the
router (``router.HostRouter``) is an ``EpisodeControl`` the control API serves as it would one host.
Ray restarts an actor that dies (``max_restarts``); the router treats the restarted one as a new host
(its episodes were lost with the old process) and places new episodes on it again once it is up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from scaleenv_mcp.cluster.actor import HostActor, HostAddress, node_bind_address
from scaleenv_mcp.cluster.requirement import import_ray
from scaleenv_mcp.cluster.router import HostRouter, HostSlot
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.errors import EnvironmentFaultError, ScaleEnvError, UsageError
from scaleenv_mcp.host.bind import BoundSockets
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.settings import HostSettings

__all__ = ["ClusterControl", "RayHosts", "RaySlot", "cluster_control", "connect_ray", "ray_cause"]

log = logging.getLogger("scaleenv.cluster")

PROBE_SECONDS = 10.0  # a liveness probe of an actor never waits longer than this
REVIVE_SECONDS = 300.0  # how long the router waits for Ray to bring a dead actor back
CONNECT_SECONDS = 5.0  # TCP check of a Ray address before ray.init (which retries for a long time)


def ray_cause(error: BaseException) -> BaseException:
    """The error a Ray task error carries, through any number of RayTaskError wrappings (``error``
    itself when it wraps nothing)."""
    seen = error
    while (cause := getattr(seen, "cause", None)) is not None and cause is not seen:
        seen = cause
    return seen


def _scaleenv_error(error: BaseException) -> BaseException:
    """The project error a Ray task error carries, else the Ray error itself."""
    cause = ray_cause(error)
    return cause if isinstance(cause, ScaleEnvError) else error


class RaySlot:
    """One host actor as the router sees it (``HostSlot``): its current incarnation and control client."""

    def __init__(self, index: int, actor: Any, address: HostAddress, token: str) -> None:
        self.index = index
        self.actor = actor
        self.token = token
        self.address = address
        self.client = ControlClient(address.control_url, token)

    @property
    def name(self) -> str:
        return f"host actor {self.index} (node {self.address.node}, pid {self.address.pid})"

    @property
    def incarnation(self) -> str:
        return self.address.incarnation

    @property
    def agent_base(self) -> str:
        return self.address.agent_url

    async def alive(self) -> bool:
        ray = import_ray()
        try:
            address = await asyncio.wait_for(self.actor.address.remote(), PROBE_SECONDS)
        except (ray.exceptions.RayError, asyncio.TimeoutError):
            return False
        return isinstance(address, HostAddress) and address.incarnation == self.incarnation

    async def revive(self) -> None:
        """Wait for Ray to restart the actor, start its host, and drive the new incarnation."""
        ray = import_ray()
        deadline = time.monotonic() + REVIVE_SECONDS
        while True:
            try:
                address = await self.actor.start.remote()
                break
            except ray.exceptions.ActorDiedError:
                raise  # Ray will not restart it (max_restarts spent, or killed for good)
            except ray.exceptions.RayError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(1.0)
        old, self.address = self.client, address
        self.client = ControlClient(address.control_url, self.token)
        await old.aclose()

    async def fork_onto(self, episode_id: str, target: HostSlot) -> EpisodeInfo:
        """Export here, import there: the file goes from this actor to the other through the object store."""
        if not isinstance(target, RaySlot):
            raise UsageError("a Ray host can fork only onto another Ray host")
        ray = import_ray()
        try:
            data = await target.actor.import_episode.remote(self.actor.export_episode.remote(episode_id))
        except ray.exceptions.RayTaskError as error:
            cause = _scaleenv_error(error)
            if isinstance(cause, ScaleEnvError):
                raise cause from None
            raise EnvironmentFaultError(f"fork of {episode_id!r} onto {target.name} failed: {type(cause).__name__}") \
                from None
        except ray.exceptions.RayError as error:  # an actor died on the way: the router checks the owner
            raise EnvironmentFaultError(f"fork of {episode_id!r} onto {target.name} failed: {type(error).__name__}") \
                from None
        return EpisodeInfo.model_validate(data)


def _reachable(address: str) -> None:
    """Refuse, within seconds, an address nothing listens on (ray.init would retry for a minute)."""
    parts = urlsplit(address if "://" in address else f"ray://{address}")
    if parts.hostname is None or parts.port is None:
        raise UsageError(f"--ray {address!r}: give host:port of the cluster's head (e.g. 10.0.0.2:6379), "
                         "'auto' (the cluster this node joined) or 'local' (start one here)")
    try:
        socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise EnvironmentFaultError(f"cannot reach the Ray cluster at {address}: {error.strerror or error} (is its "
                                    "head running? start one with `ray start --head`)") from None


def connect_ray(address: str | None) -> bool:
    """Join the Ray cluster at ``address`` ('auto', host:port, ray://...) or start one here ('local' or
    None); leave an already initialised Ray as it is. True when this call started or joined it (and
    so must shut it down).

    Raises:
        EnvironmentFaultError: Ray not installed, the address unreachable, or no cluster there (exit 3).
        UsageError: an address that is not one.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address not in (None, "local", "auto"):
        _reachable(address)
    try:
        if address in (None, "local"):  # a new instance even where `ray start` runs one: "local" is this process's
            ray.init(address="local", include_dashboard=False, configure_logging=False, log_to_driver=False)
        else:
            ray.init(address=address, configure_logging=False, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise EnvironmentFaultError(f"cannot join the Ray cluster at {address}: {first}") from None
    return True


class RayHosts:
    """N host actors and the router over them, for one ``async with`` block."""

    def __init__(self, router: HostRouter, slots: list[RaySlot], token: str, workers: int = 1) -> None:
        self.router = router
        self.slots = slots
        self.token = token
        self.workers = workers  # worker processes of each actor's host

    async def stage_tasks(self, domain: str, tasks: list[Task]) -> None:
        """Make ``tasks`` creatable on every actor (``Host.stage_tasks``). An actor Ray restarts later
        has only its package's own tasks.

        Raises:
            EnvironmentFaultError: an actor does not serve ``domain`` (broken, failed validation), or died.
        """
        payload = [task.model_dump(mode="json") for task in tasks]
        for slot, status in zip(self.slots, await self._on_every_actor("stage_tasks", domain, payload)):
            if not status.startswith("online"):
                raise EnvironmentFaultError(f"{slot.name} does not serve {domain}: {status}")

    async def unstage_tasks(self, domain: str, task_ids: list[str]) -> None:
        """Forget staged tasks on every actor (``Host.unstage_tasks``).

        Raises:
            EnvironmentFaultError: an actor died.
        """
        await self._on_every_actor("unstage_tasks", domain, task_ids)

    async def _on_every_actor(self, method: str, *args: Any) -> list[Any]:
        """``method`` of every actor, together; the first that failed (an actor that died) as an
        ``EnvironmentFaultError`` naming it."""
        ray = import_ray()
        results = await asyncio.gather(*(getattr(slot.actor, method).remote(*args) for slot in self.slots),
                                       return_exceptions=True)
        for slot, result in zip(self.slots, results):
            if isinstance(result, ray.exceptions.RayError):
                cause = _scaleenv_error(result)
                raise cause if isinstance(cause, ScaleEnvError) else EnvironmentFaultError(
                    f"{method} on {slot.name} failed: {type(result).__name__}") from None
            if isinstance(result, BaseException):
                raise result
        return results

    @contextlib.asynccontextmanager
    async def control_api(self, settings: HostSettings, control: socket.socket | None = None
                          ) -> AsyncIterator[tuple[str, Path]]:
        """The one control API over the router, on ``control`` (a bound socket) or a free loopback port,
        for the block: (its URL, the token file). Its token is the actors' (``self.token``), written to
        ``settings.token_file`` (``scaleenv serve --ray``) or, when that is not set, to a private
        temporary file (a verify run must not overwrite the token of a ``serve`` in the same state dir)."""
        from scaleenv_mcp.host.bind import bind_socket, display_host
        from scaleenv_mcp.host.control import build_control_app
        from scaleenv_mcp.host.listeners import serving_apps

        token_file = settings.token_file or Path(tempfile.mkdtemp(prefix="scaleenv-router-")) / "control-token"
        settings = settings.model_copy(update={"token": self.token, "token_file": token_file})
        control = control or bind_socket(settings.host, 0, "control")
        app, _, token_path, _ = build_control_app(self.router, settings)
        async with serving_apps([(app, control)]):
            yield f"http://{display_host(settings.host)}:{control.getsockname()[1]}", token_path

    @contextlib.asynccontextmanager
    async def agent_proxy(self, settings: HostSettings, agent: socket.socket | None = None) -> AsyncIterator[str]:
        """The one public agent address (``/mcp/{domain}``, ``/mcp/episodes/{id}``) proxied to the owning
        actors (``proxy.build_agent_proxy``), on ``agent`` or a free loopback port, for the block: its URL."""
        from scaleenv_mcp.cluster.proxy import build_agent_proxy
        from scaleenv_mcp.host.bind import bind_socket, display_host
        from scaleenv_mcp.host.listeners import serving_apps

        agent = agent or bind_socket(settings.host, 0)
        async with serving_apps([(build_agent_proxy(self.router), agent)]):
            yield f"http://{display_host(settings.host)}:{agent.getsockname()[1]}"

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, in slot order (a test kills one with ``ray.kill``)."""
        return [slot.actor for slot in self.slots]

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, settings: HostSettings | None = None, domain_dirs: list[Path] | None = None,
                      domains: list[str] | None = None, *, hosts: int | None = None, address: str | None = None,
                      cpus_per_host: float = 1.0, max_restarts: int = -1) -> AsyncIterator[RayHosts]:
        """Start ``hosts`` host actors (default: one per ``cpus_per_host`` CPUs the cluster has free), each
        with ``settings.workers`` workers (default ``cpus_per_host``, at least 1), and wait until all serve.

        Raises:
            UsageError: more hosts than the cluster has CPUs for (they would wait for ever).
            EnvironmentFaultError: Ray missing or unreachable; a host that failed to start.
        """
        settings = settings or HostSettings.from_env()
        ray = import_ray()
        joined = connect_ray(address)
        slots: list[RaySlot] = []
        actors: list[Any] = []
        router: HostRouter | None = None
        try:
            free = float(ray.available_resources().get("CPU", 0.0))
            count = hosts if hosts is not None else max(1, int(free // cpus_per_host))
            if count < 1 or count * cpus_per_host > free + 1e-9:
                raise UsageError(f"{count} host actors of {cpus_per_host:g} CPU each do not fit the {free:g} CPUs the "
                                 "Ray cluster has free: pass --hosts N with fewer, or add nodes")
            token = settings.token or secrets.token_urlsafe(32)
            workers = settings.workers or max(1, int(cpus_per_host))
            config = settings.model_copy(update={"token": token, "workers": workers}).model_dump(mode="json")
            remote = ray.remote(HostActor).options(num_cpus=cpus_per_host, max_restarts=max_restarts,
                                                   max_task_retries=0, scheduling_strategy="SPREAD",
                                                   max_concurrency=1000)
            dirs = [str(Path(d).resolve()) for d in domain_dirs] if domain_dirs else None
            actors = [remote.remote(config, dirs, domains) for _ in range(count)]
            try:
                addresses = await asyncio.gather(*(actor.start.remote() for actor in actors))
            except ray.exceptions.RayError as error:
                cause = _scaleenv_error(error)
                raise (cause if isinstance(cause, ScaleEnvError) else EnvironmentFaultError(
                    f"a host actor failed to start: {type(cause).__name__}: {str(cause).splitlines()[0]}")) from None
            slots = [RaySlot(i, actor, address, token) for i, (actor, address) in enumerate(zip(actors, addresses))]
            router = HostRouter(slots)
            yield cls(router, slots, token, workers)
        finally:
            if router is not None:
                await router.aclose()
            for slot in slots:
                await slot.client.aclose()
            stopping = [actor.stop.remote() for actor in actors]
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*stopping, return_exceptions=True), PROBE_SECONDS)
            for actor in actors:
                with contextlib.suppress(Exception):
                    ray.kill(actor)
            if joined:
                ray.shutdown()


@dataclass(frozen=True)
class ClusterControl:
    """Host actors on Ray and the one control API over their router (``cluster_control``)."""

    cluster: RayHosts
    url: str  # the control API's base URL, on a free port (loopback unless the settings bind a wildcard)
    token_file: Path  # its token, in a private temporary file


@contextlib.asynccontextmanager
async def cluster_control(settings: HostSettings, domain_dirs: list[Path] | None = None,
                          domains: list[str] | None = None, *, address: str | None, hosts: int | None = None,
                          staged: dict[str, list[Task]] | None = None) -> AsyncIterator[ClusterControl]:
    """``hosts`` host actors on the Ray cluster at ``address`` (``RayHosts.running``), the ``staged`` tasks
    (domain -> tasks) creatable on every one, and the control API over their router, for the block: what
    ``verify --ray`` and ``eval --ray`` run on. The token file is a private one,
    never ``settings.token_file`` (a run must not overwrite the token of a ``serve`` in the same state dir).
    The control API binds ``settings.host`` (loopback by default: one machine), or for a wildcard
    (``SCALEENV_HOST=0.0.0.0``) this node's own address, which Ray tasks on other nodes reach.

    Raises:
        UsageError: more hosts than the cluster has CPUs for.
        EnvironmentFaultError: Ray missing or unreachable; an actor that failed to start or does not
            serve a staged domain.
    """
    async with RayHosts.running(settings, domain_dirs, domains, hosts=hosts, address=address) as cluster:
        for domain, tasks in (staged or {}).items():
            await cluster.stage_tasks(domain, tasks)
        api = settings.model_copy(update={"token_file": None, "host": node_bind_address(settings.host)})
        async with cluster.control_api(api) as (url, token_file):
            yield ClusterControl(cluster, url, token_file)


async def serve_cluster(settings: HostSettings, bound: BoundSockets, domain_dirs: list[Path] | None = None,
                        domains: list[str] | None = None, *, address: str | None = None,
                        hosts: int | None = None) -> None:
    """``scaleenv serve --ray``: the host actors, then the one control API (on the bound control socket)
    over their router and the public agent address (on the agent socket) proxied to them; runs until
    SIGINT or SIGTERM, then stops the actors (and a Ray this process started). Harness-created episodes'
    ``agent_url`` is the owning actor's listener (no hop)."""
    import signal
    import sys

    from scaleenv_mcp.host.control import write_token

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        token, token_path = write_token(settings)  # one token: the public control API's and every actor's
        settings = settings.model_copy(update={"token": token, "token_file": token_path})
        assert bound.control is not None  # the CLI refuses --ray with --no-control
        async with RayHosts.running(settings, domain_dirs, domains, hosts=hosts, address=address) as cluster, \
                cluster.control_api(settings, bound.control) as (url, _), \
                cluster.agent_proxy(settings, bound.agent) as public:
            print(f"scaleenv: control API on {url} (token in {token_path}) over {len(cluster.slots)} Ray host "
                  f"actors; agents: {public}/mcp/{{domain}} (proxied) or each episode's agent_url:",
                  file=sys.stderr, flush=True)
            for slot in cluster.slots:
                print(f"  {slot.name}: agents {slot.address.agent_url}", file=sys.stderr, flush=True)
            await stop.wait()
            print("scaleenv: stopping the host actors", file=sys.stderr, flush=True)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
