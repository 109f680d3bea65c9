"""The run folder of an eval: what is finished, the traces, the results.

    run.json        the run's config and stamps (models, host version, task-set hash)
    traces.jsonl    one EpisodeTrace per line: every message and tool call with timings
    episodes.jsonl  one EpisodeRecord per line; a record marks its episode finished
    results.json    metrics under stable keys (avg@k, pass@k, pass^k), per domain and overall

An episode's trace is appended before its record, each as one write, flushed and synced,
so a killed run loses at most the episodes in flight; a torn last line is cut off when the
run resumes. When a key appears twice (an infrastructure failure retried by --resume) the
last line wins. This module must not decide what to run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeTrace

__all__ = ["RunStore"]

M = TypeVar("M", bound=BaseModel)


def _repair_tail(path: Path) -> None:
    """Cut a torn last line (a kill mid-write) so the next append starts on a fresh line."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        data = handle.read()
        if data.endswith(b"\n"):
            return
        handle.truncate(data.rfind(b"\n") + 1)


def _read_lines(path: Path, model: type[M]) -> list[M]:
    if not path.exists():
        return []
    items = []
    for line in path.read_text().splitlines():
        try:
            items.append(model.model_validate_json(line))
        except ValidationError:
            continue  # a torn line from a killed run: that episode was not finished
    return items


class RunStore:
    def __init__(self, out: Path) -> None:
        self.out = Path(out)
        self.records_path = self.out / "episodes.jsonl"
        self.traces_path = self.out / "traces.jsonl"
        self.results_path = self.out / "results.json"
        self.run_path = self.out / "run.json"

    def has_run(self) -> bool:
        return self.records_path.exists() or self.run_path.exists()

    def prepare(self) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        _repair_tail(self.traces_path)
        _repair_tail(self.records_path)

    def records(self) -> dict[str, EpisodeRecord]:
        return {r.key: r for r in _read_lines(self.records_path, EpisodeRecord)}

    def traces(self) -> dict[str, EpisodeTrace]:
        return {t.key: t for t in _read_lines(self.traces_path, EpisodeTrace)}

    def append(self, record: EpisodeRecord, trace: EpisodeTrace) -> None:
        for path, model in ((self.traces_path, trace), (self.records_path, record)):
            with path.open("a") as handle:
                handle.write(model.model_dump_json() + "\n")
                handle.flush()
                os.fsync(handle.fileno())

    def rewrite_records(self, records: list[EpisodeRecord]) -> None:
        self._atomic(self.records_path, "".join(r.model_dump_json() + "\n" for r in records))

    def write_json(self, path: Path, model: BaseModel) -> None:
        self._atomic(path, json.dumps(model.model_dump(mode="json", by_alias=True), indent=2, ensure_ascii=False) + "\n")

    def read_json(self, path: Path, model: type[M]) -> M | None:
        try:
            return model.model_validate_json(path.read_text())
        except (OSError, ValidationError):
            return None

    @staticmethod
    def _atomic(path: Path, text: str) -> None:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(tmp, path)
