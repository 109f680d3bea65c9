"""Workers run the code the host's policy check compiled (``tool_loader.checked_code``), carried by the
domain bundle, instead of checking and compiling ``tools.py`` again; the host computes it when the first
worker needs the domain (``DomainRuntime.worker_bundle``)."""

from __future__ import annotations

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.tool_loader import checked_code
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.workers.protocol import OK, CallReply, DomainBundle
from scaleenv_mcp.workers.worker import Worker
from tests.conftest import FIXTURE_DOMAINS

pytestmark = pytest.mark.anyio

TALLY = '''    total = 0
    for i in range(upto):
        total += i
    return {"total": total}'''


def _call_tally(bundle: DomainBundle) -> CallReply:
    worker = Worker()
    assert worker.handle(("domain", bundle)) == (OK, None)
    assert worker.handle(("open", "e", bundle.content_hash, "", [], None, []))[0] == OK
    status, payload = worker.handle(("call", "e", "tally", {"upto": 4}))
    assert status == OK
    return CallReply(*payload)


def test_a_worker_runs_the_code_it_is_given_and_not_the_source_beside_it():
    package = load_domain(FIXTURE_DOMAINS / "tiny_library")
    assert TALLY in package.tools_source
    other = package.tools_source.replace(TALLY, '    return {"total": -1}')
    plain = DomainBundle(package.content_hash, package.manifest.model_dump_json(), package.schema_sql, package.seed,
                         package.tools_source)
    assert _call_tally(plain).result_json == '{"total": 6}'  # no code: the worker checks and compiles the source
    code = checked_code(other, "tools.py")[1]
    assert code is not None
    carried = DomainBundle(plain.content_hash, plain.manifest_json, plain.schema_sql, plain.seed, plain.tools_source,
                           tools_code=code)
    assert _call_tally(carried).result_json == '{"total": -1}'  # the code given ran, not the source


async def test_the_host_gives_workers_its_checked_code_once_an_episode_needs_the_domain(tmp_path):
    settings = HostSettings(workers=2, call_timeout=3.0, skip_validation=True, token_file=tmp_path / "token")
    async with Host.running(settings, [FIXTURE_DOMAINS], ["tiny_library"]) as host:
        runtime = host.registry.domain("tiny_library")
        assert runtime.bundle.tools_code is None  # nothing checked at start-up: serve comes online as fast
        episodes = [await host.create_episode("tiny_library") for _ in range(2)]  # one on each worker
        assert runtime.bundle.tools_code == checked_code(runtime.package.tools_source, "tools.py")[1]
        for episode in episodes:
            assert (await host.call(episode.id, "tally", {"upto": 4})).result == {"total": 6}


async def test_a_check_that_breaks_in_the_host_leaves_workers_checking_the_source(tmp_path, monkeypatch):
    import scaleenv_mcp.episodes.domain_runtime as domain_runtime

    def broken(source: str, filename: str) -> None:
        raise RuntimeError("the check broke")

    monkeypatch.setattr(domain_runtime, "checked_code", broken)
    settings = HostSettings(workers=1, call_timeout=3.0, skip_validation=True, token_file=tmp_path / "token")
    async with Host.running(settings, [FIXTURE_DOMAINS], ["tiny_library"]) as host:
        episode = await host.create_episode("tiny_library")
        assert (await host.call(episode.id, "tally", {"upto": 4})).result == {"total": 6}
        assert host.registry.domain("tiny_library").bundle.tools_code is None
