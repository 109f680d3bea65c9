"""ScaleEnv MCP: clients layer (see docs/architecture.md and docs/eval.md).

Evaluate any agent over MCP with a simulated user (``run_eval``, ``scaleenv eval``),
re-score a run from its traces (``regrade_run``), and drive episodes from RL code
(``ScaleEnvGym``, ``SyncScaleEnvGym``). Names resolve lazily, so importing the package (as
the ``scaleenv`` entry point does) loads neither openai nor the MCP client.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = ["EvalConfig", "ScaleEnvGym", "SyncScaleEnvGym", "regrade_run", "run_eval"]

_HOME = {"EvalConfig": "scaleenv_mcp.clients.results", "ScaleEnvGym": "scaleenv_mcp.clients.gym", "SyncScaleEnvGym": "scaleenv_mcp.clients.gym",
         "regrade_run": "scaleenv_mcp.clients.regrade", "run_eval": "scaleenv_mcp.clients.runner"}


def __getattr__(name: str) -> Any:
    if name in _HOME:
        return getattr(import_module(_HOME[name]), name)
    raise AttributeError(f"module 'clients' has no attribute {name!r}")
