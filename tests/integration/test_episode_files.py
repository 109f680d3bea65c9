"""Durable snapshots (issue #29, item 4): an episode or a snapshot exported as a file over the control
API and imported into a second host process (a real ``scaleenv serve``), with the same state
fingerprint, diff from the start state, reward and trace; every bad file refused with a clear
error and nothing created; the same state exports to byte-identical files; the CLI form."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import mcp
import pytest

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.episodes.episode_file import FORMAT_VERSION
from scaleenv_mcp.errors import DomainVersionError, EpisodeFileError, RequestTooLargeError, SnapshotNotFoundError
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import serving
from scaleenv_mcp.settings import HostSettings
from tests.support_processes import scaleenv_serve
from tests.unit.clients.library_tasks import library_master  # noqa: F401 - fixture

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("episode_files")]

SCALEENV = [sys.executable, "-m", "scaleenv_mcp"]
LIMIT = 256 * 1024  # the first host's request body limit (the 413 case)


@pytest.fixture(scope="module")
def second_host(library_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A real `scaleenv serve` process serving the same tiny_library: (control URL, token file)."""
    with scaleenv_serve(library_master, tmp_path_factory.mktemp("second-host")) as (_, control_url, token):
        yield control_url, token


@contextlib.asynccontextmanager
async def _first_host(library_master: Path, tmp_path: Path) -> AsyncIterator[tuple[Host, ControlClient]]:
    settings = HostSettings(workers=1, call_timeout=3.0, port=0, control_port=0, token_file=tmp_path / "token",
                            max_request_bytes=LIMIT)
    async with (Host.running(settings, [library_master]) as host, serving(host) as urls,
                ControlClient(urls.control_url, token_file=urls.token_path) as control):
        yield host, control


@pytest.fixture
async def hosts(library_master: Path, tmp_path: Path, second_host: tuple[str, Path]
                ) -> AsyncIterator[tuple[Host, ControlClient, ControlClient]]:
    """The first host (in process, over loopback HTTP) and a client of the second (another process)."""
    async with (_first_host(library_master, tmp_path) as (host, first),
                ControlClient(second_host[0], token_file=second_host[1]) as second):
        yield host, first, second


async def _played(host: Host, control: ControlClient) -> str:
    """An episode of the swap-solaris task after its two writes and one refused call."""
    info = (await control.create_episodes("tiny_library", "swap-solaris"))[0]
    assert (await host.call(info.id, "return_book", {"loan_id": "LN-00007"})).kind.value == "success"
    assert (await host.call(info.id, "return_book", {"loan_id": "LN-00007"})).kind.value == "tool_error"
    assert (await host.call(info.id, "borrow_book", {"member_id": "MEM-00001", "book_id": "BK-00002"})
            ).kind.value == "success"
    return info.id


async def _same_episode(a: ControlClient, a_id: str, b: ControlClient, b_id: str) -> None:
    assert await b.fingerprint(b_id) == await a.fingerprint(a_id)
    assert await b.diff(b_id) == await a.diff(a_id)
    assert await b.reward(b_id) == await a.reward(a_id)
    assert await b.tables(b_id) == await a.tables(a_id)


async def test_an_episode_exported_here_is_the_same_episode_on_a_second_host_process(
        hosts: tuple[Host, ControlClient, ControlClient]):
    host, first, second = hosts
    episode_id = await _played(host, first)
    data = await first.export_episode(episode_id)
    assert await first.export_episode(episode_id) == data  # deterministic: the same state, the same bytes
    imported = await second.import_episode(data)
    assert (imported.domain, imported.task_id, imported.calls) == ("tiny_library", "swap-solaris", 3)
    await _same_episode(first, episode_id, second, imported.id)
    assert (await first.reward(episode_id)).reward == 1.0
    assert await second.trace(imported.id) == await first.trace(episode_id)
    # the imported state round-trips to the very same file, and the episode is served to agents
    assert await second.export_episode(imported.id) == data
    async with mcp.Client(imported.agent_url) as agent:
        found = await agent.call_tool("find_books", {"text": "Dune"})
    assert not found.is_error
    assert len(await second.trace(imported.id)) == 4
    # change tracking came along: a diff between the two imported copies is empty
    again = await second.import_episode(data)
    assert (await second.diff(again.id, against=imported.id)).model_dump(exclude_none=True) == \
        (await first.diff(episode_id, against=episode_id)).model_dump(exclude_none=True)


