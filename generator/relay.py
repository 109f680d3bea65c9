"""``scaleenv relay``: an OpenAI-compatible endpoint answered through files, by whoever reads them.

No model reachable from a machine can still answer: the relay takes each chat-completions
request, writes it to ``D/pending/<id>.json`` (messages, tools, tool_choice,
response_format, limits, and the role and stage the generator names in its request
headers), and answers once ``D/answers/<id>.json`` appears. The answer file is the reply's
text, taken verbatim (JSON or not, whole or not): the client parses, repairs, continues and
retries exactly as it would against any server. Like a server, the relay cuts a reply at
``max_tokens`` (finish_reason ``length``) and counts usage from the text
(``scaleenv_mcp.generator.cassette.count_tokens``); a forced function call is answered as a tool call
whose arguments are the text. A request is never answered twice from two answer files: the
id is the request's key (``<seq>-<key[:12]>``), so a client that timed out and sends the
same request again waits on the same file, and an answer written late serves the retry.

``--record DIR`` keeps every reply in a cassette (``scaleenv_mcp.generator.cassette``) as it is sent, for
``scaleenv generate --replay DIR``. Loopback only: the relay binds 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, Field

from scaleenv_mcp.generator.cassette import (
    Cassette,
    CassetteEntry,
    CassetteMeta,
    count_tokens,
    request_key,
    request_marker,
)
from scaleenv_mcp.generator.store import atomic_write_text

__all__ = ["Relay", "RelaySettings", "app", "main", "running_relay"]

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)

_ROLE = re.compile(r"^ROLE: (\S+)")


class RelaySettings(BaseModel):
    """Where the relay keeps its files and how long one request may wait."""

    folder: Path = Field(description="D: pending/, answers/, done/ and relay.log.jsonl live here.")
    record: Path | None = Field(default=None, description="A cassette folder to record every reply in.")
    answered_by: str = Field(default="", description="What answers, named as what it is (kept in the cassette).")
    wait: float | None = Field(default=None, description="Seconds a request waits before HTTP 504 (None: "
                               "until the client gives up, i.e. the client's own timeout).")
    poll: float = Field(default=0.2, description="Seconds between looks for an answer file.")


class Relay:
    """The relay's state: ids by request key, the cassette, the log."""

    def __init__(self, settings: RelaySettings) -> None:
        self.settings = settings
        self.folder = Path(settings.folder)
        for name in ("pending", "answers", "done"):
            (self.folder / name).mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.ids: dict[str, str] = {}
        for path in sorted([*(self.folder / "pending").glob("*.json"), *(self.folder / "done").glob("*.json")]):
            with contextlib.suppress(OSError, ValueError, KeyError):
                self.ids.setdefault(json.loads(path.read_text())["key"], path.stem)
        self._seq = len(self.ids)
        self._turn: dict[str, int] = {}  # per request id: the newest waiting handler (a retry supersedes a stale one)
        self.cassette: Cassette | None = None

    def _cassette(self, model: str) -> Cassette | None:
        if self.settings.record is None:
            return None
        if self.cassette is None:
            self.cassette = Cassette.create(self.settings.record, CassetteMeta(
                model=model, answered_by=self.settings.answered_by))
        return self.cassette

    def _log(self, **event: Any) -> None:
        line = json.dumps({"at": datetime.datetime.now().isoformat(timespec="seconds"), **event}, sort_keys=True)
        with self._lock, open(self.folder / "relay.log.jsonl", "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def held(self, body: dict[str, Any]) -> CassetteEntry | None:
        """The recorded reply to this request when recording into a cassette that holds it."""
        if self.settings.record is None or not (Path(self.settings.record) / "cassette.json").exists():
            return None
        return self._cassette(str(body.get("model") or "")).get(request_key(body))  # type: ignore[union-attr]

    def pending(self, body: dict[str, Any], role: str, stage: str) -> tuple[str, str]:
        """The request's id (the same for the same request), its pending file written once."""
        key = request_key(body)
        with self._lock:
            known = self.ids.get(key)
            if known is None:
                self._seq += 1
                known = self.ids[key] = f"{self._seq:05d}-{key[:12]}"
        path = self.folder / "pending" / f"{known}.json"
        if not path.exists() and not (self.folder / "done" / f"{known}.json").exists():
            request = {"id": known, "seq": int(known.split("-")[0]), "key": key, "role": role, "stage": stage,
                       "marker": request_marker(body.get("messages", [])), "model": body.get("model"),
                       "received": datetime.datetime.now().isoformat(timespec="seconds"),
                       **{name: body.get(name) for name in ("max_tokens", "temperature", "seed", "response_format",
                                                            "tools", "tool_choice", "messages")}}
            atomic_write_text(path, json.dumps(request, indent=1, ensure_ascii=False) + "\n")
        return known, key

    async def answer_text(self, request_id: str, disconnected: Any) -> str | None:
        """The answer file's text once it is there and stable; None when the client left, the wait ran
        out, or the same request came again (the client gave up on this one and retried: the retry
        gets the answer, so one request is answered once)."""
        path = self.folder / "answers" / f"{request_id}.json"
        started, last_size = time.monotonic(), -1
        with self._lock:
            turn = self._turn[request_id] = self._turn.get(request_id, 0) + 1
        while True:
            if self._turn[request_id] != turn:
                return None
            if path.exists():
                size = path.stat().st_size
                if size == last_size:
                    if await disconnected():  # the client gave up meanwhile: its retry gets the answer
                        return None
                    return path.read_bytes().decode("utf-8", errors="replace")
                last_size = size
            elif await disconnected():
                return None
            if self.settings.wait is not None and time.monotonic() - started > self.settings.wait:
                return None
            await asyncio.sleep(self.settings.poll)

    def reply(self, body: dict[str, Any], key: str, request_id: str, role: str, stage: str, text: str) -> dict[str, Any]:
        """The chat completion for ``text``, cut at max_tokens like a server's, recorded when recording."""
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        finish = "stop"
        if max_tokens and count_tokens(text) > int(max_tokens):
            text, finish = text[: int(max_tokens) * 4], "length"
        prompt_text = "".join(str(m.get("content") or "") for m in body.get("messages", []))
        prompt_text += json.dumps(body.get("response_format") or body.get("tools") or "")
        prompt_tokens, completion_tokens = count_tokens(prompt_text), count_tokens(text)
        forced = isinstance(body.get("tool_choice"), dict)
        finish = "tool_calls" if forced and finish == "stop" else finish
        cassette = self._cassette(str(body.get("model") or ""))
        if cassette is not None:
            cassette.add(CassetteEntry(key=key, role=role, stage=stage, marker=request_marker(body.get("messages", [])),
                                       text="" if forced else text, finish_reason=finish,
                                       tool_arguments=text if forced else None, prompt_tokens=prompt_tokens,
                                       completion_tokens=completion_tokens))
        with contextlib.suppress(OSError):
            (self.folder / "pending" / f"{request_id}.json").replace(self.folder / "done" / f"{request_id}.json")
        self._log(id=request_id, role=role, stage=stage, event="answered", key=key, prompt_tokens=prompt_tokens,
                  completion_tokens=completion_tokens)
        return _completion(body, None if forced else text, text if forced else None, finish, prompt_tokens,
                           completion_tokens, request_id)

    def build_app(self) -> Any:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse
        from starlette.routing import Route

        async def completions(request: Request) -> JSONResponse:
            try:
                body = await request.json()
                messages = body["messages"]
            except (ValueError, KeyError, TypeError):
                return _error(400, "the body must be a chat-completions JSON object with messages")
            system = next((str(m.get("content") or "") for m in messages if m.get("role") == "system"), "")
            found = _ROLE.match(system)
            role = request.headers.get("x-scaleenv-role") or (found.group(1) if found else "unknown")
            stage = request.headers.get("x-scaleenv-stage", "")
            held = self.held(body)
            if held is not None:  # a resumed recording: what the cassette holds is answered from it
                self._log(id="cassette", role=role, stage=stage, event="from_cassette", key=held.key)
                return JSONResponse(_completion(body, held.text or None, held.tool_arguments, held.finish_reason,
                                                held.prompt_tokens, held.completion_tokens, held.key[:12]))
            request_id, key = self.pending(body, role, stage)
            self._log(id=request_id, role=role, stage=stage, event="received", key=key)
            text = await self.answer_text(request_id, request.is_disconnected)
            if text is None:
                self._log(id=request_id, role=role, stage=stage, event="unanswered", key=key)
                return _error(504, f"no answer file answers/{request_id}.json within the relay's wait")
            return JSONResponse(self.reply(body, key, request_id, role, stage, text))

        async def models(request: Request) -> JSONResponse:
            return JSONResponse({"object": "list", "data": [{"id": "relay", "object": "model", "owned_by": "relay"}]})

        return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"]),
                                 Route("/v1/models", models, methods=["GET"])])


