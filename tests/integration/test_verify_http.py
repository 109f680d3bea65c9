"""``scaleenv verify`` over MCP streamable HTTP: its own loopback host, and a running host's control API."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.domain.task import TaskAction
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.verifier.perturb import changed_value
from scaleenv_mcp.verifier.verify import verify_domain

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "domains" / "tiny_library"
pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("http") / "tiny_library"
    shutil.copytree(FIXTURE, target)
    report = anyio.run(lambda: synthesize_tasks(target, 5, 11, workers=1))
    assert report.produced == 5
    return target


async def test_verify_over_its_own_http_listeners(package: Path):
    report = await verify_domain(package, transport="http", workers=1)
    assert report.transport == "http"
    assert (report.passed, report.failed, report.environment_errors) == (5, 0, 0), report.failures_by_gate


async def _cli(*args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "scaleenv_mcp", "verify", *args, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=os.environ.copy())
    out, err = await asyncio.wait_for(process.communicate(), 300)
    assert process.returncode is not None
    return process.returncode, out.decode() + err.decode()


async def test_cli_verifies_a_running_host_and_exits_1_on_tampered_actions(package: Path, tmp_path: Path):
    settings = HostSettings(workers=1, port=0, control_port=0, state_dir=tmp_path, token_file=tmp_path / "token")
    async with Host.running(settings, domains=[str(package)]) as host, serving(host) as listeners:
        assert listeners.control_url and listeners.token_path
        remote = ["--transport", "http", "--url", listeners.agent_url, "--control-url", listeners.control_url,
                  "--token-file", str(listeners.token_path), "--json"]
        code, output = await _cli(str(package), *remote)
        assert code == 0, output[-2000:]
        report = json.loads(output[output.index("{"):output.rindex("}") + 1])
        assert report["passed"] == 5 and report["transport"] == "http"
        assert "WITHOUT VALIDATION" not in output  # the determinism replay's own host validated (or hit the cache)

        tasks = load_tasks(package / "tasks.jsonl")
        task = tasks[0].model_copy(deep=True)
        index = next(i for i, a in enumerate(task.actions) if a.tool in ("borrow_book", "return_book"))
        name = sorted(task.actions[index].arguments)[0]
        value = task.actions[index].arguments[name]
        task.actions[index] = TaskAction(tool=task.actions[index].tool,
                                         arguments={**task.actions[index].arguments, name: changed_value(value, {})})
        tampered = tmp_path / "tampered.jsonl"
        tampered.write_text(task.to_line() + "\n")
        code, output = await _cli(str(package), "--tasks", str(tampered), *remote)
        assert code == 1, output[-2000:]
        assert "gold_replay" in output


async def test_cli_exits_3_when_the_host_is_unreachable(package: Path, tmp_path: Path):
    token = tmp_path / "token"
    token.write_text("nothing\n")
    code, output = await _cli(str(package), "--transport", "http", "--control-url", "http://127.0.0.1:9",
                              "--token-file", str(token), "--no-determinism", "--sample", "1")
    assert code == 3, output[-2000:]
