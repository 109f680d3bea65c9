"""``scaleenv bench --only stall``: how long a runaway call stalls its co-located episodes (issue #29 item 5),
measured by scaleenv_mcp/soak/stall.py on the fixture domain, rendered for BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scaleenv_mcp.soak.report import stall_table
from scaleenv_mcp.soak.stall import measure_stall

__all__ = ["bench_stall", "render_stall"]

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "domains"


def bench_stall(state_dir: Path, rounds: int = 3) -> dict[str, Any]:
    return measure_stall(FIXTURES, state_dir, rounds)


def render_stall(stall: dict[str, Any], measured: dict[str, Any] | None = None) -> list[str]:
    lines = ["", "## A runaway's co-located episodes (#29 item 5)", "",
             f"`scaleenv bench --only stall`: two hosts of 2 workers, call budget {stall['call_timeout_s']:g} s, a "
             f"runaway call and two bystander episodes on one worker; medians of {stall['rounds']} alternating rounds.",
             ""] + stall_table(stall)
    if measured:
        lines += ["", f"(Measured at commit `{measured['commit'][:12]}`, load average at start "
                      f"{', '.join(f'{x:.1f}' for x in measured['load_average'])}.)"]
    return lines
