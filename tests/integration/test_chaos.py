"""The chaos run of issue #29, short and seeded: workers and the host killed with SIGKILL under load.

Real ``scaleenv serve`` processes on one state directory, the fixture domain, fuzzed tool calls
over MCP. Every check of ``soak.chaos`` must hold: no process of a killed host left, surviving
episodes replayed (``min_replays`` a round) and each equal to its sequential replay, every episode
open on a killed host answering ``episode_lost`` on the next one (control API and MCP), no 500, no
-32603 but ``worker_lost``, no hang. The long run is ``scaleenv soak --chaos`` (docs/reliability.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.soak.chaos import ChaosConfig, chaos_checks, run_chaos

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"
SHIPPED = Path(__file__).resolve().parents[2] / "domains"


def _config(tmp_path: Path, domain: Path = FIXTURES / "tiny_library", **changes: object) -> ChaosConfig:
    (tmp_path / "domains").mkdir()
    (tmp_path / "domains" / domain.name).symlink_to(domain)
    config = ChaosConfig(host_kills=2, worker_kills=4, round_seconds=4.0, domains=[domain.name], clients=3,
                         workers=2, seed=7, calls_per_episode=8, skip_validation=True, min_replays=2,
                         domains_dir=tmp_path / "domains", state_dir=tmp_path / "state")
    for name, value in changes.items():
        setattr(config, name, value)
    return config


async def test_killed_workers_and_hosts_leave_nothing_and_lose_only_what_they_held(tmp_path: Path):
    # a shipped domain, whose fuzzed calls do write (tiny_library's never name a real row): a write lost
    # or applied twice by a worker's recovery would make its episode differ from the sequential replay
    report = await run_chaos(_config(tmp_path, SHIPPED / "smart_home"))
    failed = [name for name, ok in chaos_checks(report) if not ok]
    assert not failed, (failed, report["failures"], report["failure_examples"], report["replay"])
    assert report["host_kills"] == 2 and report["worker_kills"] == 4 and report["processes_left"] == 0
    assert report["replay"]["checked"] >= 4 and report["lost_with_host"]["checked"] >= 1
    assert report["replay"]["changed"] >= 1  # some replayed episodes wrote
    assert report["outcomes"].get("success", 0) > 0  # the load did reach the tools
    assert report["latency_ms"]["p50"] > 0  # read 0.0 while seconds were rounded to 0.1 before the ms


async def test_a_round_shorter_than_one_episode_still_replays_before_its_host_is_killed(tmp_path: Path):
    """A machine too slow for ``round_seconds``, made deterministic: a round of 0 s. The host used to be
    killed before any episode got through its calls, fingerprint and replay, and the run reported
    0 episodes compared as a failure of "every surviving episode equals its sequential replay" (#29's
    flake under load). Now the host lives until ``min_replays`` of the round's episodes were compared."""
    report = await run_chaos(_config(tmp_path, host_kills=1, worker_kills=0, round_seconds=0.0, clients=2))
    failed = [name for name, ok in chaos_checks(report) if not ok]
    assert not failed, (failed, report["failures"], report["failure_examples"], report["replay"])
    assert report["replay"]["checked"] >= 2 and report["round_s"]["max"] < report["config"]["round_limit"]


def test_no_episode_compared_fails_as_too_few_replays_not_as_a_differing_replay():
    """0 replays compared is its own failed check; a differing one fails the equality check alone."""
    report = {"config": {"host_kills": 2, "worker_kills": 4, "min_replays": 2}, "host_kills": 2, "worker_kills": 4,
              "processes_left": 0, "replay": {"checked": 0, "differed": 0, "examples": []}, "failures": {},
              "lost_with_host": {"checked": 1, "answered_episode_lost": 1, "mcp_checked": 1,
                                 "mcp_answered_episode_lost": 1},
              "lost_with_worker": {"checked": 0, "answered_episode_lost": 0}}
    assert [name for name, ok in chaos_checks(report) if not ok] == ["at least 4 surviving episodes replayed (2 per round)"]
    report["replay"] = {"checked": 4, "differed": 1, "examples": []}
    assert [name for name, ok in chaos_checks(report) if not ok] == ["every surviving episode equals its sequential replay"]
    report["replay"] = {"checked": 4, "differed": 0, "examples": []}
    assert all(ok for _, ok in chaos_checks(report))


@pytest.mark.parametrize("mode", [[], ["--chaos"]])
def test_a_soak_whose_host_cannot_start_says_why_in_one_line(mode: list[str]):
    """The reason `scaleenv serve` gave, as one `error:` line and exit 3; no traceback (there was one)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "soak", *mode, "--domain", "no_such_domain",
                           "--minutes", "0.05"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: scaleenv serve exited with 2 while starting: error: unknown domain 'no_such_domain'")
