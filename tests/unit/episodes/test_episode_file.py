"""The episode file format (episodes/episode_file.py) on its own: deterministic bytes, a round trip,
and the limits checked by each member's declared size before anything is decompressed."""

from __future__ import annotations

import io
import zipfile

import pytest

from scaleenv_mcp.episodes.episode_file import FORMAT_VERSION, pack_episode_file, read_episode_file
from scaleenv_mcp.episodes.trace import OutcomeKind, TraceRecord
from scaleenv_mcp.errors import EpisodeFileError

TRACE = [TraceRecord(index=0, tool="find_books", arguments={"text": "Dune"}, outcome=OutcomeKind.success,
                     result={"books": []}, duration_ms=1.5)]


def _pack(state: bytes = b"state" * 100) -> bytes:
    return pack_episode_file("episode", "tiny_library", "a" * 64, "task-1", 1, state, TRACE)


def test_the_same_content_packs_to_the_same_bytes_and_reads_back():
    data = _pack()
    assert _pack() == data
    read = read_episode_file(data, max_state_bytes=10_000, max_trace_bytes=10_000)
    assert (read.meta.format_version, read.meta.domain, read.meta.task_id, read.meta.calls) == \
        (FORMAT_VERSION, "tiny_library", "task-1", 1)
    assert read.state == b"state" * 100 and read.trace == TRACE
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert [i.filename for i in archive.infolist()] == ["manifest.json", "state.sqlite", "trace.json"]
        assert {i.date_time for i in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def test_a_member_over_its_limit_is_refused_by_its_declared_size():
    bomb = _pack(b"\0" * 5_000_000)  # deflates to a few kilobytes
    assert len(bomb) < 20_000
    with pytest.raises(EpisodeFileError, match="state.sqlite is 5000000 bytes, over this host's 1000000-byte limit"):
        read_episode_file(bomb, max_state_bytes=1_000_000, max_trace_bytes=10_000)


def test_an_extra_member_is_refused():
    out = io.BytesIO(_pack())
    with zipfile.ZipFile(out, "a") as archive:
        archive.writestr("extra.txt", "hi")
    with pytest.raises(EpisodeFileError, match="its members are"):
        read_episode_file(out.getvalue(), max_state_bytes=10_000, max_trace_bytes=10_000)


def test_a_member_compressed_by_a_method_zipfile_cannot_read_is_one_clear_refusal():
    """zipfile raises NotImplementedError for such a member; the reader turns it into EpisodeFileError."""
    data = bytearray(_pack())
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):  # local headers, central directory
        start = data.find(signature)
        while start != -1:
            data[start + offset:start + offset + 2] = (99).to_bytes(2, "little")  # 99: AES, not in zipfile
            start = data.find(signature, start + 4)
    with pytest.raises(EpisodeFileError, match="not a readable episode file"):
        read_episode_file(bytes(data), max_state_bytes=10_000, max_trace_bytes=10_000)
