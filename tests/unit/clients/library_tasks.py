"""Tasks for a temporary copy of the tiny_library fixture domain, with gold computed by running them.

The eval tests need a domain with verified-looking tasks: each task's gold diff and
fingerprint come from executing its reference actions on a real host (never written by
hand), so the oracle must score 1 and a do-nothing agent 0.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.domain.task import GoldSpec, Task, TaskAction, UserSpec
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.model import RowOp

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


def _task(task_id: str, opening: str, instruction: str, actions: list[tuple[str, dict]], *, known: dict | None = None,
          withheld: dict | None = None, setup: list[RowOp] | None = None, split: str = "test") -> Task:
    return Task(id=task_id, domain="tiny_library", split=split, difficulty="easy",
                user=UserSpec(opening=opening, instruction=instruction, known=known or {}, withheld=withheld or {}),
                setup=setup or [], actions=[TaskAction(tool=t, arguments=a) for t, a in actions])


TASKS = [
    _task("lend-ada-dune", "Hi, I'd like to borrow Dune.", "You are Ada Byron (MEM-00001); borrow Dune (BK-00001).",
          [("find_books", {"text": "Dune"}), ("borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00001"})],
          known={"member_id": "MEM-00001"}),
    _task("return-solaris", "I'm returning Solaris.", "You are Alan Turing; return your loan LN-00007 of Solaris.",
          [("return_book", {"loan_id": "LN-00007"})], known={"name": "Alan Turing"}, withheld={"loan_id": "LN-00007"},
          split="train"),
    _task("swap-solaris", "Please return Alan's Solaris and lend it to Ada.",
          "You are the librarian; return LN-00007, then lend Solaris (BK-00002) to Ada (MEM-00001).",
          [("return_book", {"loan_id": "LN-00007"}), ("borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00002"})],
          known={"loan_id": "LN-00007", "member_id": "MEM-00001"}),
    _task("lend-grace", "Hello! Could I borrow Dune Messiah?", "You are Grace Hopper (MEM-00004); borrow Dune Messiah.",
          [("borrow_book", {"member_id": "MEM-00004", "book_id": "BK-00003", "note": "birthday gift"})],
          known={"member_id": "MEM-00004"},
          setup=[RowOp(op="insert", table="members", row={"member_id": "MEM-00004", "name": "Grace Hopper",
                                                          "email": "grace@example.org", "status": "active",
                                                          "max_loans": 1})]),
]


async def _gold(domains: Path, tasks: list[Task], state_dir: Path) -> list[Task]:
    settings = HostSettings(workers=1, port=0, control_port=None, skip_validation=True, state_dir=state_dir)
    solved = []
    async with Host.running(settings, [domains]) as host:
        for task in tasks:
            episode = await host.create_episode("tiny_library", task.id)
            for action in task.actions:
                outcome = await host.registry.call(episode.id, action.tool, action.arguments)
                assert outcome.kind.value == "success", (task.id, action, outcome)
            gold = GoldSpec(diff=await host.registry.diff(episode.id),
                            fingerprint=await host.registry.fingerprint(episode.id))
            solved.append(task.model_copy(update={"gold": gold}))
    return solved


def write_library(root: Path, tasks: list[Task] | None = None) -> Path:
    """Copy tiny_library under ``root/domains`` with gold-bearing tasks; returns the domains folder."""
    domains = root / "domains"
    target = domains / "tiny_library"
    shutil.copytree(FIXTURE, target)
    tasks = tasks or TASKS
    (target / "tasks.jsonl").write_text("".join(t.to_line() + "\n" for t in tasks))  # gold-less, for the host to load
    solved = anyio.run(_gold, domains, tasks, root / "gold-state")
    (target / "tasks.jsonl").write_text("".join(t.to_line() + "\n" for t in solved))
    return domains


class HostThread:
    """A host with real loopback listeners, run on its own event loop in a background thread.

    Tests share one host across several evals (``url/control_url/token_file`` mode) instead of
    paying a host start per eval; the eval code cannot tell the difference.
    """

    def __init__(self, domain_dirs: list[Path], token_file: Path, **settings: object) -> None:
        self.settings = HostSettings(**{"workers": 1, "port": 0, "control_port": 0, "token_file": token_file,
                                        "call_timeout": 3.0, **settings})
        self.domain_dirs = domain_dirs
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        from scaleenv_mcp.host.listeners import serving

        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        try:
            async with Host.running(self.settings, self.domain_dirs) as host, serving(host) as listeners:
                self.host, self.listeners = host, listeners
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # noqa: BLE001 - reported to the test thread
            self._error = exc
            self._ready.set()

    def __enter__(self) -> HostThread:
        self._thread.start()
        self._ready.wait(60)
        if self._error is not None:
            raise self._error
        self.url = self.listeners.agent_url
        self.control_url = self.listeners.control_url
        self.token_file = self.listeners.token_path
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


_MASTER: list[Path] = []


@pytest.fixture(scope="session")
def library_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The solved library, built once per test process (however many modules import this fixture)."""
    if not _MASTER:
        _MASTER.append(write_library(tmp_path_factory.mktemp("library")))
    return _MASTER[0]


@pytest.fixture
def library(library_master: Path, tmp_path: Path) -> Path:
    """A fresh copy of the domains folder holding the solved tiny_library (tests may write into it)."""
    target = tmp_path / "domains"
    shutil.copytree(library_master, target)
    return target
