"""Durable snapshots: an episode or a snapshot as one file, and back (issue #29, item 4).

Format: a ZIP archive of three members, always in this order and nothing else:

- ``manifest.json``: ``{"format": "scaleenv-episode", "format_version": 1, "kind": "episode" | "snapshot",
  "domain", "domain_hash", "task_id", "calls", "state_bytes", "state_sha256", "trace_records"}``;
- ``state.sqlite``: the episode database exactly as a snapshot holds it (``sqlite3.serialize``). It
  carries the change-tracking table and triggers (``state.tracking``), so fingerprints and diffs of
  the imported episode come from its change set as they do after a restore;
- ``trace.json``: the trace records (``[]`` for a snapshot: a snapshot keeps no trace).

Why a ZIP and not one JSON document with base64: the SQLite image is most of the file and is
mostly empty pages, so deflate makes it several times smaller, where base64 would make it a third
larger; each member has a CRC-32 the reader checks, so a corrupted or truncated file is refused,
not half read; and ``unzip`` plus ``sqlite3 state.sqlite`` let a person inspect it with stock tools.

Deterministic: the same state (and trace) exports to byte-identical files. Member timestamps are
fixed at 1980-01-01, JSON is written with sorted keys, and the file holds no export time or host
name. (Deflate's output is fixed for one zlib build; a different zlib could compress differently,
the content read back is the same.)

Not carried: the episode id (an import is a new episode), the call-id ledger (retries of calls made
before the export are not recognised after it), snapshots taken of the episode, its keyed URL, idle
timeout and the host's settings.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
import zlib
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.errors import EpisodeFileError

__all__ = ["FORMAT", "FORMAT_VERSION", "EpisodeFile", "EpisodeFileMeta", "pack_episode_file", "read_episode_file"]

FORMAT: Literal["scaleenv-episode"] = "scaleenv-episode"
FORMAT_VERSION = 1
_MEMBERS = ("manifest.json", "state.sqlite", "trace.json")
_FIXED_TIME = (1980, 1, 1, 0, 0, 0)
_MANIFEST_BYTES = 64 * 1024
_TRACE = TypeAdapter(list[TraceRecord])


class EpisodeFileMeta(BaseModel):
    """``manifest.json`` of an episode file."""

    format: Literal["scaleenv-episode"] = FORMAT
    format_version: int = FORMAT_VERSION
    kind: Literal["episode", "snapshot"]
    domain: str
    domain_hash: str
    task_id: str | None
    calls: int = Field(ge=0)
    state_bytes: int = Field(ge=0)
    state_sha256: str
    trace_records: int = Field(ge=0)


@dataclass(frozen=True)
class EpisodeFile:
    meta: EpisodeFileMeta
    state: bytes
    trace: list[TraceRecord]


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def pack_episode_file(kind: Literal["episode", "snapshot"], domain: str, domain_hash: str, task_id: str | None,
                      calls: int, state: bytes, trace: list[TraceRecord]) -> bytes:
    """The file's bytes (deterministic: the same arguments give the same bytes)."""
    meta = EpisodeFileMeta(kind=kind, domain=domain, domain_hash=domain_hash, task_id=task_id, calls=calls,
                           state_bytes=len(state), state_sha256=hashlib.sha256(state).hexdigest(),
                           trace_records=len(trace))
    contents = (_json(meta.model_dump(mode="json")), state, _json([r.model_dump(mode="json") for r in trace]))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in zip(_MEMBERS, contents):
            info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, whatever the exporting OS
            info.external_attr = 0o644 << 16
            archive.writestr(info, data, compresslevel=6)
    return out.getvalue()


def read_episode_file(data: bytes, max_state_bytes: int, max_trace_bytes: int) -> EpisodeFile:
    """Parse and check a file; the SQLite image itself is validated by the worker that will hold it.

    Raises:
        EpisodeFileError: not such a file, another format version, corrupted, truncated, or a member
            over its limit (checked by the declared size before anything is decompressed).
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            infos = archive.infolist()
            if tuple(i.filename for i in infos) != _MEMBERS:
                raise EpisodeFileError(f"not a ScaleEnv episode file: its members are "
                                       f"{[i.filename for i in infos][:5]}, expected {list(_MEMBERS)}")
            for info, limit in zip(infos, (_MANIFEST_BYTES, max_state_bytes, max_trace_bytes)):
                if info.file_size > limit:
                    raise EpisodeFileError(f"episode file member {info.filename} is {info.file_size} bytes, "
                                           f"over this host's {limit}-byte limit")
            raw_meta = json.loads(archive.read("manifest.json"))
            _check_version(raw_meta)
            meta = EpisodeFileMeta.model_validate(raw_meta)
            state = archive.read("state.sqlite")
            trace = _TRACE.validate_json(archive.read("trace.json"))
    except EpisodeFileError:
        raise
    # NotImplementedError: zipfile's answer to a member compressed by a method it does not support
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError) as exc:
        raise EpisodeFileError(f"not a readable episode file (corrupted or truncated?): {exc}") from None
    except (ValueError, ValidationError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        detail = f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}" if first else str(exc)[:200]
        raise EpisodeFileError(f"episode file has a malformed member: {detail}") from None
    if len(state) != meta.state_bytes or hashlib.sha256(state).hexdigest() != meta.state_sha256:
        raise EpisodeFileError("episode file's SQLite image does not match the size and SHA-256 its manifest records")
    if len(trace) != meta.trace_records:
        raise EpisodeFileError(f"episode file's trace has {len(trace)} records, its manifest says {meta.trace_records}")
    return EpisodeFile(meta, state, trace)


def _check_version(raw: Any) -> None:
    """Refuse another format, or another version of this one, with a message naming both."""
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        found = raw.get("format") if isinstance(raw, dict) else type(raw).__name__
        raise EpisodeFileError(f"not a ScaleEnv episode file (format {found!r}, expected {FORMAT!r})")
    if raw.get("format_version") != FORMAT_VERSION:
        raise EpisodeFileError(f"episode file format version {raw.get('format_version')!r} is not supported: "
                               f"this host reads version {FORMAT_VERSION}")
