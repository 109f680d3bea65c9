"""What the framework examples share: their command line, the no-host-import check, the report.

Standard library only: the examples run in the frameworks' own virtual environments, where this
project is not installed (tests/support_frameworks.py builds them).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

__all__ = ["parser", "print_report", "require_no_host_import"]

HOST_PACKAGES = {"scaleenv_mcp", "verifier", "generator"}


def parser(description: str) -> argparse.ArgumentParser:
    """--url, --control-url, --token-file, --domains, --tasks-per-domain, --policy, --seed."""
    found = argparse.ArgumentParser(description=description)
    found.add_argument("--url", default="http://127.0.0.1:8765", help="the agent listener of `scaleenv serve`")
    found.add_argument("--control-url", default="http://127.0.0.1:8766", help="its control API")
    found.add_argument("--token-file", required=True, help="the control token file `scaleenv serve` wrote")
    found.add_argument("--domains", nargs="+", default=["smart_home"])
    found.add_argument("--tasks-per-domain", type=int, default=5)
    found.add_argument("--policy", choices=["oracle", "random"], default="oracle")
    found.add_argument("--seed", type=int, default=0)
    return found


def require_no_host_import() -> None:
    """Fail the run if anything pulled in this project's host: the adapters must talk HTTP only."""
    loaded = sorted({name.split(".")[0] for name in sys.modules} & HOST_PACKAGES)
    if loaded:
        raise SystemExit(f"the adapter imported {', '.join(loaded)}: adapters must talk to the host over HTTP only")


def print_report(policy: str, rewards: dict[str, float], extra: dict[str, object] | None = None) -> None:
    """One JSON line: the policy, each task's reward and their mean (what the tests read)."""
    values: Sequence[float] = list(rewards.values())
    mean = sum(values) / len(values) if values else 0.0
    print(json.dumps({"policy": policy, "rewards": rewards, "mean": mean, **(extra or {})}))
