"""ControlClient's one translation point: every error the control app can answer comes back
as a project exception. The control app's own error handler produces the responses; an
httpx transport is the seam (nothing of ours is patched)."""

from __future__ import annotations

import inspect

import httpx
import pytest

import scaleenv_mcp.errors as errors
from scaleenv_mcp.control_client import ControlClient, raise_for_response
from scaleenv_mcp.errors import (
    CapacityError,
    ControlAuthError,
    EnvironmentFaultError,
    EpisodeNotFoundError,
    LimitExceededError,
    RequestTooLargeError,
    ScaleEnvError,
    SnapshotNotFoundError,
    UsageError,
)
from scaleenv_mcp.host.control import error_response

pytestmark = pytest.mark.anyio

# What the control app says for each error class, and what the client must raise for it.
ROUND_TRIP = {SnapshotNotFoundError: 404, errors.EpisodeExpiredError: 404, EpisodeNotFoundError: 404, CapacityError: 429, LimitExceededError: 429,
              RequestTooLargeError: 413, errors.DomainVersionError: 400, errors.EpisodeFileError: 400, UsageError: 400,
              EnvironmentFaultError: 500, errors.EpisodeLostError: 410, errors.WorkerLostFaultError: 503}


def _client(status: int, body: bytes, content_type: str = "application/json") -> ControlClient:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers={"content-type": content_type})

    return ControlClient("http://control.test", "token", transport=httpx.MockTransport(answer))


def _every_error() -> list[ScaleEnvError]:
    made: list[ScaleEnvError] = []
    for name in errors.__all__:
        cls = getattr(errors, name)
        if inspect.isclass(cls) and issubclass(cls, ScaleEnvError):
            made.append(cls("file", "reason") if cls is errors.DomainError else cls("something went wrong"))
    return made


@pytest.mark.parametrize("error", _every_error(), ids=lambda e: type(e).__name__)
async def test_every_error_the_control_app_answers_comes_back_typed(error: ScaleEnvError):
    response = error_response(error)
    async with _client(response.status_code, response.body) as client:
        with pytest.raises(ScaleEnvError) as raised:
            await client.list_episodes()
    expected = next((cls for cls in type(error).__mro__ if cls in ROUND_TRIP), None)
    if expected is not None:
        assert response.status_code == ROUND_TRIP[expected]
        assert type(raised.value) is expected
        assert raised.value.message.endswith("something went wrong")
    else:  # other errors are usage problems on the wire; the client keeps the message
        assert response.status_code == 400 and type(raised.value) is UsageError


@pytest.mark.parametrize("status", [401, 403])
async def test_refusals_are_control_auth_errors(status: int):
    async with _client(status, b'{"error": {"code": "unauthorized", "message": "missing or wrong bearer token"}}') as client:
        with pytest.raises(ControlAuthError, match=f"{status}.*bearer token") as raised:
            await client.fingerprint("e1")
    assert raised.value.code == "unauthorized"
    assert "ControlAuthError" in errors.__all__ and "ControlAuthError" in errors.__doc__


@pytest.mark.parametrize(("status", "body", "expected"), [
    (404, b"Not Found", UsageError),  # a path the control app does not serve: wrong base URL
    (405, b"Method Not Allowed", UsageError),
    (413, b"", RequestTooLargeError),  # a UsageError
    (502, b"<html>bad gateway</html>", EnvironmentFaultError),
    (503, b'{"unexpected": true}', EnvironmentFaultError),
])
async def test_responses_not_shaped_by_the_control_app_still_map(status: int, body: bytes, expected: type):
    async with _client(status, body, "text/plain") as client:
        with pytest.raises(expected):
            await client.list_episodes()


async def test_transport_failure_is_an_environment_fault():
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with ControlClient("http://control.test", "t", transport=httpx.MockTransport(refuse)) as client:
        with pytest.raises(EnvironmentFaultError, match="unreachable"):
            await client.domains()


def test_success_is_not_an_error():
    raise_for_response(httpx.Response(204, request=httpx.Request("DELETE", "http://control.test/episodes/x")))


async def test_bad_arguments_are_usage_errors_before_anything_is_sent():
    sent: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    async with ControlClient("http://control.test", "t", transport=httpx.MockTransport(record)) as client:
        with pytest.raises(UsageError, match="count"):
            await client.create_episodes("tiny_library", count=0)
        with pytest.raises(UsageError, match="domain"):
            await client.create_many([{"task_id": "t1"}])
    assert sent == []
    with pytest.raises(UsageError, match="token"):
        ControlClient("http://control.test")


def test_public_surface_is_pinned():
    import scaleenv_mcp.control_client as module

    assert module.__all__ == ["ControlClient", "lost_with_host", "raise_for_response"]
    operations = {name for name, _ in inspect.getmembers(ControlClient, inspect.iscoroutinefunction)
                  if not name.startswith("_")}
    assert operations == {"aclose", "close", "create_episodes", "create_many", "delete_snapshot", "diff", "domains",
                          "export_episode", "export_snapshot", "import_episode", "fingerprint", "fork", "get_episode", "keyed_episode", "list_episodes", "reset", "restore", "reward",
                          "rewards", "snapshot", "tables", "tasks", "trace"}
