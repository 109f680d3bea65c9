"""Time to verdict of validation on hostile packages (issue #30: rejected in seconds, not half an hour).

Three copies of the fixture domain (tests/support_hostile.py, the same edits the tests use):
every tool loops forever, every tool recurses without end, tools.py runs a CPU bomb at
import. Each is validated as ``scaleenv validate`` does by default (2 workers, 5 s per case,
determinism and mutation on, default whole-run budget) and as the serving gate does (1
worker, no mutation, stopping at the first runaway tool); the verdict must be a refusal
with the right reason, and the seconds to it are what is reported.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scaleenv_mcp.procedural.cache import ValidationCache
from scaleenv_mcp.procedural.validate import validate_domain

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "domains" / "tiny_library"
KINDS = ("loop", "recurse", "import_cpu_bomb")
#: how validation runs in each mode: the CLI's defaults, and the host's serving gate
MODES = {"validate": {"workers": 2, "mutation": True, "determinism": True},
         "serving gate": {"workers": 1, "mutation": False, "determinism": True, "stop_on_runaway": True}}


def bench_hostile() -> list[dict[str, Any]]:
    """One row per hostile kind and mode: seconds to the verdict, the verdict, the reason."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.support_hostile import hostile_copy

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for kind in KINDS:
            package = hostile_copy(FIXTURE, Path(scratch) / kind / FIXTURE.name, kind)
            for mode, options in MODES.items():
                started = time.perf_counter()
                report = asyncio.run(validate_domain(package, timeout=5.0, cache=ValidationCache(Path(scratch) / "state"),
                                                     **options))  # type: ignore[arg-type]
                seconds = time.perf_counter() - started
                rows.append({"package": kind, "mode": mode, "seconds_to_verdict": round(seconds, 1),
                             "servable": report.servable, "reason": report.runaway, "cases": report.cases,
                             "cases_run": report.cases - len(report.skipped), "skipped": len(report.skipped)})
    return rows


def render_hostile(rows: list[dict[str, Any]]) -> list[str]:
    """The Markdown section of BENCHMARKS.md."""
    lines = ["", "## Validation of hostile packages", "",
             "The fixture domain (6 tools, 21 cases) with every tool looping, every tool recursing, or a CPU bomb "
             "at import; `validate` = the CLI's defaults (2 workers, 5 s per case, determinism and mutation on), "
             "`serving gate` = the host's (1 worker, stops at the first runaway tool). Target: refused in under 30 s.",
             "", "| package | mode | seconds to verdict | servable | cases run / skipped | reason |",
             "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        reason = (row["reason"] or "").replace("|", "/")
        lines.append(f"| {row['package']} | {row['mode']} | {row['seconds_to_verdict']} | {row['servable']} | "
                     f"{row['cases_run']} / {row['skipped']} | {reason[:160]} |")
    return lines