def _completion(body: dict[str, Any], text: str | None, arguments: str | None, finish: str, prompt_tokens: int,
                completion_tokens: int, request_id: str) -> dict[str, Any]:
    """A chat completion: ``text`` as the message, or ``arguments`` as the forced tool call's."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if arguments is not None:
        name = body["tool_choice"]["function"]["name"]
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{request_id}", "type": "function", "function": {"name": name, "arguments": arguments}}]}
    return {"id": f"chatcmpl-relay-{request_id}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "relay"), "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def _error(status: int, message: str) -> Any:
    from starlette.responses import JSONResponse

    return JSONResponse({"error": {"message": message, "type": "relay", "code": status}}, status_code=status)


@contextlib.contextmanager
def running_relay(settings: RelaySettings, port: int = 0) -> Iterator[tuple[Relay, str]]:
    """Serve a relay on 127.0.0.1 in a background thread; yields it and its base URL (…/v1)."""
    import uvicorn

    relay = Relay(settings)
    server = uvicorn.Server(uvicorn.Config(relay.build_app(), host="127.0.0.1", port=port, log_level="warning",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise OSError(f"the relay could not listen on 127.0.0.1:{port}")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield relay, f"http://127.0.0.1:{bound}/v1"
    finally:
        server.should_exit = server.force_exit = True
        thread.join(timeout=5)


@app.command()
def relay(
    folder: Annotated[Path, typer.Option("--dir", help="Folder of pending/, answers/, done/ and relay.log.jsonl.")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port, printed).")] = 8765,
    record: Annotated[Path | None, typer.Option(help="Record every reply in this cassette folder "
                                                     "(generator/recordings/<slug>/).")] = None,
    answered_by: Annotated[str, typer.Option(help="What answers, named as what it is (kept in the cassette).")] = "",
    wait: Annotated[float | None, typer.Option(help="Seconds a request waits for its answer file before HTTP 504 "
                                                    "(default: until the client's own timeout).")] = None,
) -> None:
    """Serve an OpenAI-compatible endpoint on 127.0.0.1 answered through files: each request is written to
    DIR/pending/<id>.json and answered with the text of DIR/answers/<id>.json, verbatim.
    Stop with Ctrl-C. Exit 2 usage, 3 the port could not be bound."""
    from scaleenv_mcp.console import fail
    from scaleenv_mcp.errors import UsageError

    try:
        if record is not None and not answered_by:
            raise UsageError("--record needs --answered-by: the cassette names what answered")
        with running_relay(RelaySettings(folder=folder, record=record, answered_by=answered_by, wait=wait),
                           port) as (_, base_url):
            typer.echo(f"relay at {base_url} (requests in {folder / 'pending'}, answers in {folder / 'answers'})",
                       err=True)
            with contextlib.suppress(KeyboardInterrupt):
                while True:
                    time.sleep(3600)
    except (UsageError, OSError) as error:
        fail(error)


def main(args: list[str]) -> None:
    """Entry point for ``scaleenv relay ARGS`` (the core CLI forwards its arguments here)."""
    from scaleenv_mcp.console import run_app

    run_app(app, "scaleenv relay", args)
