"""Workers die with their host whatever kills it (issue #29, failure 1).

Before: a host killed while a tool call looped left the busy worker re-parented to PID 1,
still at 100% CPU a minute later; the same for a killed ``scaleenv validate``. These tests
kill the real commands with SIGKILL (no clean-up runs), or stop the host with SIGTERM, and poll for
any process of the run; each of the worker's three guards is also shown working alone.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from scaleenv_mcp.soak.raw_mcp import RawMcpSession
from scaleenv_mcp.soak.served import TAG_VARIABLE, ServedHost, worker_processes
from tests.support_hostile import hostile_copy
from tests.support_processes import left_after

FIXTURES = Path(__file__).parent.parent / "fixtures" / "domains"
def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])


# Each guard alone, the others switched off in every process of the run by a sitecustomize that
# replaces them before any worker starts: SIGKILL leaves the parent-death signal nothing to race, so
# the watchdog (parent gone) and the per-request alarm (own budget past) are shown on their own.
_WITHOUT = {
    "death_signal": "lifetime._set_parent_death_signal = lambda: False\n",
    "watchdog": "lifetime._watch = lambda parent_pid, fd: None\n",
}
CALL_BUDGET = 4.0  # seconds; the worker's own alarm then fires at 4 x 1.25 + 2 = 7 s, inside tests.support_processes.GONE_WITHIN


def _guards_off(directory: Path, guards: tuple[str, ...]) -> dict[str, str]:
    if not guards:
        return {}
    directory.mkdir()
    (directory / "sitecustomize.py").write_text(
        "from scaleenv_mcp.workers import lifetime\n" + "".join(_WITHOUT[g] for g in guards))
    return {"PYTHONPATH": os.pathsep.join([str(directory), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes through /proc")
@pytest.mark.parametrize(("how", "off"), [
    ("SIGKILL", ()),  # every guard: the kernel's death signal acts first
    ("SIGTERM", ()),  # the host's own shutdown while a call loops
    ("SIGKILL", ("death_signal",)),  # the watchdog alone sees the parent gone
    ("SIGKILL", ("death_signal", "watchdog")),  # the per-request alarm alone ends the loop
], ids=["sigkill", "sigterm", "watchdog-alone", "alarm-alone"])
def test_killed_host_leaves_no_worker_behind_while_a_call_loops(tmp_path: Path, how: str, off: tuple[str, ...]):
    env = {"SCALEENV_CALL_TIMEOUT": str(CALL_BUDGET if "watchdog" in off else 120), **_guards_off(tmp_path / "site", off)}
    served = ServedHost(FIXTURES, tmp_path / "state", skip_validation=True, env=env).start()
    try:
        headers = {"authorization": f"Bearer {served.token}"}
        episode = httpx.post(f"{served.control_url}/episodes", json={"domain": "tiny_library"}, headers=headers,
                             timeout=30).json()["episodes"][0]

        async def call() -> None:
            async with httpx.AsyncClient() as client:
                session = await RawMcpSession.open(episode["agent_url"], client)
                await session.call_tool("tally", {"upto": 10**13})

        def loop_forever() -> None:
            try:
                asyncio.run(call())
            except httpx.HTTPError:
                pass  # the host is killed under it

        caller = threading.Thread(target=loop_forever, daemon=True)
        caller.start()
        time.sleep(2.0)  # the worker is inside the loop now
        busy = worker_processes(served.tag, served.pid)
        assert busy and all(_cpu_ticks(pid) > 50 for pid in busy), "the worker is not looping"
    finally:
        if how == "SIGTERM" and served.process is not None and served.process.poll() is None:
            served.process.send_signal(signal.SIGTERM)
            served.process.wait(timeout=30)
        served.kill()
    assert left_after(served.tag) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes through /proc")
def test_killed_validate_leaves_no_worker_behind(tmp_path: Path):
    package = hostile_copy(FIXTURES / "tiny_library", tmp_path / "tiny_library", "loop")
    tag = os.urandom(8).hex()
    env = {**os.environ, TAG_VARIABLE: tag, "SCALEENV_STATE_DIR": str(tmp_path / "state")}
    process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp", "validate", str(package), "--timeout", "60",
                                "--json"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not worker_processes(tag, process.pid) and time.monotonic() < deadline:  # the validator's workers
            time.sleep(0.2)
        time.sleep(2.0)  # the cases are looping now
        assert worker_processes(tag, process.pid)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert left_after(tag) == []
