"""Shared fixtures: the fixture domain, a running host, real listeners on loopback, the loopback LLM."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners, serving
from scaleenv_mcp.settings import HostSettings
from tests.support_llm_server import FakeLLM, running_fake_llm

FIXTURE_DOMAINS = Path(__file__).parent / "fixtures" / "domains"
REPO = Path(__file__).parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Refuse ``pytest -n`` on a pytest whose pytest-xdist ignores ``xdist_group`` (pytest 9.2 with
    pytest-xdist 3.8 and older: pytest-dev/pytest-xdist#1386): the run would go on, but with the Ray
    modules starting clusters on every worker at once and module fixtures built once per worker. The
    test extra pins pytest below 9.2; this says so when another pytest is installed."""
    if config.getoption("dist", None) != "loadgroup" or not config.getoption("numprocesses", None):
        return
    import xdist

    if _version(pytest.__version__) >= (9, 2) and _version(xdist.__version__) <= (3, 8):
        raise pytest.UsageError(f"pytest {pytest.__version__} with pytest-xdist {xdist.__version__} ignores the "
                                "xdist_group marks this suite relies on (pytest-dev/pytest-xdist#1386): "
                                "python3 -m pip install -e \".[test]\" installs a pytest that keeps them")


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2] if part.isdigit())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Long tests first (stable otherwise): under ``pytest -n`` a long test drawn near the end of the
    queue runs alone while the other workers sit idle, and the whole run waits for it. Among them, a
    module that starts a Ray cluster of its own (``own_ray_cluster``) comes after the modules that share
    one (tests/support_ray.py), so the shared cluster starts once per test process."""
    items.sort(key=lambda item: (item.get_closest_marker("slow") is None,
                                 item.get_closest_marker("own_ray_cluster") is not None))


@pytest.fixture(autouse=True, scope="session")
def _state_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keep validation records and control tokens out of the developer's home."""
    os.environ["SCALEENV_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def fixture_domains() -> Path:
    return FIXTURE_DOMAINS


@pytest.fixture
def settings(tmp_path: Path) -> HostSettings:
    return HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token")


@pytest.fixture
async def host(settings: HostSettings) -> AsyncIterator[Host]:
    async with Host.running(settings, [FIXTURE_DOMAINS]) as running:
        yield running


@pytest.fixture
async def listeners(host: Host) -> AsyncIterator[Listeners]:
    async with serving(host) as urls:
        yield urls


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLM]:
    """The loopback OpenAI-compatible LLM (tests/support_llm_server.py), one per test module."""
    with running_fake_llm() as fake:
        yield fake


@pytest.fixture
def fake(server: FakeLLM) -> Iterator[FakeLLM]:
    """The module's loopback LLM with no faults, hooks or log left by an earlier test."""
    server.reset()
    yield server
    server.reset()
