"""Cassettes: every request of a recorded run and the answer it got, replayable offline.

A cassette is a folder (``generator/recordings/<slug>/``) with ``cassette.json`` (what
answered, named as what it was, and the ``scaleenv generate`` settings of the run) and
``answers.jsonl``: one line per request in the order answered, holding the request key,
its role, stage and marker (the ``TOOL:``/``TABLE:`` line), and the reply exactly as the
endpoint sent it (text verbatim, finish reason, forced tool call arguments, usage).

The key is a SHA-256 of what decides an answer (messages, response_format, tools,
tool_choice, max_tokens, temperature, seed; not the model name, which the cassette names
once), computed the same way from a chat-completions request body (the relay, recording)
and from the request the generator's client is about to send (``scaleenv generate
--replay``), so a replayed run gets the same bytes its recording got, and a request whose
prompt changed by one character misses, which ``CassetteMissError`` says in one line.

This module stores JSON and computes keys: it knows no HTTP and no stage.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.errors import HarnessError, UsageError
from scaleenv_mcp.generator.store import atomic_write_text, content_key

__all__ = ["Cassette", "CassetteEntry", "CassetteMeta", "CassetteMissError", "count_tokens", "request_key",
           "request_marker"]

#: The request fields that decide an answer (the model name is the cassette's, once).
_MARKER = re.compile(r"^(?:TOOL|TABLE): \S+$", re.MULTILINE)
KEY_FIELDS = ("messages", "response_format", "tools", "tool_choice", "max_tokens", "temperature", "seed")


def request_key(request: dict[str, Any]) -> str:
    """The key of a chat-completions request (an HTTP body, or the dict the client sends)."""
    fields = {name: request[name] for name in KEY_FIELDS if request.get(name) is not None}
    if "temperature" in fields:
        fields["temperature"] = float(fields["temperature"])
    return content_key("cassette/v1", fields)


def request_marker(messages: list[dict[str, Any]]) -> str | None:
    """The ``TOOL: x`` or ``TABLE: x`` line of the first user message (which tool or table a request is about)."""
    first = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
    found = _MARKER.search(first)
    return found.group(0) if found else None


def count_tokens(text: str) -> int:
    """Tokens of ``text`` as the relay counts them: one per 4 characters, rounded up (no
    tokenizer is installed here; the paper's costs are per-model tokenizer counts, so read
    the relay's numbers as estimates within about 20% for English and JSON)."""
    return (len(text) + 3) // 4


class CassetteMissError(HarnessError):
    """A replayed run sent a request the cassette does not hold: the prompts (or settings) changed."""

    code = "cassette_miss"


class CassetteEntry(BaseModel):
    """One request's reply as the endpoint sent it."""

    key: str
    role: str
    stage: str = ""
    marker: str | None = None
    text: str = Field(description="The reply's text, verbatim (malformed or not).")
    finish_reason: str = "stop"
    tool_arguments: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def record(self) -> dict[str, Any]:
        """The reply as the generator's client stores it (generator/llm.py)."""
        return {"text": self.text, "finish_reason": self.finish_reason, "tool_arguments": self.tool_arguments,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


class CassetteMeta(BaseModel):
    """What answered and how the run was asked."""

    model: str = Field(description="What answered, named as what it was.")
    answered_by: str = Field(default="", description="How: through the relay by hand, a hosted API...")
    generate_args: list[str] = Field(default_factory=list, description="The scaleenv generate arguments.")
    notes: str = ""


class Cassette:
    """A cassette folder, read whole at open; ``add`` appends (thread-safe, one fsync per line)."""

    def __init__(self, folder: Path, meta: CassetteMeta, entries: dict[str, CassetteEntry]) -> None:
        self.folder = Path(folder)
        self.meta = meta
        self.entries = entries
        self.hits: set[str] = set()  # keys a replay asked for (``keep_only`` drops the rest)
        self._lock = threading.Lock()

    @classmethod
    def open(cls, folder: Path) -> Cassette:
        """Read a recorded cassette.

        Raises:
            UsageError: no cassette there, or it is damaged.
        """
        folder = Path(folder)
        try:
            meta = CassetteMeta.model_validate_json((folder / "cassette.json").read_text())
            lines = (folder / "answers.jsonl").read_text().splitlines() if (folder / "answers.jsonl").exists() else []
            entries = {}
            for line in lines:
                if line.strip():
                    entry = CassetteEntry.model_validate_json(line)
                    entries.setdefault(entry.key, entry)
        except (OSError, ValueError) as error:
            raise UsageError(f"--replay {folder}: not a readable cassette ({error})") from error
        return cls(folder, meta, entries)

    @classmethod
    def create(cls, folder: Path, meta: CassetteMeta) -> Cassette:
        """Open the cassette at ``folder`` for recording, keeping what it already holds (a resumed run)."""
        folder = Path(folder)
        if (folder / "cassette.json").exists():
            existing = cls.open(folder)
            existing.meta = meta.model_copy(update={"generate_args": meta.generate_args or existing.meta.generate_args,
                                                    "notes": meta.notes or existing.meta.notes})
            atomic_write_text(folder / "cassette.json", existing.meta.model_dump_json(indent=1) + "\n")
            return existing
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(folder / "cassette.json", meta.model_dump_json(indent=1) + "\n")
        return cls(folder, meta, {})

    def get(self, key: str) -> CassetteEntry | None:
        if key in self.entries:
            self.hits.add(key)
        return self.entries.get(key)

    def keep_only(self, keys: set[str]) -> int:
        """Rewrite the cassette with the entries of ``keys`` only, in recorded order (after a prompt fix, the
        replies to prompts no run sends any more); returns how many were dropped."""
        with self._lock:
            kept = {k: e for k, e in self.entries.items() if k in keys}
            dropped, self.entries = len(self.entries) - len(kept), kept
            atomic_write_text(self.folder / "answers.jsonl", "".join(
                json.dumps(e.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n" for e in kept.values()))
        return dropped

    def add(self, entry: CassetteEntry) -> None:
        """Record one reply (a key already held is kept as first recorded)."""
        with self._lock:
            if entry.key in self.entries:
                return
            self.entries[entry.key] = entry
            line = json.dumps(entry.model_dump(mode="json"), ensure_ascii=False, sort_keys=True) + "\n"
            with open(self.folder / "answers.jsonl", "a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())

    def miss(self, role: str, stage: str, marker: str | None) -> CassetteMissError:
        """The one-line error of a request the cassette does not hold."""
        about = f"role {role}, stage {stage}" + (f", {marker}" if marker else "")
        return CassetteMissError(f"the cassette {self.folder} holds no answer for a request ({about}): the prompts "
                                 "changed: re-record (scaleenv relay --record, docs/generator.md)")
