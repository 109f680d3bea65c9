"""The worker process: holds episode databases and runs tool code, and nothing else.

Pinned (docs/architecture.md and docs/threat-model.md): tool code never runs in the process that
serves MCP. A worker receives requests over a pipe (several may be queued there) and answers
each in turn, in order. It
runs under a memory limit (RLIMIT_AS) set at start; the host enforces the wall-time budget
by killing it (tests/integration/test_runaway.py), and the worker dies with its host and
past its own deadline (``workers.lifetime``). Every call is atomic: a savepoint wraps it and
any error rolls back its writes, id counters included. A result whose JSON is larger than
the per-call limit is refused in here, so it never crosses the pipe into the host.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import signal
import socket
import sqlite3
import traceback
from collections import OrderedDict, deque
from collections.abc import Iterator
from typing import Any, Callable, TypeVar

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.tool_loader import load_tool_functions
from scaleenv_mcp.domain.tool_variants import load_variant
from scaleenv_mcp.errors import ToolError
from scaleenv_mcp.state.canonical import CanonicalTable, dump_state
from scaleenv_mcp.state.containment import ConnectionGuard, open_connection
from scaleenv_mcp.state.diff import diff_states
from scaleenv_mcp.state.facade import ToolContext
from scaleenv_mcp.state.fingerprint import fingerprint_dump
from scaleenv_mcp.state.ids import install_id_counters
from scaleenv_mcp.state.image_check import image_problem
from scaleenv_mcp.state.model import RowOp
from scaleenv_mcp.state.start_states import StartStateCache, apply_row_ops, build_start_state, extend_start_state
from scaleenv_mcp.state.tracking import BaseState, Overlay, has_tracking, read_overlay
from scaleenv_mcp.workers.argument_faults import argument_problem
from scaleenv_mcp.workers.lifetime import arm_budget, disarm_budget, guard_lifetime
from scaleenv_mcp.workers.output_check import OutputCheck
from scaleenv_mcp.workers.protocol import FAULT, LIMIT, OK, TOOL_ERROR, CallReply, DomainBundle, Frames, frame

__all__ = ["run_worker"]

Result = TypeVar("Result")


class _LoadedDomain:
    def __init__(self, bundle: DomainBundle, base: _LoadedDomain | None = None, check_outputs: str = "always") -> None:
        self.bundle = bundle
        self.manifest: DomainManifest = base.manifest if base else DomainManifest.model_validate_json(bundle.manifest_json)
        names = [t.name for t in self.manifest.tools]
        self.functions: dict[str, Callable[..., Any]] = load_variant(
            base.functions, base.bundle.tools_source, bundle.tools_source, "tools.py", names,
        ) if base else load_tool_functions(bundle.tools_source, "tools.py", names, bundle.tools_code)
        self.output_checks: dict[str, OutputCheck] = base.output_checks if base else {
            t.name: OutputCheck(t.output_schema, check_outputs) for t in self.manifest.tools
        }
        self.table_names = frozenset(t.name for t in self.manifest.tables)
        # Start states depend on data only, so mutants of the same package share them.
        self.data_key: str = base.data_key if base else hashlib.sha256(
            (bundle.schema_sql + json.dumps(bundle.seed, sort_keys=True)).encode()).hexdigest()


class _Episode:
    __slots__ = ("conn", "guard", "ctx", "start", "start_key", "domain", "stats")

    def __init__(self, conn: sqlite3.Connection, guard: ConnectionGuard, start: bytes, domain: _LoadedDomain,
                 start_key: str = "") -> None:
        self.conn = conn
        self.guard = guard
        self.ctx = ToolContext(conn, guard, domain.manifest.clock)
        self.start = start
        self.start_key = start_key
        self.domain = domain
        # How this episode's fingerprints and diffs were answered: from the change set, or by a full scan.
        self.stats = {"tracked": 0, "full_scans": 0}


class Worker:
    """Request dispatcher of one worker process (also usable in-process by tests of this module)."""

    def __init__(self, max_pages: int | None = None, max_result_bytes: int | None = None,
                 check_outputs: str = "always") -> None:
        self.max_result_bytes = max_result_bytes
        self.check_outputs = check_outputs  # output_check.CHECK_MODES
        self.domains: dict[str, _LoadedDomain] = {}
        self.episodes: dict[str, _Episode] = {}
        self.start_states = StartStateCache()
        self.max_pages = max_pages
        self.bases: dict[str, BaseState | None] = {}  # data key -> seed state read once (None: not tracked)
        # (data key, start key) -> (the start bytes read, their change set), checked by identity
        self.start_overlays: OrderedDict[tuple[str, str], tuple[bytes, Overlay | None]] = OrderedDict()

    def handle(self, message: tuple[Any, ...]) -> tuple[str, Any]:
        op, *args = message
        try:
            return OK, getattr(self, f"op_{op}")(*args)
        except KeyError as exc:
            return FAULT, f"unknown episode or domain {exc}"
        except Exception as exc:  # the host turns this into an environment fault
            return FAULT, f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=8)}"

    # -- domains and episodes -------------------------------------------------------------
    def op_domain(self, bundle: DomainBundle) -> None:
        if bundle.content_hash not in self.domains:
            self.domains[bundle.content_hash] = _LoadedDomain(bundle, check_outputs=self.check_outputs)

    def op_variant(self, base_hash: str, content_hash: str, tools_source: str) -> None:
        """Load other tool code over an already loaded domain's data (validation's mutants):
        only the source crosses the pipe, and the manifest, validators and start states are shared."""
        if content_hash not in self.domains:
            base = self.domains[base_hash]
            bundle = DomainBundle(content_hash, base.bundle.manifest_json, base.bundle.schema_sql, base.bundle.seed,
                                  tools_source, base_hash)
            self.domains[content_hash] = _LoadedDomain(bundle, base)

    def op_open(self, episode_id: str, content_hash: str, start_key: str, setup: list[dict[str, Any]],
                base: bytes | None, replay: list[tuple[str, dict[str, Any]]], record_access: bool = False) -> int:
        domain = self.domains[content_hash]
        ops = [RowOp.model_validate(op) for op in setup]
        start = self._seed_state(domain)
        if ops:  # a task's setup: applied to the seed state's bytes, not to a reloaded seed
            start = self.start_states.get((domain.data_key, start_key), lambda: extend_start_state(start, ops))
        conn, guard = open_connection(domain.manifest.clock, serialized=base if base is not None else start,
                                      record_access=record_access, max_pages=self.max_pages)
        episode = _Episode(conn, guard, start, domain, start_key)
        for index, (tool, arguments) in enumerate(replay):
            reply = self._call(episode, tool, arguments)
            if reply.status != OK:
                conn.close()
                raise RuntimeError(f"replay diverged at call {index} ({tool}): {reply.message}")
        self.episodes[episode_id] = episode
        return len(replay)

    def op_forget(self, content_hash: str) -> None:
        """Drop a loaded domain (validation loads one per mutant)."""
        self.domains.pop(content_hash, None)

    def op_close(self, episode_id: str) -> None:
        episode = self.episodes.pop(episode_id, None)
        if episode is not None:
            episode.conn.close()

    def op_snapshot(self, episode_id: str) -> bytes:
        return self.episodes[episode_id].conn.serialize()

    def op_check_image(self, content_hash: str, data: bytes) -> str | None:
        """Why an untrusted SQLite image (an imported episode file's) may not be opened as a state of
        this domain; None when it may (``state.image_check``). Checked here, not in the host process."""
        domain = self.domains[content_hash]
        limit = self.max_pages * 4096 if self.max_pages is not None else len(data)
        return image_problem(data, self._seed_state(domain), self._base(domain), limit)

    def op_restore(self, episode_id: str, data: bytes) -> None:
        episode = self.episodes[episode_id]
        self._trusted(episode, lambda: episode.conn.deserialize(data))
        self._trusted(episode, lambda: episode.conn.execute("PRAGMA foreign_keys = ON"))
        if (pages := self.max_pages) is not None:  # deserialize resets max_page_count: the size limit must survive a restore
            self._trusted(episode, lambda: episode.conn.execute(f"PRAGMA max_page_count = {int(pages)}"))

    def op_fork(self, source_id: str, target_id: str) -> None:
        source = self.episodes[source_id]
        conn, guard = open_connection(source.domain.manifest.clock, serialized=source.conn.serialize(),
                                      max_pages=self.max_pages)
        self.episodes[target_id] = _Episode(conn, guard, source.start, source.domain, source.start_key)

    def op_case(self, content_hash: str, with_seed: bool, rows: list[dict[str, Any]], tool: str,
                arguments: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any] | None, str | None]:
        """One procedural test case: fresh fixture database, one call, its diff and end fingerprint.

        Runs with access recording on, so the reply says which tables the call read and wrote.
        A fixture that does not load is reported as a fault whose message starts with 'fixture:'.
        """
        domain = self.domains[content_hash]
        bundle = domain.bundle
        base = self._seed_state(domain) if with_seed else self.start_states.get(
            (domain.data_key, "empty"), lambda: build_start_state(bundle.schema_sql, None))
        conn, guard = open_connection(domain.manifest.clock, serialized=base, record_access=True,
                                      max_pages=self.max_pages)
        episode = _Episode(conn, guard, base, domain)
        try:
            def fixture() -> bytes:
                apply_row_ops(conn, [RowOp.model_validate(op) for op in rows])
                install_id_counters(conn)
                return conn.serialize()

            try:
                start = self._trusted(episode, fixture)
            except (sqlite3.Error, ValueError) as exc:
                return tuple(CallReply(FAULT, message=f"fixture: {exc}")), None, None
            reply = self._call(episode, tool, arguments)
            # Access recording is on here (no statement cache), so the authorizer saw every
            # write: only the tables written can differ, and only those are read back. The
            # fingerprint likewise covers the written tables (the rest is the fixture).
            written = sorted(t for t in reply.writes if t in episode.domain.table_names)
            before, after = self._dump(episode, start, written), self._dump(episode, None, written)
            return tuple(reply), diff_states(before, after).model_dump(mode="json"), fingerprint_dump(after)
        finally:
            conn.close()

    # -- reading state --------------------------------------------------------------------
    def _dump(self, episode: _Episode, data: bytes | None = None, tables: list[str] | None = None) -> dict[str, CanonicalTable]:
        if data is None:
            return self._trusted(episode, lambda: dump_state(episode.conn, tables))
        with _opened(data) as other:
            return dump_state(other, tables)

    def _seed_state(self, domain: _LoadedDomain) -> bytes:
        bundle = domain.bundle
        return self.start_states.get((domain.data_key, ""), lambda: build_start_state(bundle.schema_sql, bundle.seed))

    def _base(self, domain: _LoadedDomain) -> BaseState | None:
        """The domain's seed state read once (the change sets are relative to it); None when untracked."""
        key = domain.data_key
        if key not in self.bases:
            with _opened(self._seed_state(domain)) as conn:
                self.bases[key] = BaseState(conn) if has_tracking(conn) else None
        return self.bases[key]

    def _overlay(self, base: BaseState, episode: _Episode, data: bytes | None = None) -> Overlay | None:
        """The change set of the episode's state now, or of serialized bytes (a start state, a snapshot)."""
        if data is None:
            return self._trusted(episode, lambda: read_overlay(base, episode.conn))
        if data is episode.start:  # read once per (domain data, task start state)
            key = (episode.domain.data_key, episode.start_key)
            cached = self.start_overlays.get(key)
            if cached is None or cached[0] is not data:  # rebuilt bytes (a restaged task): read them again
                with _opened(data) as conn:
                    cached = self.start_overlays[key] = (data, read_overlay(base, conn))
                while len(self.start_overlays) > _START_OVERLAYS:
                    self.start_overlays.popitem(last=False)
            self.start_overlays.move_to_end(key)
            return cached[1]
        with _opened(data) as conn:
            return read_overlay(base, conn)

    def op_fingerprint(self, episode_id: str, full: bool = False) -> str:
        """The fingerprint from the change set, or (``full``, or an untracked state) by the reference full scan."""
        episode = self.episodes[episode_id]
        base = None if full else self._base(episode.domain)
        overlay = self._overlay(base, episode) if base is not None else None
        if base is None or overlay is None:
            episode.stats["full_scans"] += 1
            return fingerprint_dump(self._dump(episode))
        episode.stats["tracked"] += 1
        return base.fingerprint(overlay)

    def op_diff(self, episode_id: str, against: bytes | None = None, other_episode: str | None = None,
                full: bool = False) -> dict[str, Any]:
        """Diff from the start state (default), from snapshot bytes, or from another episode.

        Read from the two states' change sets when both have one, else by the full scan."""
        episode = self.episodes[episode_id]
        other = self.episodes[other_episode] if other_episode is not None else None
        base = None if full or (other is not None and other.domain.data_key != episode.domain.data_key) \
            else self._base(episode.domain)
        if base is not None:
            before = self._overlay(base, other) if other is not None else \
                self._overlay(base, episode, against if against is not None else episode.start)
            after = self._overlay(base, episode)
            if before is not None and after is not None:
                episode.stats["tracked"] += 1
                return base.diff(before, after).model_dump(mode="json")
        episode.stats["full_scans"] += 1
        if other is not None:
            old = self._dump(other)
        else:
            old = self._dump(episode, against if against is not None else episode.start)
        return diff_states(old, self._dump(episode)).model_dump(mode="json")

    def op_episode_stats(self, episode_id: str) -> dict[str, int]:
        return dict(self.episodes[episode_id].stats)

    def op_dump(self, episode_id: str, tables: list[str] | None = None) -> dict[str, Any]:
        dump = self._dump(self.episodes[episode_id])
        return {name: table.to_json() for name, table in dump.items() if tables is None or name in tables}

    def op_size(self, episode_id: str) -> int:
        episode = self.episodes[episode_id]
        return int(self._trusted(episode, lambda: episode.conn.execute("PRAGMA page_count").fetchone()[0]
                                 * episode.conn.execute("PRAGMA page_size").fetchone()[0]))

    def op_stats(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"episodes": len(self.episodes), "max_rss_kb": usage.ru_maxrss,
                "state_full_scans": sum(e.stats["full_scans"] for e in self.episodes.values()),
                "cpu_s": usage.ru_utime + usage.ru_stime}

    def op_ping(self) -> str:
        return "pong"

    def op_sleep(self, seconds: float) -> None:
        """For tests of the host's budget handling only: hold this worker busy."""
        import time

        time.sleep(seconds)

    # -- calls ----------------------------------------------------------------------------
    def op_call(self, episode_id: str, tool: str, arguments: dict[str, Any]) -> tuple[Any, ...]:
        """A ``CallReply`` as a plain tuple (the host reads it back as one: ``CallReply(*payload)``)."""
        return tuple(self._call(self.episodes[episode_id], tool, arguments))

    @staticmethod
    def _trusted(episode: _Episode, fn: Callable[[], Result]) -> Result:
        episode.guard.trusted = True
        try:
            return fn()
        finally:
            episode.guard.trusted = False

    def _call(self, episode: _Episode, tool: str, arguments: dict[str, Any]) -> CallReply:
        fn = episode.domain.functions.get(tool)
        if fn is None:
            return CallReply(FAULT, message=f"unknown tool {tool!r}")
        conn, guard = episode.conn, episode.guard
        self._trusted(episode, lambda: conn.execute("SAVEPOINT scaleenv_call"))
        guard.log.clear()
        guard.denied.clear()
        try:
            result = fn(episode.ctx, **arguments)
            problem, text = episode.domain.output_checks[tool].problem(result)
            if problem:
                raise _BadResult(problem)
            size = len(text) if text.isascii() else len(text.encode())
        except ToolError as exc:
            self._rollback(episode)
            return CallReply(TOOL_ERROR, error_code=exc.code, message=exc.message)
        except sqlite3.DatabaseError as exc:
            self._rollback(episode)
            if "full" in str(exc) or "too big" in str(exc):
                return CallReply(LIMIT, message=f"episode database limit reached: {exc}")
            if (blame := argument_problem(exc, arguments)) is not None:
                return CallReply(TOOL_ERROR, error_code="invalid_argument", message=blame)
            reason = f"; refused: {guard.denied[-1]}" if guard.denied else ""
            return CallReply(FAULT, message=f"{type(exc).__name__}: {exc}{reason}", detail=traceback.format_exc())
        except BaseException as exc:  # tool code is untrusted: nothing it raises may escape
            self._rollback(episode)
            if (blame := argument_problem(exc, arguments)) is not None:
                return CallReply(TOOL_ERROR, error_code="invalid_argument", message=blame)
            return CallReply(FAULT, message=f"{type(exc).__name__}: {exc}"[:2000], detail=traceback.format_exc())
        if self.max_result_bytes is not None and size > self.max_result_bytes:
            self._rollback(episode)
            return CallReply(TOOL_ERROR, error_code="result_too_large",
                             message=f"the result is {size} bytes of JSON, over the {self.max_result_bytes}-byte limit "
                                     "per call; ask for less (narrower filters, a smaller limit or page)")
        self._trusted(episode, lambda: conn.execute("RELEASE scaleenv_call"))
        return CallReply(OK, result_json=text, reads=tuple(sorted(guard.log.reads)), writes=tuple(sorted(guard.log.writes)),
                         result_bytes=size)

    def _rollback(self, episode: _Episode) -> None:
        def undo() -> None:
            # On some errors (SQLITE_FULL at the size limit) SQLite has already rolled back the
            # whole transaction, savepoint included: the call's writes are gone either way.
            if episode.conn.in_transaction:
                episode.conn.execute("ROLLBACK TO scaleenv_call")
                episode.conn.execute("RELEASE scaleenv_call")

        self._trusted(episode, undo)


_START_OVERLAYS = 4096  # cached task start change sets (a few rows each)


@contextlib.contextmanager
def _opened(data: bytes) -> Iterator[sqlite3.Connection]:
    """A plain read connection over serialized bytes (host code only: no tool runs on it)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(data)
        yield conn
    finally:
        conn.close()


class _BadResult(Exception):
    pass


def run_worker(sock: socket.socket, memory_limit: int | None, max_pages: int | None, parent_pid: int | None = None,
               max_result_bytes: int | None = None, check_outputs: str = "always") -> None:
    """Entry point of a worker process: serve ``(budget, request)`` messages until the socket closes.

    Requests may queue up in the socket (the host sends them as they come); each is answered in
    turn, in order. Both ways: pickle protocol 5 in ``Connection`` framing (``workers.protocol``).
    Reads are buffered: one ``recv`` takes every request that has come (not a header and then a
    body, two system calls per request), and a reply leaves in one ``sendall``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    guard_lifetime(parent_pid or os.getppid(), sock.fileno())
    if memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    worker = Worker(max_pages=max_pages, max_result_bytes=max_result_bytes, check_outputs=check_outputs)
    frames, pending = Frames(), deque[Any]()
    while True:
        while not pending:
            try:
                chunk = sock.recv(_READ_SIZE)
            except OSError:
                return
            if not chunk:
                return
            pending.extend(frames.feed(chunk))
        budget, message = pending.popleft()
        arm_budget(budget)
        try:
            reply = worker.handle(message)
        except MemoryError:
            reply = (FAULT, "MemoryError: worker memory limit reached")
        disarm_budget()
        try:
            data = frame(reply)
        except MemoryError:
            data = frame((FAULT, "MemoryError: worker memory limit reached"))
        except Exception as exc:  # a reply must always come: the host matches replies to requests in order
            data = frame((FAULT, f"reply could not be pickled: {type(exc).__name__}: {exc}"[:2000]))
        try:
            sock.sendall(data)
        except OSError:
            return


_READ_SIZE = 1 << 18


def main(argv: list[str]) -> None:
    """``python -m scaleenv_mcp.workers.worker FD PARENT_PID MEMORY_LIMIT MAX_PAGES MAX_RESULT_BYTES CHECK_OUTPUTS``
    (started by the pool through ``workers.launcher``; 0 means no limit)."""
    fd, parent_pid, memory_limit, max_pages, max_result_bytes = (int(a) for a in argv[:5])
    check_outputs = argv[5] if len(argv) > 5 else "always"
    run_worker(socket.socket(fileno=fd), memory_limit or None, max_pages or None, parent_pid, max_result_bytes or None,
               check_outputs)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
