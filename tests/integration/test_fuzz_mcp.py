"""Property-based fuzzing of the MCP endpoint (issue #29 item 6): a short seeded run that stays in the suite.

Arbitrary JSON-RPC messages and arbitrary arguments against every tool's served schema of a
real ``scaleenv serve`` (fixture domain and the shipped project_management): the host
answers each with a JSON-RPC answer or a 4xx, never a 5xx, and never -32603: every input
here is the client's doing. Hypothesis drives ``soak.fuzz`` through ``st.randoms()``, the
generator the long soak uses. Larger runs: ``-m slow``, or ``scaleenv soak``.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scaleenv_mcp.soak.fuzz import fuzz_arguments, fuzz_message
from scaleenv_mcp.soak.raw_mcp import RawMcpSession
from scaleenv_mcp.soak.run import classify
from scaleenv_mcp.soak.served import ServedHost
from scaleenv_mcp.tls import shared_ssl_context

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("fuzz_mcp")

REPO = Path(__file__).resolve().parents[2]
DOMAINS = ["tiny_library", "project_management"]
SHORT = settings(max_examples=60, derandomize=True, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
LONG = settings(SHORT, max_examples=2000)


class _Target:
    """One served host, an episode per domain and its tools' served input schemas."""

    def __init__(self, served: ServedHost) -> None:
        self.served = served
        self.urls: dict[str, str] = {}
        self.schemas: dict[str, dict[str, Any]] = {}

    async def prepare(self) -> None:
        async with httpx.AsyncClient() as http:
            for domain in DOMAINS:
                response = await http.post(f"{self.served.control_url}/episodes", json={"domain": domain},
                                           headers={"authorization": f"Bearer {self.served.token}"})
                self.urls[domain] = response.json()["episodes"][0]["agent_url"]
                session = await RawMcpSession.open(self.urls[domain], http)
                _, answer = await session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                self.schemas |= {f"{domain}/{t['name']}": t["inputSchema"] for t in answer["result"]["tools"]}

    def send(self, domain: str, message: Any) -> tuple[int, Any]:
        async def go() -> tuple[int, Any]:
            async with httpx.AsyncClient(timeout=60, verify=shared_ssl_context()) as http:
                session = await RawMcpSession.open(self.urls[domain], http)
                return await session.send(message)

        return asyncio.run(go())


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Target]:
    domains_dir = tmp_path_factory.mktemp("domains")
    for source in (REPO / "tests" / "fixtures" / "domains" / "tiny_library", REPO / "domains" / "project_management"):
        (domains_dir / source.name).symlink_to(source)
    with ServedHost(domains_dir, tmp_path_factory.mktemp("state"), skip_validation=True) as served:
        prepared = _Target(served)
        asyncio.run(prepared.prepare())
        yield prepared
        assert served.process is not None and served.process.poll() is None, "the host crashed"


def _acceptable(status: int, answer: Any, message: Any = None) -> bool:
    """No 5xx, no -32603; and a request with an id that is not a string or integer is refused, not
    taken for a notification (202)."""
    kind = "accepted" if status == 202 else classify(status, answer)
    if isinstance(message, dict) and "method" in message and "id" in message:
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            return status == 400
    return not kind.startswith(("rpc:-32603", "http:5"))


def _check_tool_calls(target: _Target, rng: random.Random) -> None:
    name = rng.choice(sorted(target.schemas))
    domain, tool = name.split("/")
    arguments = fuzz_arguments(target.schemas[name], rng)
    status, answer = target.send(domain, {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                          "params": {"name": tool, "arguments": arguments}})
    assert _acceptable(status, answer), (tool, arguments, status, answer)


def _check_messages(target: _Target, rng: random.Random) -> None:
    domain = rng.choice(DOMAINS)
    message = fuzz_message(rng, sorted(n.split("/")[1] for n in target.schemas if n.startswith(domain)))
    status, answer = target.send(domain, message)
    assert _acceptable(status, answer, message), (message, status, answer)


@SHORT
@given(rng=st.randoms(use_true_random=False))
def test_fuzzed_arguments_never_get_an_internal_error(target: _Target, rng: random.Random):
    _check_tool_calls(target, rng)


@SHORT
@given(rng=st.randoms(use_true_random=False))
def test_arbitrary_jsonrpc_never_gets_an_internal_error(target: _Target, rng: random.Random):
    _check_messages(target, rng)


@pytest.mark.slow
@pytest.mark.long
@LONG
@given(rng=st.randoms(use_true_random=False))
def test_fuzzed_arguments_long_run(target: _Target, rng: random.Random):
    _check_tool_calls(target, rng)


@pytest.mark.slow
@pytest.mark.long
@LONG
@given(rng=st.randoms(use_true_random=False))
def test_arbitrary_jsonrpc_long_run(target: _Target, rng: random.Random):
    _check_messages(target, rng)
