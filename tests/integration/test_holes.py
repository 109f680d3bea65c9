"""The smaller holes of issue #29 (failure 4), each closed and pinned here.

Before: a diff across domains answered 200 with a meaningless diff; a request whose id is an
object was taken for a notification (202, no answer); with --skip-validation a broken
domain gave a plain-text 500 and an MCP error holding a worker traceback with file paths;
the control token changed on every restart.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.host.control import write_token
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.soak.raw_mcp import RawMcpSession

pytestmark = pytest.mark.anyio

TESTS = Path(__file__).parent.parent
FIXTURES = TESTS / "fixtures" / "domains"
ACTING = TESTS / "fixtures" / "acting_domains"


def _settings(tmp_path: Path, **overrides: object) -> HostSettings:
    return HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                        skip_validation=True, **overrides)


@pytest.fixture
async def two_domains(tmp_path: Path) -> AsyncIterator[tuple[Host, Listeners]]:
    async with Host.running(_settings(tmp_path), [FIXTURES, ACTING]) as host, serving(host) as urls:
        yield host, urls


async def test_a_diff_across_domains_is_a_usage_error(two_domains: tuple[Host, Listeners]):
    _, urls = two_domains
    async with ControlClient(urls.control_url, urls.token) as control:
        [library] = await control.create_episodes("tiny_library")
        [desk] = await control.create_episodes("lending_desk")
        snapshot = await control.snapshot(desk.id)
        with pytest.raises(UsageError, match="one domain"):
            await control.diff(library.id, against=desk.id)
        with pytest.raises(UsageError, match="another domain"):
            await control.diff(library.id, against=snapshot)
        assert (await control.diff(library.id, against="start")).tables == {}


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], 1.5, True])
async def test_a_request_whose_id_is_not_a_string_or_integer_is_an_invalid_request(
        two_domains: tuple[Host, Listeners], bad_id: object):
    host, urls = two_domains
    episode = await host.create_episode("tiny_library")
    async with httpx.AsyncClient() as http:
        session = await RawMcpSession.open(f"{urls.agent_url}/mcp/episodes/{episode.id}", http)
        status, answer = await session.send({"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"})
        assert status == 400 and answer["error"]["code"] == -32600 and "id" in answer["error"]["message"]
        status, answer = await session.send({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
        assert status == 200 and answer["id"] == 7


@pytest.fixture
async def broken(tmp_path: Path) -> AsyncIterator[Listeners]:
    """tiny_library whose tools.py divides by zero at import: passes the static policy, fails in the worker."""
    package = shutil.copytree(FIXTURES / "tiny_library", tmp_path / "domains" / "tiny_library")
    tools = package / "tools.py"
    tools.write_text(tools.read_text() + "\nWARM_UP = 1 // 0\n")
    async with Host.running(_settings(tmp_path), [package.parent]) as host, serving(host) as urls:
        yield urls


def _leaks(text: str) -> bool:
    return "Traceback" in text or "/" in text.replace("http://", "") or 'File "' in text


async def test_a_broken_domain_served_without_validation_answers_json_without_internals(broken: Listeners):
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{broken.control_url}/episodes", json={"domain": "tiny_library"},
                                   headers={"authorization": f"Bearer {broken.token}"})
        assert response.status_code == 500
        error = response.json()["error"]
        assert error["code"] == "environment_fault" and "ZeroDivisionError" in error["message"]
        assert not _leaks(error["message"])
        session = await RawMcpSession.open(f"{broken.agent_url}/mcp/tiny_library", http)
        status, answer = await session.call_tool("find_books", {"text": "Dune"})
        assert answer["error"]["code"] == -32603 and "ZeroDivisionError" in answer["error"]["message"]
        assert not _leaks(answer["error"]["message"])


def test_the_control_token_is_kept_across_restarts_unless_rotated(tmp_path: Path):
    settings = HostSettings(token_file=tmp_path / "token")
    first, path = write_token(settings)
    again, _ = write_token(settings)
    rotated, _ = write_token(settings.model_copy(update={"rotate_token": True}))
    assert first == again != rotated and path.read_text().strip() == rotated
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)  # someone else could have read it: not trusted, replaced
    assert write_token(settings)[0] != rotated
