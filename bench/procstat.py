"""CPU seconds of a process and its children, read from /proc (Linux), for server-CPU-per-call."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["process_cpu", "process_tree_cpu", "rss_kb"]

_TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def process_cpu(pid: int) -> float:
    """utime + stime of ``pid`` alone, seconds (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def process_tree_cpu(pid: int) -> float:
    """utime + stime of ``pid`` and every live descendant, seconds."""
    total, stack = 0.0, [pid]
    while stack:
        current = stack.pop()
        total += process_cpu(current)
        stack += _children(current)
    return total


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0