async def test_a_snapshot_exported_here_restores_its_moment_on_a_second_host_process(
        hosts: tuple[Host, ControlClient, ControlClient]):
    host, first, second = hosts
    episode_id = await _played(host, first)
    snapshot_id = await first.snapshot(episode_id)
    at_snapshot = (await first.fingerprint(episode_id), await first.diff(episode_id), await first.reward(episode_id))
    await host.call(episode_id, "return_book", {"loan_id": "LN-00001"})  # moves on after the snapshot
    data = await first.export_snapshot(snapshot_id)
    assert await first.export_snapshot(snapshot_id) == data
    imported = await second.import_episode(data)
    assert (imported.task_id, imported.calls) == ("swap-solaris", 0)
    assert await second.trace(imported.id) == []  # a snapshot keeps no trace
    assert (await second.fingerprint(imported.id), await second.diff(imported.id),
            await second.reward(imported.id)) == at_snapshot
    with pytest.raises(SnapshotNotFoundError):
        await first.export_snapshot("snap-" + "0" * 32)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _rezip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return out.getvalue()


def _tampered(data: bytes, sql: str | None = None, state: bytes | None = None, **meta: Any) -> bytes:
    """The file with its manifest fields replaced, or its SQLite image changed by ``sql`` (the manifest's
    size and SHA-256 kept consistent, as an attacker would)."""
    import hashlib

    members = _members(data)
    manifest = json.loads(members["manifest.json"])
    if sql is not None:
        conn = sqlite3.connect(":memory:")
        conn.deserialize(members["state.sqlite"])
        conn.executescript(sql)
        state = conn.serialize()
        conn.close()
    if state is not None:
        members["state.sqlite"] = state
        manifest.update(state_bytes=len(state), state_sha256=hashlib.sha256(state).hexdigest())
    manifest.update(meta)
    members["manifest.json"] = json.dumps(manifest).encode()
    return _rezip(members)


def _corrupt_page(image: bytes, index: int) -> bytes:
    """``image`` with the cell pointers of its page ``index`` (0-based) overwritten."""
    page = int.from_bytes(image[16:18], "big")
    start = index * page + 8
    return image[:start] + b"\xff" * 192 + image[start + 192:]


