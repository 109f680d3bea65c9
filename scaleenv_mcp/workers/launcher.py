"""Worker processes forked from a warm launcher instead of started as fresh interpreters.

A fresh ``python -m scaleenv_mcp.workers.worker`` spends about 0.3 s of CPU importing (pydantic and the
domain models, jsonschema, the state modules) before it serves anything. Hosts, validation and
generation start many workers: a full test run started about 870 of them, 250 s of CPU, a fifth of
the run. A launcher is one interpreter that has done those imports; it forks a worker per request,
which costs a fork (a few ms). There is one launcher per host process and worker environment, started
at the first worker that needs it. A worker's environment is the one its pool asked for (set in the
child after the fork); launchers differ only where the environment changes how an interpreter starts
(``PYTHON*`` variables: the path, sitecustomize, the hash seed).

What a forked worker keeps of a fresh interpreter, and what it does not (docs/threat-model.md):
- The launcher never loads a domain and never runs tool code; a forked worker starts from the same
  imported modules a fresh one has after its imports, and loads its domains itself.
- The worker's own guards are those of ``workers.lifetime``, with the launcher as their parent: the
  launcher exits as soon as the host's end of its socket closes (the host died or stopped), and its
  workers then die by their death signal or their watchdog. The host kills and waits for a forked
  worker through a pidfd (Linux 5.3), never by a pid that could have been reused.
- Siblings share the launcher's address-space layout and string hash seed (a fresh interpreter
  randomises both); ``random`` is reseeded in each worker.
- Where pidfds or fd passing are missing (not Linux), or a launcher cannot be started or reached, the
  pool starts fresh interpreters as before (``start_worker``).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback
from typing import Protocol

from scaleenv_mcp.workers.lifetime import prctl

__all__ = ["LAUNCHER_NAME", "WORKER_NAME", "WorkerProcess", "start_worker"]

LAUNCHER_NAME = b"scaleenv-launch"  # the process name ps and /proc/PID/comm show (15 bytes at most)
WORKER_NAME = b"scaleenv-worker"
_REPLY_TIMEOUT = 60.0  # a launcher still importing under a loaded machine answers its first fork late
_IDLE_LAUNCHERS = 4  # launchers kept for environments none of whose workers is alive
_PID = struct.Struct("q")
_MESSAGE_SIZE = 1 << 20  # a request: the worker's options, directory and environment
_PR_SET_NAME = 15


class WorkerProcess(Protocol):
    """What the pool needs of a worker process: ``subprocess.Popen`` has it, and so does a forked one."""

    @property
    def pid(self) -> int: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int | None: ...


class _ForkedWorker:
    """A worker forked by a launcher: not our child, so it is signalled and awaited through its pidfd."""

    def __init__(self, pid: int, pidfd: int, launcher: _Launcher) -> None:
        self.pid, self._pidfd, self._launcher = pid, pidfd, launcher

    def kill(self) -> None:
        if self._pidfd >= 0:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int | None:
        if self._pidfd < 0:
            return None
        poller = select.poll()
        poller.register(self._pidfd, select.POLLIN)
        if not poller.poll(None if timeout is None else int(timeout * 1000)):
            raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0)
        os.close(self._pidfd)
        self._pidfd = -1
        self._launcher.ended()
        return None  # the launcher's kernel reaped it: no exit status reaches this process


class _Launcher:
    """The host's end of one launcher process."""

    def __init__(self, env: dict[str, str]) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.process = subprocess.Popen([sys.executable, "-m", "scaleenv_mcp.workers.launcher", str(theirs.fileno())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                                            stdout=subprocess.DEVNULL, env=env)
        finally:
            theirs.close()
        ours.settimeout(_REPLY_TIMEOUT)
        self.sock = ours
        self.lock = threading.Lock()
        self.live = 0  # forked workers not yet awaited
        self.forked = 0

    def fork(self, fd: int, options: list[str], env: dict[str, str]) -> _ForkedWorker:
        with self.lock:
            message = json.dumps([options, os.getcwd(), env]).encode()
            socket.send_fds(self.sock, [message], [fd])
            data, fds, _, _ = socket.recv_fds(self.sock, _PID.size, 1)
            if len(data) != _PID.size or not fds:
                for received in fds:
                    os.close(received)
                raise OSError("the worker launcher did not fork a worker")
            self.live += 1
            self.forked += 1
        return _ForkedWorker(_PID.unpack(data)[0], fds[0], self)

    def ended(self) -> None:
        with self.lock:
            self.live -= 1

    def close(self) -> None:
        self.sock.close()  # the launcher sees its socket close and exits
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.process.wait(timeout=5)


_launchers: dict[tuple[str, ...], _Launcher] = {}
_refused: set[tuple[str, ...]] = set()  # environments whose launcher failed before its first fork: not tried again
_launchers_lock = threading.Lock()


def _usable() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open") and hasattr(socket, "send_fds") \
        and hasattr(signal, "pidfd_send_signal")


def _key(env: dict[str, str]) -> tuple[str, ...]:
    return (sys.executable, *sorted(f"{k}={v}" for k, v in env.items() if k.startswith("PYTHON")))


def _launcher(env: dict[str, str]) -> _Launcher | None:
    key = _key(env)
    with _launchers_lock:
        if key in _refused:
            return None
        launcher = _launchers.pop(key, None)
        if launcher is None or launcher.process.poll() is not None:
            launcher = _Launcher(env)
        _launchers[key] = launcher  # most recently used last
        idle = [k for k, other in _launchers.items() if other is not launcher and other.live == 0]
        for old in idle[:max(0, len(idle) - _IDLE_LAUNCHERS)]:
            _launchers.pop(old).close()
        return launcher


def _forget(launcher: _Launcher, env: dict[str, str]) -> None:
    """Drop a launcher that failed; one that never forked a worker (an environment it cannot start in) is
    not started again for that environment."""
    key = _key(env)
    with _launchers_lock:
        if _launchers.get(key) is launcher:
            del _launchers[key]
        if not launcher.forked:
            _refused.add(key)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        launcher.process.kill()
        launcher.process.wait(timeout=5)
    launcher.sock.close()


def start_worker(fd: int, options: list[str], env: dict[str, str]) -> WorkerProcess:
    """Start ``python -m scaleenv_mcp.workers.worker FD PARENT_PID *options`` serving the socket ``fd``:
    forked by this environment's launcher (its parent) where it can be, else as a fresh interpreter
    (this process its parent)."""
    if _usable():
        launcher = None
        try:
            launcher = _launcher(env)
            if launcher is not None:
                return launcher.fork(fd, options, env)
        except OSError:  # it died, timed out or could not start: a fresh one next time, this worker now
            if launcher is not None:
                _forget(launcher, env)
    # A fresh interpreter (not multiprocessing's spawn): it never re-imports the caller's __main__,
    # and its stdout is closed so it cannot corrupt a stdio MCP pipe.
    return subprocess.Popen([sys.executable, "-m", "scaleenv_mcp.workers.worker", str(fd), str(os.getpid()), *options],
                            pass_fds=[fd],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)


# -- the launcher process ------------------------------------------------------------------------
def _become_worker(control: socket.socket, args: list[str], cwd: str, env: dict[str, str]) -> None:
    from scaleenv_mcp.workers import worker

    status = 0
    try:
        control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        prctl(_PR_SET_NAME, WORKER_NAME)
        random.seed()  # not the launcher's state, shared by every sibling
        os.environ.clear()
        os.environ.update(env)
        with contextlib.suppress(OSError):
            os.chdir(cwd)
        worker.main(args)
    except BaseException:  # noqa: B036 - nothing may return into the launcher's loop
        traceback.print_exc()
        status = 1
    finally:
        os._exit(status)


def _serve(control: socket.socket) -> None:
    from scaleenv_mcp.workers import worker  # noqa: F401 - the imports every forked worker inherits

    gc.collect()
    gc.freeze()  # the workers' collectors never walk (and so never copy) the pages of what the imports made
    # Children are reaped by the kernel (the host awaits them through their pidfds); Ctrl-C in a
    # terminal reaches the whole process group, and the host decides what stops.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    prctl(_PR_SET_NAME, LAUNCHER_NAME)
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, _MESSAGE_SIZE, 1)
        except OSError:
            return
        if not data or not fds:
            return  # the host's end closed: the host stopped or died
        options, cwd, env = json.loads(data)
        pid = os.fork()
        if pid == 0:
            _become_worker(control, [str(fds[0]), str(os.getppid()), *options], cwd, env)
        os.close(fds[0])
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:  # it died at once and was reaped: the host sees its socket close
            pidfd = -1
        try:
            socket.send_fds(control, [_PID.pack(pid)], [pidfd] if pidfd >= 0 else [])
        except OSError:
            return
        finally:
            if pidfd >= 0:
                os.close(pidfd)


if __name__ == "__main__":
    _serve(socket.socket(fileno=int(sys.argv[1])))
