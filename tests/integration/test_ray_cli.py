"""``scaleenv serve --ray`` as a person runs it: a real process, its one control API and public agent
address, Ctrl-C; and the bad inputs, each one clear line and an exit code: Ray not installed (3, how to
install it), an unreachable Ray address (3, within seconds), a --hosts without --ray or a --ray with
--stdio (2); the same for ``eval``, ``verify`` and ``tasks synth --ray``, which write nothing then.

The Ray-less case runs everywhere (it hides Ray from the child); the rest need Ray installed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import mcp
import pytest

from scaleenv_mcp.control_client import ControlClient
from tests.support_processes import interrupt

FIXTURE_DOMAINS = Path(__file__).parent.parent / "fixtures" / "domains"

pytestmark = pytest.mark.xdist_group("ray")  # one Ray cluster at a time (pytest -n)


def _scaleenv(*args: str, root: Path, hide_ray: bool = False, hide: tuple[str, ...] = (), timeout: float = 60
              ) -> subprocess.CompletedProcess[str]:
    # a module set to None in sys.modules: importing it raises ImportError
    hidden = "".join(f"sys.modules[{name!r}] = None; " for name in (("ray",) if hide_ray else ()) + hide)
    code = f"import sys; {hidden}sys.argv = ['scaleenv', *sys.argv[1:]]; from scaleenv_mcp.cli.app import main; main()"
    return subprocess.run([sys.executable, "-c", code, *args],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "SCALEENV_STATE_DIR": str(root / "state")})


def _one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def test_ray_not_installed_says_how_to_install_it_and_exits_3(tmp_path: Path):
    result = _scaleenv("serve", "--ray", "auto", "--domains-dir", str(FIXTURE_DOMAINS), "--port", "0", "--control-port", "0",
                       root=tmp_path, hide_ray=True)
    assert result.returncode == 3
    assert 'pip install "scaleenv-mcp[ray]"' in _one_error_line(result)


@pytest.mark.parametrize(("args", "says"), [
    (["--hosts", "2"], "--hosts goes with --ray"),
    (["--ray", "auto", "--stdio", "tiny_library"], "does not go with --stdio"),
    (["--ray", "auto", "--no-control"], "does not go with --stdio or --no-control"),
])
def test_ray_options_that_do_not_fit_are_usage_errors(tmp_path: Path, args: list[str], says: str):
    result = _scaleenv("serve", *args, "--domains-dir", str(FIXTURE_DOMAINS), root=tmp_path, hide_ray=True)
    assert result.returncode == 2
    assert says in _one_error_line(result)


def test_an_unreachable_ray_address_is_one_line_and_exit_3_without_a_hang(tmp_path: Path):
    pytest.importorskip("ray")
    result = _scaleenv("serve", "--ray", "127.0.0.1:9", "--domains-dir", str(FIXTURE_DOMAINS), "--port", "0", "--control-port", "0",
                       root=tmp_path, timeout=30)  # port 9 (discard): nothing listens on loopback
    assert result.returncode == 3
    line = _one_error_line(result)
    assert "cannot reach the Ray cluster at 127.0.0.1:9" in line and "ray start --head" in line


@pytest.mark.parametrize("hide_ray", [True, False], ids=["ray-missing", "unreachable"])
def test_eval_on_ray_that_cannot_start_is_one_line_exit_3_and_leaves_no_run_folder(tmp_path: Path, hide_ray: bool):
    if not hide_ray:
        pytest.importorskip("ray")
    out = tmp_path / "run"
    result = _scaleenv("eval", "--domains", "smart_home", "--num-tasks", "1", "--agent", "oracle",
                       "--ray", "127.0.0.1:9", "--out", str(out), root=tmp_path, hide_ray=hide_ray, timeout=60)
    assert result.returncode == 3, result.stderr
    line = _one_error_line(result)
    assert ('pip install "scaleenv-mcp[ray]"' if hide_ray else "cannot reach the Ray cluster at 127.0.0.1:9") in line
    assert not out.exists()


@pytest.mark.parametrize("hide_ray", [True, False], ids=["ray-missing", "unreachable"])
def test_synth_on_ray_that_cannot_start_is_one_line_exit_3_and_writes_nothing(tmp_path: Path, hide_ray: bool):
    if not hide_ray:
        pytest.importorskip("ray")
    out = tmp_path / "tasks.jsonl"
    result = _scaleenv("tasks", "synth", "smart_home", "-n", "2", "--ray", "127.0.0.1:9", "--out", str(out),
                       root=tmp_path, hide_ray=hide_ray, timeout=60)
    assert result.returncode == 3, result.stderr
    line = _one_error_line(result)
    assert ('pip install "scaleenv-mcp[ray]"' if hide_ray else "cannot reach the Ray cluster at 127.0.0.1:9") in line
    assert not out.exists()


@pytest.mark.parametrize("command", [["tasks", "synth", "smart_home"], ["verify", "smart_home"],
                                     ["eval", "--domains", "smart_home", "--agent", "oracle", "--out", "{tmp}/run"]],
                         ids=["synth", "verify", "eval"])
def test_hosts_without_ray_is_a_usage_error_for_every_command(tmp_path: Path, command: list[str]):
    # said before the command imports its work (mcp, openai: 1.5-3 s of a person's wait for a usage error)
    result = _scaleenv(*(arg.format(tmp=tmp_path) for arg in command), "--hosts", "2", root=tmp_path, hide_ray=True,
                       hide=("mcp", "openai"))
    assert result.returncode == 2, result.stderr
    assert "--hosts goes with --ray" in _one_error_line(result)


@pytest.mark.slow
def test_serve_on_ray_serves_episodes_on_two_actors_and_stops_on_ctrl_c(tmp_path: Path):
    pytest.importorskip("ray")
    token = tmp_path / "token"
    process = subprocess.Popen(
        [sys.executable, "-m", "scaleenv_mcp", "serve", "--ray", "local", "--hosts", "2", "--workers", "1",
         "--port", "0", "--control-port", "0", "--domains-dir", str(FIXTURE_DOMAINS), "--token-file", str(token)],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        env={**os.environ, "SCALEENV_STATE_DIR": str(tmp_path / "state"), "RAY_DEFAULT_OBJECT_STORE_MEMORY_PROPORTION": "0.05"})
    try:
        assert process.stderr is not None
        banner = next(line for line in process.stderr if "control API on " in line)
        actors = [next(process.stderr) for _ in range(2)]
        control_url = banner.split("control API on ", 1)[1].split(" ", 1)[0]
        public = banner.split("agents: ", 1)[1].split("/mcp/", 1)[0]
        assert all(": agents http://127.0.0.1:" in line for line in actors)

        async def drive() -> set[str]:
            async with ControlClient(control_url, token_file=token) as control:
                episodes = await control.create_episodes("tiny_library", count=2)
                for episode in episodes:
                    async with mcp.Client(episode.agent_url) as client:
                        assert not (await client.call_tool("get_member", {"member_id": "MEM-00001"})).is_error
                    assert (await control.get_episode(episode.id)).calls == 1
                async with mcp.Client(f"{public}/mcp/tiny_library") as client:  # the one public address
                    borrowed = await client.call_tool("borrow_book", {"member_id": "MEM-00002", "book_id": "BK-00001"})
                    assert borrowed.structured_content["loan_id"] == "LN-00008"
                return {e.agent_url.split("/mcp/")[0] for e in episodes}

        assert len(asyncio.run(drive())) == 2  # one episode on each actor
    finally:
        interrupt(process, timeout=60)
    assert process.returncode == 0