async def test_every_bad_file_is_refused_with_its_reason_and_nothing_is_created(library_master: Path, tmp_path: Path):
    async with _first_host(library_master, tmp_path) as (host, control):
        episode_id = await _played(host, control)
        good = await control.export_episode(episode_id)
        served_hash = host.package("tiny_library").content_hash  # type: ignore[union-attr]
        middle = len(good) // 2
        cases: list[tuple[str, bytes, type[Exception], str | re.Pattern[str]]] = [
            ("not a zip", b"hello, world" * 10, EpisodeFileError, "not a readable episode file"),
            ("empty body", b"", EpisodeFileError, "not a readable episode file"),
            ("truncated", good[:middle], EpisodeFileError, "corrupted or truncated"),
            ("corrupted", good[:middle] + bytes([good[middle] ^ 0xFF]) + good[middle + 1:], EpisodeFileError, "not a readable episode file"),
            ("other format version", _tampered(good, format_version=FORMAT_VERSION + 1), EpisodeFileError,
             f"format version {FORMAT_VERSION + 1} is not supported: this host reads version {FORMAT_VERSION}"),
            ("other format", _tampered(good, format="something-else"), EpisodeFileError, "not a ScaleEnv episode file"),
            ("domain not served", _tampered(good, domain="nowhere"), EpisodeFileError,
             "of domain 'nowhere', not served here"),
            ("negative call count", _tampered(good, calls=-5), EpisodeFileError, "calls: Input should be greater"),
            ("over the call limit", _tampered(good, calls=10**9), EpisodeFileError, "over this host's limits"),
            ("unknown task", _tampered(good, task_id="no-such-task"), EpisodeFileError, "'no-such-task'"),
            ("other package hash", _tampered(good, domain_hash="f" * 64), DomainVersionError,
             f"its package hash is {'f' * 64}, this host serves {served_hash}"),
            ("image swapped, manifest not", _tampered(good, state_sha256="0" * 64), EpisodeFileError, "SHA-256"),
            ("not SQLite", _tampered(good, state=b"\0" * 4096), EpisodeFileError, "refused"),
            ("corrupt page", _tampered(good, state=_corrupt_page(_members(good)["state.sqlite"], 2)), EpisodeFileError,
             re.compile("refused: the SQLite image (fails integrity_check|cannot be read .* malformed)")),
            ("extra view", _tampered(good, "CREATE VIEW v AS SELECT 1;"), EpisodeFileError, "view v"),
            ("extra trigger", _tampered(good, "CREATE TRIGGER t AFTER INSERT ON books BEGIN SELECT 1; END;"),
             EpisodeFileError, "trigger t"),
            ("dropped tracking trigger", _tampered(good, "DROP TRIGGER _scaleenv_track_upd_books;"), EpisodeFileError,
             "missing"),
            ("extra table", _tampered(good, "CREATE TABLE loot (x INTEGER PRIMARY KEY);"), EpisodeFileError,
             "table loot"),
            ("change set that lies", _tampered(good, "DELETE FROM _scaleenv_changes;"), EpisodeFileError,
             "change-tracking table does not match its rows"),
            ("too large", b"x" * (LIMIT + 1), RequestTooLargeError, f"{LIMIT}-byte limit"),
        ]
        before = [e.id for e in await control.list_episodes()]
        for name, data, error, reason in cases:
            with pytest.raises(error, match=reason if isinstance(reason, re.Pattern) else re.escape(reason)) as refused:
                await control.import_episode(data)
            assert not any(leak in str(refused.value) for leak in ("Traceback", ".py", os.sep + "tmp")), name
            assert [e.id for e in await control.list_episodes()] == before, name
        # the package-hash refusal is lifted on purpose only; the image must still be this version's
        forced = await control.import_episode(_tampered(good, domain_hash="f" * 64), allow_other_version=True)
        assert await control.fingerprint(forced.id) == await control.fingerprint(episode_id)
        with pytest.raises(EpisodeFileError, match="view v"):
            await control.import_episode(_tampered(good, "CREATE VIEW v AS SELECT 1;", domain_hash="f" * 64),
                                         allow_other_version=True)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SCALEENV, "episodes", *args], capture_output=True, text=True, timeout=120)


async def test_the_cli_exports_and_imports_against_a_running_host(
        library_master: Path, tmp_path: Path, second_host: tuple[str, Path]):
    control_url, token = second_host
    common = ["--control-url", control_url, "--token-file", str(token), "--json"]
    async with ControlClient(control_url, token_file=token) as control:
        episode = (await control.create_episodes("tiny_library", "swap-solaris"))[0]
        snapshot_id = await control.snapshot(episode.id)
        out = tmp_path / "episode.zip"
        exported = _cli("export", episode.id, "--out", str(out), *common)
        assert exported.returncode == 0, exported.stderr
        assert json.loads(exported.stdout)["bytes"] == out.stat().st_size > 0
        assert out.read_bytes() == await control.export_episode(episode.id)
        snap = _cli("export", snapshot_id, "--out", str(tmp_path / "snap.zip"), *common)
        assert snap.returncode == 0, snap.stderr
        imported = _cli("import", str(out), *common)
        assert imported.returncode == 0, imported.stderr
        new_id = json.loads(imported.stdout)["id"]
        assert await control.fingerprint(new_id) == await control.fingerprint(episode.id)

        (tmp_path / "bad.zip").write_bytes(out.read_bytes()[:40])
        before = await control.list_episodes()
        bad = _cli("import", str(tmp_path / "bad.zip"), *common)
        assert bad.returncode == 2 and bad.stderr.startswith("error: ") and "Traceback" not in bad.stderr
        other = tmp_path / "other.zip"
        other.write_bytes(_tampered(out.read_bytes(), domain_hash="e" * 64))
        refused = _cli("import", str(other), *common)
        assert refused.returncode == 2 and "e" * 64 in refused.stderr.replace("\n", "")
        assert await control.list_episodes() == before
        assert _cli("import", str(other), "--force", *common).returncode == 0
        unknown = _cli("export", "nope", "--out", str(tmp_path / "x.zip"), *common)
        assert unknown.returncode == 3 and not (tmp_path / "x.zip").exists()
