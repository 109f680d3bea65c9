"""Fingerprint and diff from change sets (issue #32) against the full scan and against tau2's method.

For start states of about 143 KB, 1.2 MB and 12.5 MB (bench/sized_domain.py: one table whose
seed is N copies of a row shape) and 1, 10 and 100 changed rows, each round opens a fresh
episode on an in-process worker (the worker's own cost, no pipe), changes k rows through the
tool, then times: the fingerprint and the diff from the start state read from the change set,
the same two by the reference full scan, and tau2-bench's state hash (sha256 of the canonical
JSON of the same data, already in Python memory as tau2 keeps it). Medians over rounds; the
ratios are against that hash measured in the same run. The tracking's per-call cost is a
one-row write call on a tracked episode against the same call on an episode whose triggers
were dropped.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.sized_domain import write_sized_domain
from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.episodes.domain_runtime import DomainRuntime
from scaleenv_mcp.workers.protocol import OK
from scaleenv_mcp.workers.worker import Worker

__all__ = ["bench_state_tracking", "render_state_tracking"]

SIZES = (100_000, 1_000_000, 10_000_000)
CHANGED = (1, 10, 100)


def _ok(worker: Worker, *message: Any) -> Any:
    status, payload = worker.handle(message)
    if status != OK:
        raise RuntimeError(f"{message[0]} failed: {payload}")
    return payload


def _timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def _tau2_hash_ms(worker: Worker, episode: str, repeat: int) -> float:
    """tau2-bench's ``get_hash``: sha256 of ``json.dumps(db, sort_keys=True)`` of the in-memory data."""
    data = {name: [dict(zip(table["columns"], row)) for row in table["rows"]]
            for name, table in _ok(worker, "dump", episode, None).items()}
    return statistics.median(_timed(lambda: hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest())
                             for _ in range(repeat))


def _one_size(folder: Path, size: int, rounds: int) -> list[dict[str, Any]]:
    package = load_domain(write_sized_domain(folder, size))
    runtime = DomainRuntime(package)
    worker = Worker()
    content = runtime.bundle.content_hash
    _ok(worker, "domain", runtime.bundle)
    _ok(worker, "open", "warm", content, "", [], None, [])
    _ok(worker, "fingerprint", "warm")  # reads the seed state once (the cached start state)
    state_bytes = _ok(worker, "size", "warm")
    full_repeat = 3 if size > 1_000_000 else 5
    tau2 = _tau2_hash_ms(worker, "warm", full_repeat)
    rows = []
    for changed in CHANGED:
        timings: dict[str, list[float]] = {k: [] for k in ("fp", "diff", "fp_full", "diff_full")}
        for r in range(rounds):
            episode = f"e{changed}-{r}"
            _ok(worker, "open", episode, content, "", [], None, [])
            for i in range(changed):
                _ok(worker, "call", episode, "update_item", {"item_id": f"ITM-{1 + i * 7 + r:07d}", "amount": 1000.0 + r})
            for _ in range(5):
                timings["fp"].append(_timed(lambda: _ok(worker, "fingerprint", episode)))
                timings["diff"].append(_timed(lambda: _ok(worker, "diff", episode, None, None)))
            timings["fp_full"].append(_timed(lambda: _ok(worker, "fingerprint", episode, True)))
            timings["diff_full"].append(_timed(lambda: _ok(worker, "diff", episode, None, None, True)))
            if _ok(worker, "fingerprint", episode) != _ok(worker, "fingerprint", episode, True):
                raise RuntimeError("incremental fingerprint differs from the full scan")
            _ok(worker, "close", episode)
        fp, diff = _median(timings["fp"]), _median(timings["diff"])
        rows.append({"state_bytes": state_bytes, "changed_rows": changed, "rounds": rounds,
                     "fingerprint_ms": fp, "diff_ms": diff, "fingerprint_full_ms": _median(timings["fp_full"]),
                     "diff_full_ms": _median(timings["diff_full"]), "tau2_hash_ms": round(tau2, 3),
                     "tau2_hash_vs_fingerprint": round(tau2 / fp, 1), "full_vs_fingerprint": round(_median(timings["fp_full"]) / fp, 1)})
    rows[0]["call_overhead"] = _call_overhead(worker, content, rounds)
    return rows


def _call_overhead(worker: Worker, content: str, rounds: int, calls: int = 300) -> dict[str, float]:
    """Median one-row write and read calls, with the triggers and without (dropped on a second episode)."""
    _ok(worker, "open", "tracked", content, "", [], None, [])
    _ok(worker, "open", "bare", content, "", [], None, [])
    bare = worker.episodes["bare"]
    worker._trusted(bare, lambda: [bare.conn.execute(f'DROP TRIGGER "{name}"') for (name,) in bare.conn.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'trigger'").fetchall()])
    out: dict[str, list[float]] = {"write_tracked": [], "write_bare": [], "read_tracked": [], "read_bare": []}
    for _ in range(rounds):
        for i in range(calls):
            for label in ("tracked", "bare"):
                args = {"item_id": f"ITM-{1 + i:07d}", "amount": float(i)}
                out[f"write_{label}"].append(_timed(lambda: _ok(worker, "call", label, "update_item", args)))
                out[f"read_{label}"].append(_timed(lambda: _ok(worker, "call", label, "get_item", {"item_id": args["item_id"]})))
    result = {k: round(statistics.median(v) * 1000, 1) for k, v in out.items()}  # microseconds
    result["write_overhead_us"] = round(result["write_tracked"] - result["write_bare"], 1)
    result["write_overhead_ratio"] = round(result["write_tracked"] / result["write_bare"], 2)
    return result


def bench_state_tracking(work: Path, quick: bool = False) -> dict[str, Any]:
    rows = []
    for size in SIZES[:2] if quick else SIZES:
        rows += _one_size(work / f"track{size}", size, 3 if quick or size > 1_000_000 else 5)
    return {"rows": rows}


def render_state_tracking(section: dict[str, Any]) -> list[str]:
    lines = ["", "## Fingerprint and diff from change sets", "",
             "In-process worker, sized one-table domain; medians of the rounds shown. `tau2 hash` is sha256 of the "
             "canonical JSON of the same data already in memory (tau2-bench's method), measured in the same run.", "",
             "| state | changed rows | rounds | fingerprint ms | diff ms | full-scan fingerprint ms | full-scan diff ms | "
             "tau2 hash ms | tau2 hash / fingerprint | full / fingerprint |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for row in section["rows"]:
        lines.append(f"| {row['state_bytes'] / 1e6:.3g} MB | {row['changed_rows']} | {row['rounds']} | {row['fingerprint_ms']} | "
                     f"{row['diff_ms']} | {row['fingerprint_full_ms']} | {row['diff_full_ms']} | {row['tau2_hash_ms']} | "
                     f"{row['tau2_hash_vs_fingerprint']}x | {row['full_vs_fingerprint']}x |")
    lines += ["", "Tracking cost per tool call (one-row `update_item` write, `get_item` read), median microseconds:", "",
              "| state | write tracked | write untracked | overhead | read tracked | read untracked |",
              "| --- | --- | --- | --- | --- | --- |"]
    for row in section["rows"]:
        cost = row.get("call_overhead")
        if cost:
            lines.append(f"| {row['state_bytes'] / 1e6:.3g} MB | {cost['write_tracked']} | {cost['write_bare']} | "
                         f"{cost['write_overhead_us']} us ({cost['write_overhead_ratio']}x) | {cost['read_tracked']} | "
                         f"{cost['read_bare']} |")
    return lines
