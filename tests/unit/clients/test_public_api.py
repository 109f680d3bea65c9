"""The clients' public surface is small and pinned; importing the package loads neither openai nor MCP."""

from __future__ import annotations

import subprocess
import sys


def test_public_api_is_pinned():
    import clients
    from clients import gym, models

    assert clients.__all__ == ["EvalConfig", "ScaleEnvGym", "SyncScaleEnvGym", "regrade_run", "run_eval"]
    assert all(getattr(clients, name) for name in clients.__all__)
    assert gym.__all__ == ["ScaleEnvGym", "SyncScaleEnvGym"]
    assert {"ToolCallAction", "MessageAction", "Observation", "InfraError", "EpisodeRecord"} <= set(models.__all__)


def test_importing_the_package_and_its_cli_stays_light():
    code = ("import sys, clients, clients.cli; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'mcp', 'generator', 'uvicorn'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
