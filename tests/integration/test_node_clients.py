"""External MCP clients against the host: the TypeScript SDK and the MCP Inspector CLI.

Both are pinned in tests/node/package.json (install them with ``npm ci`` in tests/node).
Each client lists the fixture domain's tools, calls them, and shows that one episode keeps
its state across calls: borrow_book(MEM-00002, BK-00001) gives LN-00008 the first time in an
episode and LN-00009 the second. The TypeScript SDK runs one handshake-era session per
process (over streamable HTTP on both endpoints, and over stdio); every Inspector CLI
invocation is a process and a session of its own, so its state test puts the episode in the
URL (/mcp/episodes/{id}).

The node processes run with ``anyio.open_process`` so that the event loop keeps serving the
in-process listeners while they run (a blocking ``subprocess.run`` would deadlock).

Without Node.js or tests/node/node_modules these tests skip, except under CI (the ``CI``
environment variable set), where they fail: a CI run must never silently skip them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import ByteReceiveStream

from scaleenv_mcp.host.listeners import Listeners

pytestmark = [pytest.mark.node, pytest.mark.anyio]

NODE_DIR = Path(__file__).resolve().parent.parent / "node"
TS_CLIENT = NODE_DIR / "ts_client.mjs"
INSPECTOR = NODE_DIR / "node_modules" / ".bin" / "mcp-inspector"  # a link to its launcher script
TINY_LIBRARY = Path(__file__).resolve().parent.parent / "fixtures" / "domains" / "tiny_library"
FIXTURE_TOOLS = {"find_books", "get_member", "borrow_book", "return_book"}
BORROW = {"member_id": "MEM-00002", "book_id": "BK-00001"}
PROCESS_TIMEOUT = 90.0  # seconds for one node process; they take well under 2 s on a quiet box
INSPECTOR_TOOL_ERROR_EXIT = 5  # Inspector CLI: 0 ok, 5 the tool returned isError, 1 protocol error


def _missing_node_tooling() -> str | None:
    for program in ("node",):
        if shutil.which(program) is None:
            return f"`{program}` is not on PATH"
    for needed in (NODE_DIR / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json",
                   INSPECTOR):
        if not needed.exists():
            return f"{needed} is missing: run `npm ci --no-audit --no-fund` in {NODE_DIR}"
    return None


@pytest.fixture(autouse=True)
def _node_tooling() -> None:
    missing = _missing_node_tooling()
    if missing is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the Node client tests must run under CI (CI is set) but {missing}", pytrace=False)
    pytest.skip(f"Node client tests skipped: {missing}")


@pytest.fixture
def node_env(tmp_path: Path) -> dict[str, str]:
    """The environment of every node process: ours, with the Inspector's files kept out of $HOME."""
    inspector_home = tmp_path / "inspector"
    inspector_home.mkdir()
    return {
        **os.environ,
        "MCP_STORAGE_DIR": str(inspector_home / "storage"),
        "MCP_CATALOG_PATH": str(inspector_home / "mcp.json"),
        "MCP_CLIENT_CONFIG_PATH": str(inspector_home / "client.json"),
        "NO_COLOR": "1",
        "npm_config_update_notifier": "false",
        "SCALEENV_STATE_DIR": str(tmp_path / "state"),  # for `serve --stdio`
    }


class Ran:
    def __init__(self, command: list[str], returncode: int, stdout: str, stderr: str) -> None:
        self.command, self.returncode, self.stdout, self.stderr = command, returncode, stdout, stderr

    def describe(self) -> str:
        return f"$ {' '.join(self.command)}\nexit {self.returncode}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}"

    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError:
            raise AssertionError(f"stdout is not one JSON document\n{self.describe()}") from None


async def _run(command: list[str], env: dict[str, str]) -> Ran:
    """Run a node process without blocking the event loop; kill its whole process group on timeout."""
    chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}

    async def drain(stream: ByteReceiveStream | None, name: str) -> None:
        if stream is not None:
            async for chunk in stream:
                chunks[name].append(chunk)

    process = await anyio.open_process(command, cwd=NODE_DIR, env=env, start_new_session=True)
    try:
        with anyio.fail_after(PROCESS_TIMEOUT):
            async with anyio.create_task_group() as tg:
                tg.start_soon(drain, process.stdout, "stdout")
                tg.start_soon(drain, process.stderr, "stderr")
                await process.wait()
    except BaseException:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # node -> (python on stdio): all of them
        except ProcessLookupError:
            pass
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await process.aclose()
    out, err = (b"".join(chunks[n]).decode(errors="replace") for n in ("stdout", "stderr"))
    return Ran(command, process.returncode if process.returncode is not None else -1, out, err)


