"""Keep-alive HTTP/1.1 from the public proxy to one host actor's agent listener (``cluster.proxy``).

The proxy forwarded with httpx, whose pool (httpcore) looks at every pooled connection on every request,
with a ``poll(2)`` on each idle one to see whether it has expired: with 64 sessions calling at once
through one address the proxy spent 7-13 ms of CPU per call on that, 35-60 times the load generator's own
cost, and served 0.2x the calls/s of the actors reached directly (``scaleenv bench --only scaling``).
Here an actor's idle connections are a stack: a request takes the top one (or opens one), and gives it
back once its answer has been read to the end. HTTP/1.1 framing is h11's, the parser uvicorn and httpx
use; the agent listeners are plain HTTP on the cluster's network (docs/cluster.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import h11

__all__ = ["Answer", "Upstream", "UpstreamError"]

_READ = 65536


class UpstreamError(Exception):
    """The actor could not be reached, or broke the exchange off."""


class _ClosedBeforeAnswer(UpstreamError):
    """No answer at all: on a kept-alive connection, the actor had closed it (safe to send again)."""


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.http = h11.Connection(h11.CLIENT)
        self.answering = False  # a byte of the current answer has come

    def stale(self) -> bool:
        """Closed by the actor while idle (its keep-alive timeout, its end): not to be used again."""
        return self.reader.at_eof() or self.writer.is_closing()

    async def next_event(self) -> object:  # an h11 event, or h11.PAUSED
        while True:
            event = self.http.next_event()
            if event is not h11.NEED_DATA:
                return event
            data = await self.reader.read(_READ)
            if not data and not self.answering:
                raise _ClosedBeforeAnswer("the actor closed the connection before answering")
            self.answering = True
            self.http.receive_data(data)  # b"": the actor closed the connection (h11 says what that breaks)

    def close(self) -> None:
        self.writer.close()


@dataclass
class Answer:
    """An actor's answer: status and headers at once, the body as it comes (``chunks``) or whole (``read``)."""

    status: int
    headers: list[tuple[str, str]]
    _connection: _Connection
    _upstream: Upstream
    _ended: bool = False  # the connection was given back or closed: never twice

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, piece by piece (an SSE stream stays open as long as the actor keeps it)."""
        try:
            while True:
                try:
                    event = await self._connection.next_event()
                except (OSError, h11.ProtocolError) as error:  # the actor died or closed mid-answer
                    raise UpstreamError(f"the actor broke its answer off: {type(error).__name__}: {error}") from None
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    return
                else:
                    raise UpstreamError(f"the actor broke its answer off ({type(event).__name__})")
        finally:
            await self.aclose()

    async def read(self) -> bytes:
        return b"".join([chunk async for chunk in self.chunks()])

    async def aclose(self) -> None:
        """Give the connection back when the answer was read to its end, else close it."""
        if self._ended:
            return
        self._ended = True
        connection = self._connection
        if connection.http.their_state is h11.DONE and connection.http.our_state is h11.DONE:
            connection.http.start_next_cycle()
            self._upstream.release(connection)
        else:  # read only in part (the client left an SSE stream), or the actor closes after it
            connection.close()


class Upstream:
    """The connections to one actor's agent listener (``base``: ``http://host:port``)."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        if parts.scheme != "http" or parts.hostname is None or parts.port is None:
            raise ValueError(f"not an agent listener address: {base!r}")
        self.base, self._host, self._port = base, parts.hostname, parts.port
        self._authority = parts.netloc.encode()  # host:port, an IPv6 address in brackets
        self._idle: list[_Connection] = []
        self._closed = False

    async def request(self, method: str, target: str, headers: list[tuple[str, str]], body: bytes) -> Answer:
        """Send one request and wait for the answer's status and headers.

        A kept-alive connection the actor closed just as it was taken is given up and the request sent
        again on another: the actor closes only idle connections, so it never read the request.

        Raises:
            UpstreamError: the actor cannot be reached or broke the exchange off.
        """
        sent = [(b"host", self._authority), (b"content-length", str(len(body)).encode()),
                *((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers if k.lower() not in ("host", "content-length"))]
        while True:
            connection = self._take()
            reused = connection is not None
            if connection is None:
                connection = await self._open()
            try:
                return await self._exchange(connection, h11.Request(method=method, target=target, headers=sent), body)
            except (OSError, h11.ProtocolError, UpstreamError) as error:
                connection.close()
                if not (reused and isinstance(error, (_ClosedBeforeAnswer, ConnectionResetError, BrokenPipeError))):
                    raise UpstreamError(f"{type(error).__name__}: {error}") from None
            except BaseException:  # cancelled (the client left): the connection is mid-exchange
                connection.close()
                raise

    async def _exchange(self, connection: _Connection, request: h11.Request, body: bytes) -> Answer:
        connection.answering = False
        connection.writer.write(connection.http.send(request) + (connection.http.send(h11.Data(data=body)) if body else b"")
                                + connection.http.send(h11.EndOfMessage()))
        await connection.writer.drain()
        while True:
            event = await connection.next_event()
            if isinstance(event, h11.Response):
                headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in event.headers]
                return Answer(event.status_code, headers, connection, self)
            if not isinstance(event, h11.InformationalResponse):
                raise UpstreamError(f"unexpected {type(event).__name__} before the answer")

    def _take(self) -> _Connection | None:
        """The most recently given back idle connection the actor has not closed, if any."""
        while self._idle:
            connection = self._idle.pop()
            if not connection.stale():
                return connection
            connection.close()
        return None

    async def _open(self) -> _Connection:
        try:
            reader, writer = await asyncio.open_connection(self._host, self._port, limit=_READ)
        except OSError as error:
            raise UpstreamError(f"cannot connect to {self.base}: {error}") from None
        return _Connection(reader, writer)

    def release(self, connection: _Connection) -> None:
        if self._closed or connection.stale():
            connection.close()
        else:
            self._idle.append(connection)

    def close(self) -> None:
        """Close the idle connections; those in use close when their answers end."""
        self._closed = True
        for connection in self._idle:
            connection.close()
        self._idle.clear()
