"""``HostActor``'s jobs, driven in-process (the class is plain Python; Ray only calls it remotely):
stopping an actor closes the jobs still open on it, each one even when another's close fails. Ray's own
path (the same methods called through actors) is tests/integration/test_ray_hosts.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from scaleenv_mcp.cluster.actor import HostActor
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from tests.conftest import FIXTURE_DOMAINS

pytestmark = pytest.mark.anyio


@dataclass
class _Job:
    """A job's state holding an episode of the actor's host; records whether its close ran."""

    host: Host
    episode_id: str
    closed: list[str] = field(default_factory=list)
    fails: bool = False

    async def aclose(self) -> None:
        self.closed.append(self.episode_id)
        await self.host.close(self.episode_id)
        if self.fails:
            raise RuntimeError("this job's close fails")


async def test_stopping_an_actor_closes_its_open_jobs_even_when_one_close_fails(tmp_path: Any):
    settings = HostSettings(workers=1, call_timeout=3.0, skip_validation=True, token_file=tmp_path / "token")
    actor = HostActor(settings.model_dump(mode="json"), [str(FIXTURE_DOMAINS)], ["tiny_library"])
    await actor.start()
    jobs: dict[str, _Job] = {}

    def opener(key: str, fails: bool = False) -> Any:
        async def open_(host: Host) -> _Job:
            jobs[key] = _Job(host, (await host.create_episode("tiny_library")).id, fails=fails)
            return jobs[key]
        return open_

    await actor.open_job("a", opener("a", fails=True))
    await actor.open_job("b", opener("b"))
    await actor.open_job("c", opener("c"))
    await actor.close_job("c")  # closed already: not closed again
    await actor.stop()
    assert [len(jobs[k].closed) for k in "abc"] == [1, 1, 1]
    assert actor._jobs == {}
    assert await actor.address() is None  # and the host stopped after them
