"""Python client of the control API, for the verifier, the eval clients and RL trainers.

One ``httpx.AsyncClient`` per ``ControlClient``, shared by every request (building one costs
tens of milliseconds). Methods mirror the operations of ``EpisodeRegistry`` (same names
where it has them) and return the control API's models, ``StateDiff`` and ``RewardReport``,
so code moves easily between the in-process host and a remote one. HTTP failures become the
project's exceptions in one place, ``raise_for_response`` (every status is pinned by
tests/unit/test_control_client.py). It must not import the serving side (Starlette,
uvicorn, the workers): a client runs where no host does; it shares only the models.

    async with ControlClient(control_url, token_file=path) as control:
        episodes = await control.create_episodes("tiny_library", count=64)
        batch = await control.rewards([e.id for e in episodes])
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.errors import (
    CapacityError,
    ControlAuthError,
    DomainVersionError,
    EnvironmentFaultError,
    EpisodeExpiredError,
    EpisodeFileError,
    EpisodeLostError,
    EpisodeNotFoundError,
    HarnessError,
    LimitExceededError,
    RequestTooLargeError,
    SnapshotNotFoundError,
    UsageError,
    WorkerLostFaultError,
)
from scaleenv_mcp.host.control_models import (
    CreateEpisodes,
    DomainInfo,
    DomainList,
    EpisodeInfo,
    EpisodeList,
    EpisodeSpec,
    FingerprintBody,
    RestoreBody,
    RewardBatch,
    RewardBatchRequest,
    RewardRequest,
    SnapshotBody,
    SnapshotRequest,
    TablesBody,
    TaskCard,
    TaskList,
    TraceBody,
)
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport
from scaleenv_mcp.tls import shared_ssl_context

__all__ = ["ControlClient", "lost_with_host", "raise_for_response"]


def raise_for_response(response: httpx.Response) -> None:
    """The one place a control-API HTTP failure becomes a project exception.

    Raises:
        ControlAuthError: 401 (token) or 403 (Host/Origin).
        EpisodeNotFoundError: 404 naming an episode (another 404 is a wrong URL: UsageError);
            EpisodeExpiredError for a keyed episode that expired.
        SnapshotNotFoundError: 404 naming a snapshot.
        EpisodeLostError: 410 (the episode was lost with its host).
        RequestTooLargeError: 413 (a body over the listener's limit).
        CapacityError, LimitExceededError: 429, told apart by the error code.
        EpisodeFileError, DomainVersionError: 400 refusing an imported episode file, by the error code.
        UsageError: any other 4xx.
        EnvironmentFaultError: 5xx.
    """
    status = response.status_code
    if status < 400:
        return
    try:
        error = response.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        code, message = "", response.text[:200] or response.reason_phrase
    if status in (401, 403):
        raise ControlAuthError(f"control API refused the request ({status}): {message}")
    if status == 404:
        found = {cls.code: cls for cls in (EpisodeNotFoundError, SnapshotNotFoundError, EpisodeExpiredError)}
        if code in found:
            raise found[code](message)
        raise UsageError(f"no such control endpoint: {response.request.method} {response.request.url.path} "
                         "(is the base URL the control listener?)")
    if status == 410:
        raise EpisodeLostError(message)
    if status == 413:
        raise RequestTooLargeError(message)
    if status == 429:
        raise (LimitExceededError if code == LimitExceededError.code else CapacityError)(message)
    if status < 500:
        refused = {cls.code: cls for cls in (EpisodeFileError, DomainVersionError)}
        raise refused.get(code, UsageError)(message)
    if status == 503 and code == WorkerLostFaultError.code:
        raise WorkerLostFaultError(message)
    raise EnvironmentFaultError(f"control API failed ({status}): {message}")


def _body(model: type[BaseModel], data: dict[str, Any]) -> Any:
    """A request body, checked here so a bad argument is a UsageError before anything is sent."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise UsageError(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


class ControlClient:
    """Async client of one host's control listener.

    Args:
        base_url: the control listener, e.g. ``http://127.0.0.1:8766``.
        token: the bearer token; or give ``token_file`` (the file ``scaleenv serve`` wrote).
        timeout: seconds per request (batched creation of 1,000 episodes takes a while).
        max_in_flight: requests on the wire at once; callers may gather thousands of calls,
            the rest wait here (httpx's pool slows down quadratically with its queue).
        transport: an httpx transport, for tests and custom networking.

    Raises:
        UsageError: neither token nor token_file given, or the file cannot be read.
    """

    def __init__(self, base_url: str, token: str | None = None, *, token_file: Path | str | None = None,
                 timeout: float = 120.0, max_in_flight: int = 32,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        if token is None:
            if token_file is None:
                raise UsageError("give the control token or token_file")
            try:
                token = Path(token_file).read_text().strip()
            except OSError as exc:
                raise UsageError(f"cannot read the control token file {token_file}: {exc.strerror}") from None
        self.base_url = base_url.rstrip("/")
        self._in_flight = asyncio.Semaphore(max_in_flight)
        self._http = httpx.AsyncClient(base_url=self.base_url, timeout=timeout, transport=transport,
                                       headers={"Authorization": f"Bearer {token}"}, verify=shared_ssl_context())

    async def __aenter__(self) -> ControlClient:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, method: str, path: str, *, body: BaseModel | None = None,
                    params: Sequence[tuple[str, str]] | None = None, file: bytes | None = None) -> httpx.Response:
        content: str | bytes | None = body.model_dump_json(exclude_none=True) if body is not None else file
        headers = {"Content-Type": "application/json" if file is None else "application/zip"} \
            if content is not None else None
        try:
            async with self._in_flight:
                response = await self._http.request(method, path, content=content, headers=headers,
                                                    params=tuple(params) if params is not None else None)
        except httpx.TransportError as exc:
            raise EnvironmentFaultError(f"control API at {self.base_url} unreachable: {type(exc).__name__}") from None
        raise_for_response(response)
        return response

    @staticmethod
    def _episode(episode_id: str, suffix: str = "") -> str:
        return f"/episodes/{quote(episode_id, safe='')}{suffix}"

    # -- episodes ---------------------------------------------------------------------------
    async def create_episodes(self, domain: str, task_id: str | None = None, count: int = 1) -> list[EpisodeInfo]:
        """``count`` fresh episodes of one domain, from its seed or from a task; all or nothing."""
        body = _body(CreateEpisodes, {"domain": domain, "task_id": task_id, "count": count})
        return EpisodeList.model_validate_json((await self._send("POST", "/episodes", body=body)).content).episodes

    async def create_many(self, specs: Iterable[EpisodeSpec | dict[str, Any]]) -> list[EpisodeInfo]:
        """One episode per spec (``{"domain", "task_id"}``), in one request; all or nothing."""
        body = _body(CreateEpisodes, {"episodes": [s.model_dump() if isinstance(s, EpisodeSpec) else s for s in specs]})
        return EpisodeList.model_validate_json((await self._send("POST", "/episodes", body=body)).content).episodes

    async def list_episodes(self) -> list[EpisodeInfo]:
        return EpisodeList.model_validate_json((await self._send("GET", "/episodes")).content).episodes

    async def get_episode(self, episode_id: str) -> EpisodeInfo:
        return EpisodeInfo.model_validate_json((await self._send("GET", self._episode(episode_id))).content)

    async def close(self, episode_id: str) -> None:
        await self._send("DELETE", self._episode(episode_id))

    async def reset(self, episode_id: str) -> EpisodeInfo:
        """Back to the start state; the trace and the call count are cleared."""
        return EpisodeInfo.model_validate_json((await self._send("POST", self._episode(episode_id, "/reset"))).content)

    async def snapshot(self, episode_id: str, pinned: bool = False) -> str:
        """The id of a snapshot of the episode's current state; deleted with the episode unless ``pinned``."""
        response = await self._send("POST", self._episode(episode_id, "/snapshot"),
                                    body=_body(SnapshotRequest, {"pinned": pinned}))
        return SnapshotBody.model_validate_json(response.content).snapshot_id

    async def delete_snapshot(self, snapshot_id: str) -> None:
        await self._send("DELETE", f"/snapshots/{quote(snapshot_id, safe='')}")

    async def restore(self, episode_id: str, snapshot_id: str) -> EpisodeInfo:
        response = await self._send("POST", self._episode(episode_id, "/restore"),
                                    body=_body(RestoreBody, {"snapshot_id": snapshot_id}))
        return EpisodeInfo.model_validate_json(response.content)

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A new, independent episode with a copy of this one's state and trace."""
        return EpisodeInfo.model_validate_json((await self._send("POST", self._episode(episode_id, "/fork"))).content)

    # -- durable snapshots: files ------------------------------------------------------------
    async def export_episode(self, episode_id: str) -> bytes:
        """The episode as one self-describing file (its state, trace and call count), for ``import_episode``."""
        return (await self._send("GET", self._episode(episode_id, "/export"))).content

    async def export_snapshot(self, snapshot_id: str) -> bytes:
        """A snapshot as one file, in the format ``export_episode`` writes (with an empty trace)."""
        return (await self._send("GET", f"/snapshots/{quote(snapshot_id, safe='')}/export")).content

    async def import_episode(self, data: bytes, allow_other_version: bool = False) -> EpisodeInfo:
        """A new episode on that host from an exported file.

        Raises:
            UsageError (400: the file refused, message says why), RequestTooLargeError (413), CapacityError.
        """
        params = [("allow_other_version", "true")] if allow_other_version else None
        response = await self._send("POST", "/episodes/import", file=data, params=params)
        return EpisodeInfo.model_validate_json(response.content)

    # -- state ------------------------------------------------------------------------------
    async def fingerprint(self, episode_id: str) -> str:
        response = await self._send("GET", self._episode(episode_id, "/fingerprint"))
        return FingerprintBody.model_validate_json(response.content).fingerprint

    async def tables(self, episode_id: str, names: Sequence[str] | None = None) -> dict[str, Any]:
        """Canonical dump, table -> {columns, rows}; all tables unless ``names`` are given."""
        params = [("table", name) for name in names or ()]
        response = await self._send("GET", self._episode(episode_id, "/tables"), params=params)
        return TablesBody.model_validate_json(response.content).tables

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff:
        """Diff from the start state, or from a snapshot id or another episode id (``against``)."""
        params = [("against", against)] if against is not None else None
        return StateDiff.model_validate_json((await self._send("GET", self._episode(episode_id, "/diff"),
                                                               params=params)).content)

    async def reward(self, episode_id: str, messages: Sequence[str] | None = None) -> RewardReport:
        """The episode's reward; pass the agent's ``messages`` to the user when the task has communicate facts."""
        if messages is None:
            return RewardReport.model_validate_json((await self._send("GET", self._episode(episode_id, "/reward"))).content)
        body = _body(RewardRequest, {"messages": list(messages)})
        return RewardReport.model_validate_json((await self._send("POST", self._episode(episode_id, "/reward"),
                                                                  body=body)).content)

    async def rewards(self, episode_ids: Sequence[str]) -> RewardBatch:
        """Rewards of many episodes in one request; one failing episode is an entry in ``errors``."""
        body = _body(RewardBatchRequest, {"episode_ids": list(episode_ids)})
        return RewardBatch.model_validate_json((await self._send("POST", "/rewards", body=body)).content)

    async def trace(self, episode_id: str) -> list[TraceRecord]:
        return TraceBody.model_validate_json((await self._send("GET", self._episode(episode_id, "/trace"))).content).trace

    async def keyed_episode(self, domain: str, key: str) -> EpisodeInfo:
        """The episode a key of ``/mcp/{domain}/s/{key}`` holds (to score it, snapshot it...).

        Raises:
            EpisodeExpiredError: its episode expired or was closed. EpisodeNotFoundError: never used.
        """
        response = await self._send("GET", f"/keys/{quote(domain, safe='')}/{quote(key, safe='')}")
        return EpisodeInfo.model_validate_json(response.content)

    async def tasks(self, domain: str, split: str | None = None) -> list[TaskCard]:
        """A domain's tasks as a harness runs them (the user's side and the reference actions), by id."""
        params = [("split", split)] if split else None
        response = await self._send("GET", f"/domains/{quote(domain, safe='')}/tasks", params=params)
        return TaskList.model_validate_json(response.content).tasks

    async def domains(self) -> list[DomainInfo]:
        return DomainList.model_validate_json((await self._send("GET", "/domains")).content).domains


async def lost_with_host(control: ControlClient, episode_id: str) -> EpisodeLostError | None:
    """After an episode's agent connection failed: the control API's ``episode_lost`` error when the
    reason is that its host died (a host actor, or the node under it: docs/cluster.md), which says
    more than the broken connection or the call that got no answer; else None."""
    try:
        await control.get_episode(episode_id)
    except EpisodeLostError as lost:
        return lost
    except HarnessError:
        return None
    return None


if TYPE_CHECKING:
    from scaleenv_mcp.host.episode_control import EpisodeControl

    def _offers_episode_control(client: ControlClient) -> EpisodeControl:  # held to the Protocol by the type checker
        return client
