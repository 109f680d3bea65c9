"""The public proxy's connections to an actor (scaleenv_mcp/cluster/upstream.py), against a real HTTP/1.1
server on loopback that counts its connections and can drop idle ones as a keep-alive timeout would."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import h11
import pytest

from scaleenv_mcp.cluster.upstream import Upstream, UpstreamError

pytestmark = pytest.mark.anyio


class ActorStandIn:
    """Answers ``POST /echo`` (the body back, as JSON), ``GET /stream`` (two chunked events, the second
    once ``release`` is set); after each answer it closes the connection if ``drop_idle`` is set, without
    saying so in the answer (as a keep-alive timeout does, later)."""

    def __init__(self) -> None:
        self.connections = 0
        self.drop_idle = False
        self.close_unanswered = False  # close instead of answering a connection's second request
        self.answered: list[str] = []
        self.break_off = False  # announce a body, send half of it, close
        self.release = asyncio.Event()
        self.server: asyncio.Server | None = None

    @property
    def base(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        http = h11.Connection(h11.SERVER)
        served = 0
        try:
            while True:
                request, body = None, b""
                while True:
                    event = http.next_event()
                    if event is h11.NEED_DATA:
                        if not (data := await reader.read(65536)):
                            return
                        http.receive_data(data)
                    elif isinstance(event, h11.Request):
                        request = event
                    elif isinstance(event, h11.Data):
                        body += event.data
                    elif isinstance(event, h11.EndOfMessage):
                        break
                assert request is not None
                if self.close_unanswered and served:
                    return
                served += 1
                self.answered.append(body.decode())
                if self.break_off:
                    writer.write(http.send(h11.Response(status_code=200, headers=[("content-length", "100")])))
                    writer.write(http.send(h11.Data(data=b"x" * 50)))
                    await writer.drain()
                    return
                if request.target == b"/stream":
                    writer.write(http.send(h11.Response(status_code=200, headers=[
                        ("content-type", "text/event-stream"), ("transfer-encoding", "chunked")])))
                    writer.write(http.send(h11.Data(data=b"data: one\n\n")))
                    await writer.drain()
                    await self.release.wait()
                    writer.write(http.send(h11.Data(data=b"data: two\n\n")) + http.send(h11.EndOfMessage()))
                else:
                    answer = json.dumps({"got": body.decode(), "target": request.target.decode()}).encode()
                    writer.write(http.send(h11.Response(status_code=200, headers=[
                        ("content-type", "application/json"), ("content-length", str(len(answer)))])))
                    writer.write(http.send(h11.Data(data=answer)) + http.send(h11.EndOfMessage()))
                await writer.drain()
                if self.drop_idle:
                    return
                http.start_next_cycle()
        except (ConnectionError, h11.ProtocolError):
            return
        finally:
            writer.close()


@pytest.fixture
async def actor() -> AsyncIterator[ActorStandIn]:
    stand_in = ActorStandIn()
    stand_in.server = await asyncio.start_server(stand_in.serve, "127.0.0.1", 0)
    async with stand_in.server:
        yield stand_in


async def _echo(upstream: Upstream, body: str, target: str = "/echo") -> dict[str, str]:
    answer = await upstream.request("POST", target, [("content-type", "application/json")], body.encode())
    assert answer.status == 200
    return json.loads(await answer.read())


async def test_requests_one_after_another_share_one_connection(actor: ActorStandIn):
    upstream = Upstream(actor.base)
    for index in range(5):
        assert await _echo(upstream, f"call {index}", f"/echo?n={index}") == {"got": f"call {index}", "target": f"/echo?n={index}"}
    assert actor.connections == 1
    upstream.close()


async def test_requests_at_once_open_one_connection_each_and_keep_them_for_the_next(actor: ActorStandIn):
    upstream = Upstream(actor.base)
    first = await asyncio.gather(*(_echo(upstream, str(i)) for i in range(10)))
    assert [answer["got"] for answer in first] == [str(i) for i in range(10)]
    opened = actor.connections
    assert 1 <= opened <= 10
    await asyncio.gather(*(_echo(upstream, str(i)) for i in range(opened)))
    assert actor.connections == opened  # every one came back to the idle stack and was used again
    upstream.close()


async def test_a_connection_the_actor_dropped_while_idle_is_replaced_without_an_error(actor: ActorStandIn):
    upstream = Upstream(actor.base)
    actor.drop_idle = True
    assert (await _echo(upstream, "before"))["got"] == "before"
    await asyncio.sleep(0.05)  # the actor's close reaches us while the connection is idle
    assert (await _echo(upstream, "after"))["got"] == "after"
    assert actor.connections == 2
    upstream.close()


async def test_a_kept_connection_closed_just_as_it_was_taken_sends_the_request_again_once(actor: ActorStandIn):
    """The race a keep-alive timeout makes: the actor closes the connection as the request leaves on it.
    The actor never read it, so it goes again on a new connection, and is answered once."""
    upstream = Upstream(actor.base)
    assert (await _echo(upstream, "first"))["got"] == "first"
    actor.close_unanswered = True
    assert (await _echo(upstream, "second"))["got"] == "second"
    assert actor.connections == 2 and actor.answered == ["first", "second"]
    upstream.close()


async def test_a_stream_comes_piece_by_piece_and_one_left_early_is_closed_not_reused(actor: ActorStandIn):
    upstream = Upstream(actor.base)
    answer = await upstream.request("GET", "/stream", [], b"")
    assert dict(answer.headers)["content-type"] == "text/event-stream"
    pieces = answer.chunks()
    assert await pieces.__anext__() == b"data: one\n\n"  # before the actor has sent the rest
    actor.release.set()
    assert [piece async for piece in pieces] == [b"data: two\n\n"]
    assert (await _echo(upstream, "reused"))["got"] == "reused"
    assert actor.connections == 1  # read to its end: the connection came back

    actor.release.clear()
    left = await upstream.request("GET", "/stream", [], b"")
    assert await left.chunks().__anext__() == b"data: one\n\n"
    await left.aclose()
    await left.aclose()  # twice is once
    assert (await _echo(upstream, "fresh"))["got"] == "fresh"
    assert actor.connections == 2  # the half-read one was closed, not given to the next request
    upstream.close()


async def test_an_actor_nobody_listens_for_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]  # closed again below: nothing listens there
    with pytest.raises(UpstreamError, match="cannot connect"):
        await Upstream(f"http://127.0.0.1:{port}").request("POST", "/mcp", [], b"{}")


def test_only_a_plain_http_listener_address_is_taken():
    with pytest.raises(ValueError, match="not an agent listener address"):
        Upstream("https://10.0.0.3")


async def test_an_answer_broken_off_midway_is_an_upstream_error_and_its_connection_is_not_reused(actor: ActorStandIn):
    upstream = Upstream(actor.base)
    actor.break_off = True
    answer = await upstream.request("POST", "/echo", [], b"{}")
    with pytest.raises(UpstreamError, match="broke its answer off"):
        await answer.read()
    actor.break_off = False
    assert (await _echo(upstream, "next"))["got"] == "next"
    assert actor.connections == 2
    upstream.close()