async def _ts_client(args: list[str], env: dict[str, str]) -> dict[str, Any]:
    ran = await _run(["node", str(TS_CLIENT), *args], env)
    assert ran.returncode == 0, ran.describe()
    return ran.json()


async def _inspector(url: str, args: list[str], env: dict[str, str]) -> Ran:
    # node on the installed entry point, not `npx mcp-inspector`: npx spends 0.6-0.8 s of CPU finding it
    # each time, about 20 s of a full run (issue #26)
    return await _run(["node", str(INSPECTOR), "--cli", url, "--transport", "http", "--format", "json", *args], env)


async def _inspector_borrow(url: str, arguments: dict[str, str], env: dict[str, str], *extra: str) -> Ran:
    return await _inspector(url, ["--method", "tools/call", "--tool-name", "borrow_book",
                                  "--tool-args-json", json.dumps(arguments), *extra], env)


async def _control(listeners: Listeners, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    assert listeners.control_url is not None and listeners.token is not None
    async with httpx.AsyncClient(base_url=listeners.control_url,
                                 headers={"Authorization": f"Bearer {listeners.token}"}) as http:
        response = await http.request(method, path, json=body)
    assert response.is_success, response.text
    return response.json()


async def _new_episode(listeners: Listeners) -> dict[str, Any]:
    created = await _control(listeners, "POST", "/episodes", {"domain": "tiny_library"})
    return created["episodes"][0]


def _assert_one_episode_run(report: dict[str, Any]) -> None:
    assert FIXTURE_TOOLS <= set(report["tools"]), report
    first, second = report["borrows"]
    assert not first["isError"] and not second["isError"], report
    # The second borrow in the same episode gets the next loan id: the episode kept its state.
    assert (first["structuredContent"]["loan_id"], second["structuredContent"]["loan_id"]) == ("LN-00008", "LN-00009")
    assert report["bad"]["isError"] is True, report  # a tool error is a result, not a protocol error
    assert "book_id" in report["bad"]["text"], report


# --- TypeScript SDK -------------------------------------------------------------------------


async def test_ts_sdk_interactive_endpoint_session_is_one_episode(listeners: Listeners, node_env: dict[str, str]):
    url = f"{listeners.agent_url}/mcp/tiny_library"
    first = await _ts_client(["--url", url], node_env)
    _assert_one_episode_run(first)
    assert first["server"]["name"] == "tiny_library"
    assert first["sessionId"], "the TypeScript SDK 1.32 speaks the handshake era: the host must give it a session"
    second = await _ts_client(["--url", url], node_env)  # a new session is a new episode
    _assert_one_episode_run(second)
    assert second["sessionId"] != first["sessionId"]


async def test_ts_sdk_episode_endpoint_keeps_state_across_sessions(listeners: Listeners, node_env: dict[str, str]):
    episode = await _new_episode(listeners)
    report = await _ts_client(["--url", episode["agent_url"]], node_env)
    _assert_one_episode_run(report)
    assert (await _control(listeners, "GET", f"/episodes/{episode['id']}"))["calls"] == 3
    # A second session on the same URL is the same episode: MEM-00002 now holds too many loans.
    again = await _ts_client(["--url", episode["agent_url"]], node_env)
    assert all(b["isError"] and "conflict" in b["text"] for b in again["borrows"]), again
    assert (await _control(listeners, "GET", f"/episodes/{episode['id']}"))["calls"] == 6


async def test_ts_sdk_header_names_the_episode_on_the_domain_endpoint(listeners: Listeners, node_env: dict[str, str]):
    episode = await _new_episode(listeners)
    report = await _ts_client(["--url", f"{listeners.agent_url}/mcp/tiny_library",
                               "--header", f"X-ScaleEnv-Episode: {episode['id']}"], node_env)
    _assert_one_episode_run(report)
    assert (await _control(listeners, "GET", f"/episodes/{episode['id']}"))["calls"] == 3


async def test_ts_sdk_over_stdio(node_env: dict[str, str]):
    report = await _ts_client(["--stdio", sys.executable, "-m", "scaleenv_mcp", "serve", "--stdio", str(TINY_LIBRARY)],
                              node_env)
    assert report["transport"] == "stdio"
    assert report["server"]["name"] == "tiny_library"
    _assert_one_episode_run(report)


# --- MCP Inspector CLI ----------------------------------------------------------------------


@pytest.mark.parametrize("endpoint", ["domain", "episode"])
async def test_inspector_lists_tools(listeners: Listeners, node_env: dict[str, str], endpoint: str):
    url = (f"{listeners.agent_url}/mcp/tiny_library" if endpoint == "domain"
           else (await _new_episode(listeners))["agent_url"])
    ran = await _inspector(url, ["--method", "tools/list"], node_env)
    assert ran.returncode == 0, ran.describe()
    tools = {t["name"]: t for t in ran.json()["result"]["tools"]}
    assert FIXTURE_TOOLS <= set(tools), ran.describe()
    assert tools["borrow_book"]["inputSchema"]["required"] == ["member_id", "book_id"]


async def test_inspector_strict_finds_no_portability_problem_in_any_shipped_domain(node_env: dict[str, str],
                                                                                 tmp_path: Path):
    """#28: every shipped tool schema passes the Inspector's --strict portability check (exit 6 and a
    report on stderr otherwise). Validation is skipped: this is about what tools/list says."""
    from scaleenv_mcp.domain.catalog import find_domains
    from scaleenv_mcp.host.host import Host
    from scaleenv_mcp.host.listeners import serving
    from scaleenv_mcp.settings import HostSettings

    settings = HostSettings(workers=1, port=0, control_port=None, skip_validation=True, state_dir=tmp_path)
    async with Host.running(settings) as host, serving(host) as listeners:
        for slug in sorted(find_domains()):
            ran = await _inspector(f"{listeners.agent_url}/mcp/{slug}", ["--method", "tools/list", "--strict"],
                                   node_env)
            assert ran.returncode == 0 and not ran.stderr.strip(), (slug, ran.describe())  # strict reports on stderr
            assert all(t["annotations"]["openWorldHint"] is False for t in ran.json()["result"]["tools"])


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_inspector_invocations_share_the_episode_in_the_url(listeners: Listeners, node_env: dict[str, str],
                                                                  era: str):
    episode = await _new_episode(listeners)
    loans = []
    for _ in range(2):  # two processes, two sessions (or none, in the modern era), one episode
        ran = await _inspector_borrow(episode["agent_url"], BORROW, node_env, "--protocol-era", era)
        assert ran.returncode == 0, ran.describe()
        result = ran.json()["result"]
        assert result["isError"] is False, ran.describe()
        loans.append(result["structuredContent"]["loan_id"])
    assert loans == ["LN-00008", "LN-00009"]
    assert (await _control(listeners, "GET", f"/episodes/{episode['id']}"))["calls"] == 2


async def test_inspector_invocations_on_the_domain_endpoint_get_fresh_episodes(listeners: Listeners,
                                                                              node_env: dict[str, str]):
    # Why the state test above needs /mcp/episodes/{id}: each CLI run is a new session here.
    url = f"{listeners.agent_url}/mcp/tiny_library"
    for _ in range(2):
        ran = await _inspector_borrow(url, BORROW, node_env)
        assert ran.returncode == 0, ran.describe()
        assert ran.json()["result"]["structuredContent"]["loan_id"] == "LN-00008"


@pytest.mark.parametrize("endpoint", ["domain", "episode"])
async def test_inspector_tool_error_exits_5(listeners: Listeners, node_env: dict[str, str], endpoint: str):
    url = (f"{listeners.agent_url}/mcp/tiny_library" if endpoint == "domain"
           else (await _new_episode(listeners))["agent_url"])
    ran = await _inspector_borrow(url, {"member_id": "MEM-00002"}, node_env)
    assert ran.returncode == INSPECTOR_TOOL_ERROR_EXIT, ran.describe()
    result = ran.json()["result"]
    assert result["isError"] is True and "book_id" in result["content"][0]["text"], ran.describe()
    assert "tool_is_error" in ran.stderr, ran.describe()
