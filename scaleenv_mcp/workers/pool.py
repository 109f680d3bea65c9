"""Host side of the worker processes: spawn, route, enforce the wall-time budget, kill, respawn.

Built for throughput (#25 item 3). Each worker has one persistent reader on the event loop (no reader callback and
timer added and removed per call): requests are written as they come, several can be in flight on one worker, and
each reply resolves the oldest waiting future, since a worker answers its requests one at a time and in order.
Writes never block the loop (what the socket does not take is written when it is writable), so large payloads both
ways cannot deadlock. Messages are plain tuples pickled with protocol 5 (``workers.protocol``).

Budgets: the request at the head of a worker's queue is the one it is running; its deadline is set when it becomes
the head. One ``Watchdog`` per pool holds a single timer, armed at the earliest deadline of all heads. A head past
its budget, or a worker that dies, makes the worker ``lost``: it is killed and replaced by a fresh process, the
head's caller gets ``WorkerLostError``, and the requests queued behind it (which the worker never started) are held
back while the fresh worker is brought up: the domains it had loaded are loaded again and ``recover`` (the episode
registry: every episode on it rebuilt by replay) runs first; then the held requests are sent, in their order. Each
request also carries its budget, so the worker stops itself past it, and it dies with this process whatever kills it
(``workers.lifetime``). Stalls (#29 item 5): a head that has run ``stall_after`` seconds calls ``on_stall``, which
may move what waits behind it to another worker (``hand_over``; the registry's ``episodes.relocation``).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import socket
import subprocess
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from scaleenv_mcp.workers.launcher import WorkerProcess, start_worker
from scaleenv_mcp.workers.protocol import OK, DomainBundle, Frames, frame
from scaleenv_mcp.workers.requests import DomainLoadError, Request, WorkerLostError
from scaleenv_mcp.workers.watchdog import Watchdog

__all__ = ["DomainLoadError", "Watchdog", "WorkerHandle", "WorkerLostError", "WorkerPool"]

_READ_SIZE = 1 << 18
_RECOVERY_ATTEMPTS = 3
# The worker whose recovery the current task works for (tasks it starts inherit it): its requests
# go ahead of those held back.
_RECOVERING: contextvars.ContextVar[WorkerHandle | None] = contextvars.ContextVar("scaleenv_recovering", default=None)


class WorkerHandle:
    """One worker process, the socket to it, and the requests in flight on it."""

    def __init__(self, index: int, memory_limit: int | None, max_pages: int | None,
                 env: dict[str, str] | None = None, max_result_bytes: int | None = None,
                 check_outputs: str = "always", watchdog: Watchdog | None = None,
                 recover: Callable[[WorkerHandle], Awaitable[None]] | None = None,
                 stall_after: float | None = None) -> None:
        self.index = index
        self.memory_limit = memory_limit
        self.max_pages = max_pages
        self.max_result_bytes = max_result_bytes
        self.check_outputs = check_outputs
        self.env = env
        # For callers that need a run of requests to themselves (validation: load, then a case).
        # Episode calls do not take it: they are queued on the worker as they come.
        self.lock = asyncio.Lock()
        self.episodes: set[str] = set()
        self.domains: set[str] = set()
        self.bundles: dict[str, DomainBundle] = {}  # loaded ones, to load again on a fresh worker
        self.generation = 0
        self.recover = recover  # run on a fresh worker before the requests held back (episodes' replay)
        self.watchdog = watchdog or Watchdog()
        self.watchdog.handles.append(self)
        self.deadline: float | None = None  # of the request the worker is running, in loop time
        # Stalls (#29 item 5): when the running request has run ``stall_after`` seconds, ``on_stall``
        # (the episode registry) may move the episodes queued behind it to another worker.
        self.stall_after = stall_after
        self.on_stall: Callable[[WorkerHandle], None] | None = None
        self.stall_at: float | None = None
        self.stalled = False  # the running request is past ``stall_after``: new requests are looked at too
        self._stall_soon = False
        self.loop: asyncio.AbstractEventLoop | None = None
        self.load_timeout: float | None = None
        self._inflight: deque[Request] = deque()
        self._held: deque[Request] | None = None  # not None while a fresh worker is being recovered
        self._recovery: asyncio.Task[None] | None = None
        self._loading: dict[str, asyncio.Future[Any]] = {}
        self._reload: list[DomainBundle] = []
        self._stopped = False
        self._spawn()

    # -- the process ------------------------------------------------------------------------
    def _spawn(self) -> None:
        parent, child = socket.socketpair()
        options = [str(self.memory_limit or 0), str(self.max_pages or 0), str(self.max_result_bytes or 0),
                   self.check_outputs]
        self.process: WorkerProcess = start_worker(child.fileno(), options, {**os.environ, **(self.env or {})})
        child.close()
        parent.setblocking(False)
        self.sock = parent
        self._frames = Frames()
        self._out = bytearray()  # written when the socket is writable again
        self.domains = set()
        self.generation += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None  # attached at the first request
        else:
            self._attach(loop)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        if self.loop is not None and self.loop is not loop:
            self._detach()
        self.loop = loop
        loop.add_reader(self.sock.fileno(), self._on_readable)
        if self._out:
            loop.add_writer(self.sock.fileno(), self._on_writable)

    def _detach(self) -> None:
        loop, self.loop = self.loop, None
        if loop is not None and not loop.is_closed():
            loop.remove_reader(self.sock.fileno())
            loop.remove_writer(self.sock.fileno())

    def _kill(self) -> None:
        self._detach()
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.sock.close()

    def replace(self) -> None:
        """Kill the process and start a fresh one, as when it is lost (its state is gone)."""
        self._lose("worker replaced")

    def stop(self) -> None:
        self._stopped = True
        if self._recovery is not None:
            self._recovery.cancel()
        self._kill()
        stopped = WorkerLostError("worker stopped")
        for request in [*self._inflight, *(self._held or ())]:
            if not request.future.done():
                request.future.set_exception(stopped)
                request.future.exception()  # retrieved: nobody may be waiting any more
        self._inflight.clear()
        self._held = None
        self.deadline = self.stall_at = None
        self.stalled = False
        if self in self.watchdog.handles:
            self.watchdog.handles.remove(self)

    # -- requests ---------------------------------------------------------------------------
    def submit(self, message: tuple[Any, ...], timeout: float | None) -> asyncio.Future[Any]:
        """Queue one request; the future resolves to its reply ``(status, payload)`` or raises
        ``WorkerLostError``. Replies come in the order the requests were sent."""
        loop = asyncio.get_running_loop()
        if loop is not self.loop:
            self._attach(loop)
        future = loop.create_future()
        held = self._held
        if held is not None:
            if _RECOVERING.get() is not self:
                held.append(Request(future, frame((timeout, message)), timeout, False, message))
                return future
            self._send(Request(future, frame((timeout, message)), timeout, True, message))
            return future
        self._send(Request(future, frame((timeout, message)), timeout, False, message))
        if self.stalled and not self._stall_soon:  # queued behind a stalled request: move it, once this turn ends
            self._stall_soon = True
            loop.call_soon(self._moving)
        return future

    def send_ahead(self, message: tuple[Any, ...], timeout: float | None) -> asyncio.Future[Any]:
        """Queue a request that belongs to a recovery (an episode moved here is opened): if this worker
        is lost before answering it, it fails and is not sent again, its own recovery takes over."""
        future = asyncio.get_running_loop().create_future()
        self._send(Request(future, frame((timeout, message)), timeout, True, message))
        return future

    @property
    def healthy(self) -> bool:
        """Running nothing past ``stall_after``, not being recovered, not stopped: episodes may move here."""
        return not self.stalled and self._held is None and not self._stopped and self.loop is not None

    @property
    def running(self) -> tuple[Any, ...]:
        """The message of the request the worker runs now (empty when it is idle)."""
        return self._inflight[0].message if self._inflight else ()

    def queued(self) -> list[Request]:
        """The requests waiting behind the one the worker runs (none of them started), in order."""
        return [r for r in list(self._inflight)[1:] if not r.moved]

    def hand_over(self, requests: list[Request], to: WorkerHandle) -> None:
        """Move ``requests`` (queued here, not started) to the end of ``to``'s queue, in their order.

        They are already written to this worker's socket: each leaves a place-holder whose reply is
        dropped, so replies still match requests. Nothing of theirs reaches an episode's state here
        that counts: the caller moves their episode, and closes its copy here behind them."""
        moving = {id(r) for r in requests}
        self._inflight = deque(r.placeholder() if id(r) in moving else r for r in self._inflight)
        for request in requests:
            to._send(request)

    def stall(self) -> None:
        """The watchdog's verdict: the head has run ``stall_after`` seconds (unless its reply is here)."""
        self._read(drain=True)
        if self.stall_at is not None and self.stall_at <= self.loop.time() + 0.001:  # type: ignore[union-attr]
            self.stall_at, self.stalled = None, True
            self._moving()

    def _moving(self) -> None:
        self._stall_soon = False
        if self.stalled and self.on_stall is not None and self._held is None:
            self.on_stall(self)

    async def request(self, message: tuple[Any, ...], timeout: float | None) -> tuple[str, Any]:
        """Send one request and await its reply (``submit``, awaited)."""
        reply: tuple[str, Any] = await self.submit(message, timeout)
        return reply

    def _send(self, request: Request) -> None:
        inflight = self._inflight
        inflight.append(request)
        if len(inflight) == 1:
            self._set_deadline(request)
        self._write(request.data)

    def _set_deadline(self, request: Request) -> None:
        """``request`` became the head (the worker runs it now): its deadline, and when it counts as stalled."""
        self.stalled = False
        now = self.loop.time()  # type: ignore[union-attr]
        if request.timeout:
            self.deadline = now + request.timeout
            self.watchdog.arm(self.loop, self.deadline)  # type: ignore[arg-type]
        else:
            self.deadline = None
        stall_after = self.stall_after
        if stall_after and self.on_stall is not None and (not request.timeout or request.timeout > stall_after):
            self.stall_at = now + stall_after
            self.watchdog.arm(self.loop, self.stall_at)  # type: ignore[arg-type]
        else:
            self.stall_at = None

    def _write(self, data: bytes) -> None:
        if self._out:
            self._out += data
            return
        try:
            sent = self.sock.send(data)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError as exc:  # the worker is gone: its reader sees that, or this does
            self.loop.call_soon(self._lose_if, self.generation, f"worker pipe broken: {exc}")  # type: ignore[union-attr]
            return
        if sent < len(data):
            self._out += memoryview(data)[sent:]
            self.loop.add_writer(self.sock.fileno(), self._on_writable)  # type: ignore[union-attr]

    def _on_writable(self) -> None:
        try:
            sent = self.sock.send(self._out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self.loop.remove_writer(self.sock.fileno())  # type: ignore[union-attr]
            self.loop.call_soon(self._lose_if, self.generation, f"worker pipe broken: {exc}")  # type: ignore[union-attr]
            return
        del self._out[:sent]
        if not self._out:
            self.loop.remove_writer(self.sock.fileno())  # type: ignore[union-attr]

    def _on_readable(self) -> None:
        self._read(drain=False)

    def _read(self, drain: bool) -> None:
        """Read what has come (once, or until nothing is left) and resolve the replies it completes."""
        generation = self.generation
        while True:
            try:
                chunk = self.sock.recv(_READ_SIZE)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                self._lose(f"worker died: {type(exc).__name__}")
                return
            if not chunk:
                self._lose("worker died: EOFError")
                return
            for reply in self._frames.feed(chunk):
                if self.generation != generation or not self._inflight:
                    return  # a reply nobody waits for (a bug of ours): never resolve the wrong request
                request = self._inflight.popleft()
                if not request.future.done():
                    request.future.set_result(reply)
                if self._inflight:
                    self._set_deadline(self._inflight[0])
                else:
                    self.deadline = self.stall_at = None
                    self.stalled = False
            if not drain:
                return

    def expire(self) -> None:
        """The watchdog's verdict: the head is past its budget (unless its reply is already here)."""
        self._read(drain=True)
        if self.deadline is not None and self.deadline <= self.loop.time() + 0.001 and self._inflight:  # type: ignore[union-attr]
            self._lose(f"call exceeded its wall-time budget of {self._inflight[0].timeout:g} s", budget=True)

    # -- loss and recovery ------------------------------------------------------------------
    def _lose_if(self, generation: int, reason: str) -> None:
        if generation == self.generation and not self._stopped:
            self._lose(reason)

    def _lose(self, reason: str, budget: bool = False) -> None:
        """Kill and replace the worker; fail the request it was running (``budget``: it ran past its
        budget, else the worker died under it); hold back the rest."""
        if self._stopped:
            return
        head = self._inflight.popleft() if self._inflight else None
        behind = [r for r in self._inflight if not r.moved]  # place-holders: their requests went elsewhere
        self._inflight.clear()
        self.deadline = self.stall_at = None
        self.stalled = False
        reload = [self.bundles[h] for h in self.bundles if h in self.domains]  # in load order: bases first
        self.bundles = {b.content_hash: b for b in reload}
        self._loading = {}  # a load still queued is sent again, but nobody waits on it through here
        self._kill()
        self._spawn()
        if head is not None and not head.moved and not head.future.done():
            head.future.set_exception(WorkerLostError(reason, budget))
        lost = WorkerLostError(f"worker lost while recovering: {reason}")
        resend = []
        for request in behind:
            if request.recovery:  # the recovery starts over on the fresh worker
                if not request.future.done():
                    request.future.set_exception(lost)
            else:
                resend.append(request)
        if self._held is None and not reload and self.recover is None:
            for request in resend:
                if not request.future.done():
                    self._send(request)
            return
        self._held = deque(resend + list(self._held or ()))
        self._reload = reload
        if self._recovery is None:
            self._recovery = self.loop.create_task(self._recover())  # type: ignore[union-attr]

    async def _recover(self) -> None:
        _RECOVERING.set(self)  # this task's context only, and the tasks it starts
        try:
            for _ in range(_RECOVERY_ATTEMPTS):
                generation = self.generation
                try:
                    for bundle in self._reload:
                        await self.ensure_domain(bundle, self.load_timeout)
                    if self.recover is not None:
                        await self.recover(self)
                except (WorkerLostError, DomainLoadError):
                    pass
                if self.generation == generation:
                    break
        finally:
            held, self._held, self._recovery = self._held or deque(), None, None
            if not self._stopped:
                for request in held:
                    if not request.future.done():
                        self._send(request)

    async def ensure_domain(self, bundle: DomainBundle, timeout: float | None) -> None:
        """Load ``bundle`` on this worker unless it is there; concurrent callers share one load."""
        loading = self.load(bundle, timeout)
        if loading is None:
            return
        status, payload = await asyncio.shield(loading)
        if status != OK:
            raise DomainLoadError(str(payload))

    def load(self, bundle: DomainBundle, timeout: float | None) -> asyncio.Future[Any] | None:
        """Queue the load of ``bundle`` now unless it is loaded (None) or queued already (that load's future)."""
        key = bundle.content_hash
        if key in self.domains:
            return None
        recovering = self._held is not None and _RECOVERING.get() is self
        # the recovery never waits on a load held back behind itself: it sends its own
        loading = None if recovering else self._loading.get(key)
        if loading is None:
            if bundle.base_hash is not None and bundle.base_hash in self.domains:
                message: tuple[Any, ...] = ("variant", bundle.base_hash, key, bundle.tools_source)
            else:
                message = ("domain", bundle)
            self.load_timeout = timeout
            generation = self.generation
            loading = self._loading[key] = self.submit(message, timeout)

            def loaded(future: asyncio.Future[Any]) -> None:
                if self._loading.get(key) is future:
                    del self._loading[key]
                if not future.cancelled() and future.exception() is None and future.result()[0] == OK \
                        and self.generation == generation:
                    self.domains.add(key)
                    # forgotten ones (validation's mutants) are dropped here, not kept for a reload
                    self.bundles = {h: b for h, b in self.bundles.items() if h in self.domains}
                    self.bundles[key] = bundle

            loading.add_done_callback(loaded)
        return loading


class WorkerPool:
    """A fixed set of worker processes (default: one per core), sharing one budget watchdog."""

    def __init__(self, size: int | None = None, memory_limit: int | None = 4 * 1024**3,
                 max_pages: int | None = None, env: dict[str, str] | None = None,
                 max_result_bytes: int | None = None, check_outputs: str = "always",
                 stall_after: float | None = None) -> None:
        self.size = size or os.cpu_count() or 1
        self.stall_after = stall_after  # None or 0: a stalled worker keeps its queue (the old behaviour)
        self.memory_limit, self.max_pages, self.env = memory_limit, max_pages, env  # what each worker starts with
        self.max_result_bytes, self.check_outputs = max_result_bytes, check_outputs
        self.watchdog = Watchdog()
        self.recover: Callable[[WorkerHandle], Awaitable[None]] | None = None
        self.on_stall: Callable[[WorkerHandle], None] | None = None  # the registry's: move episodes off a stalled worker
        self.workers: list[WorkerHandle] = []

    def start(self) -> None:
        self.workers = [WorkerHandle(i, self.memory_limit, self.max_pages, self.env, self.max_result_bytes,
                                     self.check_outputs, self.watchdog, self.recover, self.stall_after)
                        for i in range(self.size)]
        for worker in self.workers:
            worker.on_stall = self.on_stall

    def stop(self) -> None:
        for worker in self.workers:
            worker.stop()
        self.workers = []

    def least_loaded(self) -> WorkerHandle:
        return min(self.workers, key=lambda w: (len(w.episodes), w.index))
