"""The chaos run of issue #29, short and seeded: workers and the host killed with SIGKILL under load.

Real ``scaleenv serve`` processes on one state directory, the fixture domain, fuzzed tool calls
over MCP. Every check of ``soak.chaos`` must hold: no process of a killed host left, every surviving
episode equal to its sequential replay, every episode open on a killed host answering
``episode_lost`` on the next one (control API and MCP), no 500, no -32603 but ``worker_lost``, no
hang. The long run is ``scaleenv soak --chaos`` (docs/reliability.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.soak.chaos import ChaosConfig, chaos_checks, run_chaos

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"


async def test_killed_workers_and_hosts_leave_nothing_and_lose_only_what_they_held(tmp_path: Path):
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / "tiny_library").symlink_to(FIXTURES / "tiny_library")
    config = ChaosConfig(host_kills=2, worker_kills=4, round_seconds=4.0, domains=["tiny_library"], clients=3,
                         workers=2, seed=7, calls_per_episode=8, skip_validation=True,
                         domains_dir=tmp_path / "domains", state_dir=tmp_path / "state")
    report = await run_chaos(config)
    failed = [name for name, ok in chaos_checks(report) if not ok]
    assert not failed, (failed, report["failures"], report["failure_examples"], report["replay"])
    assert report["host_kills"] == 2 and report["worker_kills"] == 4 and report["processes_left"] == 0
    assert report["replay"]["checked"] >= 3 and report["lost_with_host"]["checked"] >= 1
    assert report["outcomes"].get("success", 0) > 0  # the load did reach the tools
