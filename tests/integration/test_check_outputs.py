"""``--check-outputs always|sampled|off`` (#25 item 1) against a tool that drifts from its output schema.

The drifting copy of the fixture domain returns ``tally``'s total as a string (``{"total": "6"}``
where the schema says integer). Served with --skip-validation (validation would refuse it, as the
last test shows), each mode does what it says: ``always`` (the default) refuses every drifted
result as an environment fault, ``sampled`` the first of each tool per worker and then one in
``SAMPLE_EVERY``, ``off`` none.
"""

from __future__ import annotations

from pathlib import Path

import mcp
import pytest
from mcp.shared.exceptions import MCPError

from scaleenv_mcp.errors import EnvironmentFaultError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.workers.output_check import SAMPLE_EVERY
from tests.support_hostile import drifting_copy

pytestmark = pytest.mark.anyio
FIXTURE = Path(__file__).parent.parent / "fixtures" / "domains" / "tiny_library"


@pytest.fixture
def drifting(tmp_path: Path) -> Path:
    return drifting_copy(FIXTURE, tmp_path / "domains" / "tiny_library", ["tally"]).parent


def _settings(tmp_path: Path, **values: object) -> HostSettings:
    return HostSettings(workers=1, call_timeout=5.0, port=0, control_port=0, token_file=tmp_path / "token",
                        skip_validation=True, **values)


async def _tally(host: Host, episode_id: str) -> dict | None:
    """The result an agent would get, or None when the call was refused as an environment fault."""
    try:
        return (await host.registry.call(episode_id, "tally", {"upto": 4})).result
    except EnvironmentFaultError:
        return None


def test_the_default_is_always(monkeypatch: pytest.MonkeyPatch):
    assert HostSettings().check_outputs == "always"
    monkeypatch.setenv("SCALEENV_CHECK_OUTPUTS", "sampled")
    assert HostSettings.from_env().check_outputs == "sampled"
    assert HostSettings.from_env(check_outputs="off").check_outputs == "off"


async def test_always_refuses_every_drifted_result_and_keeps_the_episode(tmp_path: Path, drifting: Path):
    async with Host.running(_settings(tmp_path), [drifting]) as host:
        assert host.settings.check_outputs == "always"
        episode = await host.create_episode("tiny_library")
        assert [await _tally(host, episode.id) for _ in range(3)] == [None] * 3
        faults = [r for r in await host.trace(episode.id) if r.tool == "tally"]
        assert [r.outcome.value for r in faults] == ["fault"] * 3 and all(r.result is None for r in faults)
        async with host.client(episode.id) as client:  # over MCP: an error, never the drifted result
            with pytest.raises(MCPError) as caught:
                await client.call_tool("tally", {"upto": 4})
            assert caught.value.error.code == -32603
            assert not (await client.call_tool("find_books", {"text": "Dune"})).is_error  # other tools unharmed


async def test_sampled_catches_the_first_result_then_one_in_sample_every(tmp_path: Path, drifting: Path):
    async with Host.running(_settings(tmp_path, check_outputs="sampled"), [drifting]) as host:
        episode = await host.create_episode("tiny_library")
        results = [await _tally(host, episode.id) for _ in range(SAMPLE_EVERY + 1)]
        assert results[0] is None and results[SAMPLE_EVERY] is None  # checked: refused
        assert results[1:SAMPLE_EVERY] == [{"total": "6"}] * (SAMPLE_EVERY - 1)  # not checked: passed on


async def test_off_passes_drifted_results_on(tmp_path: Path, drifting: Path):
    async with Host.running(_settings(tmp_path, check_outputs="off"), [drifting]) as host:
        episode = await host.create_episode("tiny_library")
        assert [await _tally(host, episode.id) for _ in range(3)] == [{"total": "6"}] * 3
        # whatever the mode, a result must still be JSON of a size within the limit
        assert (await host.registry.call(episode.id, "repeat_text", {"text": "ab", "times": 2})).result == {"length": 4}


async def test_validation_refuses_a_drifting_tool_whatever_the_serving_mode(tmp_path: Path, drifting: Path):
    settings = _settings(tmp_path, check_outputs="off").model_copy(update={"skip_validation": False})
    async with Host.running(settings, [drifting]) as host:
        assert host.status["tiny_library"].startswith("failed validation"), host.status


async def test_serve_over_http_with_check_outputs_off(tmp_path: Path, drifting: Path):
    """The setting reaches workers started by the listeners' host (the path `scaleenv serve` takes): the
    drifted result reaches the agent, whose client (the Python SDK checks structured content) says so."""
    from scaleenv_mcp.host.listeners import serving

    async with Host.running(_settings(tmp_path, check_outputs="off"), [drifting]) as host, serving(host) as urls:
        episode = await host.create_episode("tiny_library")
        async with mcp.Client(f"{urls.agent_url}/mcp/episodes/{episode.id}") as client:
            with pytest.raises(RuntimeError, match="Invalid structured content returned by tool tally: '6' is not"):
                await client.call_tool("tally", {"upto": 4})
