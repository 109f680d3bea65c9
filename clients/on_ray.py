"""``eval --ray``: each episode is played in a Ray task (``cluster.ray_tasks``), not in the eval process.

The Ray tasks (one per host actor, each playing its share of the episodes ``concurrency`` / actors at a
time) build their own control client (the control API's URL and token travel with the job) and LLM
client from the run's ``EvalConfig``, and play each episode as the local run does (``EpisodePlayer``);
each record and trace comes back to the driver as it finishes, which appends it to the run folder at
once (a killed run loses at most the episodes in flight; ``--resume`` as without Ray). Failures are
split as in a local run:
- an episode whose Ray task Ray lost (its worker or node died) or never started is an infrastructure
  failure of kind ``transport``, naming the Ray error, retried by ``--resume``: the driver lost its
  connection to the episode's player, as when an MCP connection drops. Not ``host_lost``: the local run
  says that only once the control API confirms the episode's host died (``lost_with_host``), and here
  the host actor may well be alive; an episode whose host actor died while its Ray task lived is
  ``host_lost`` as locally, since the Ray task's player asks the control API;
- an exception the episode's own code raises that is not an ``InfraError`` (a usage error, a bug) stops
  the run with that exception, its type and message as a local run raises it (``run_as_ray_tasks``
  carries it back), the Ray tasks still running cancelled.
This module must not write the run folder: the runner does.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from scaleenv_mcp.clients.episode import EpisodePlayer, Played, open_llm, unplayed
from scaleenv_mcp.clients.hosting import HostConnection
from scaleenv_mcp.clients.models import InfraKind
from scaleenv_mcp.clients.results import EvalConfig
from scaleenv_mcp.clients.specs import RoleSpec
from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.domain.task import Task

__all__ = ["EpisodeJob", "play_on_ray"]

Work = tuple[Task, int]  # (task, trial)


@dataclass(frozen=True)
class EpisodeJob:
    """What a Ray task needs to play its episodes: data only (it is pickled to the worker).

    The run folder and the LLM cache folder in ``config`` are made absolute here, in the driver: the Ray
    task opens the cache at that path on its own node (``open_llm``), and a relative path would be taken
    from the Ray worker's working directory, which Ray does not promise to be the command's.
    """

    config: EvalConfig
    agent: RoleSpec
    user: RoleSpec
    control_url: str
    token: str
    host_version: str

    def __post_init__(self) -> None:
        cache = self.config.cache_dir.absolute() if self.config.cache_dir else None
        object.__setattr__(self, "config", self.config.model_copy(update={"out": self.config.out.absolute(),
                                                                           "cache_dir": cache}))

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[Callable[[Work], Awaitable[Played]]]:
        """One control client and one LLM client for the Ray task's episodes, as a local run has one each."""
        async with (ControlClient(self.control_url, self.token) as control,
                    open_llm(self.config, self.agent, self.user) as llm):
            player = EpisodePlayer(self.config, HostConnection(control, self.host_version, None), llm, self.agent,
                                   self.user)

            async def one(work: Work) -> Played:
                return await player.play(*work)

            yield one


async def play_on_ray(config: EvalConfig, agent: RoleSpec, user: RoleSpec, conn: HostConnection, work: list[Work],
                      arrived: Callable[[Played], None]) -> None:
    """Play ``work`` in Ray tasks against the host actors behind ``conn`` (a ``--ray`` connection), handing
    each episode's record and trace to ``arrived`` as it finishes; an error ``arrived`` raises (the early
    stop), or an episode's own non-infrastructure error, cancels the Ray tasks still running and is raised
    here."""
    from scaleenv_mcp.cluster.ray_tasks import run_as_ray_tasks

    assert conn.cluster is not None, "play_on_ray needs a --ray connection"
    served = conn.cluster
    job = EpisodeJob(config, agent, user, served.url, served.cluster.token, conn.host_version)
    await run_as_ray_tasks(job, work, chunks=len(served.cluster.slots), concurrency=config.concurrency, reach=served.url,
                           failed=lambda item, reason: unplayed(config, *item, InfraKind.transport, reason),
                           on_result=lambda _, played: arrived(played))
