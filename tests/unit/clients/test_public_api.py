"""The clients' public surface is small and pinned; importing the package loads neither openai nor MCP."""

from __future__ import annotations

import subprocess
import sys


def test_public_api_is_pinned():
    from scaleenv_mcp import clients
    from scaleenv_mcp.clients import gym, models

    assert clients.__all__ == ["EvalConfig", "ScaleEnvGym", "SyncScaleEnvGym", "regrade_run", "run_eval"]
    assert all(getattr(clients, name) for name in clients.__all__)
    assert gym.__all__ == ["ScaleEnvGym", "SyncScaleEnvGym"]
    assert {"ToolCallAction", "MessageAction", "Observation", "InfraError", "EpisodeRecord"} <= set(models.__all__)


def test_importing_the_package_and_its_cli_stays_light():
    code = ("import sys, scaleenv_mcp.clients, scaleenv_mcp.clients.cli; print(sorted(n for n in "
            "('openai', 'mcp', 'scaleenv_mcp.generator', 'uvicorn') if any(m == n or m.startswith(n + '.') for m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# What each adapter module (and its example) may import besides the standard library and
# scaleenv_mcp.clients.adapters: its framework and httpx, never the host (they run where it is not installed).
ADAPTER_IMPORTS = {
    "clients/adapters/__init__.py": set(),
    "clients/adapters/schema_values.py": set(),
    "clients/adapters/policies.py": set(),
    "clients/adapters/scripted_user.py": set(),
    "clients/adapters/remote.py": {"httpx"},
    "clients/adapters/verifiers_env.py": {"verifiers", "pydantic", "mcp"},
    "clients/adapters/openenv_env.py": {"openenv", "pydantic"},
    "clients/adapters/nemo_gym_server.py": {"nemo_gym", "fastapi", "pydantic"},
    "clients/examples/adapter_cli.py": {"uvicorn"},
    "clients/examples/langchain_keyed.py": {"langchain_mcp_adapters"},
    "clients/adapters/verifiers_plugin/scaleenv_verifiers.py": set(),
    "clients/examples/verifiers_rollout.py": {"verifiers"},
    "clients/examples/verifiers_eval.py": set(),
    "clients/examples/policy_model.py": set(),
    "clients/examples/openenv_rollout.py": {"openenv"},
    "clients/examples/nemo_gym_rollout.py": {"nemo_gym", "omegaconf", "httpx"},
}


def test_adapters_import_only_their_framework_httpx_and_each_other():
    import ast
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    assert {str(p.relative_to(repo)) for p in (repo / "clients" / "adapters").glob("*.py")} <= set(ADAPTER_IMPORTS)
    offenders = []
    for path, allowed in ADAPTER_IMPORTS.items():
        for node in ast.walk(ast.parse((repo / path).read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
            for name in names:
                top = name.split(".")[0]
                ours = name.startswith(("scaleenv_mcp.clients.adapters", "scaleenv_mcp.clients.completion", "scaleenv_mcp.clients.examples.adapter_cli",
                                        "scaleenv_mcp.clients.examples.policy_model"))
                if not (top in sys.stdlib_module_names or top in allowed or ours or top == "__future__"):
                    offenders.append(f"{path} imports {name}")
    assert offenders == []


def test_the_no_host_import_check_refuses_the_host_and_allows_the_adapter_side():
    import subprocess
    from pathlib import Path

    repo = Path(__file__).resolve().parents[3]
    check = "from scaleenv_mcp.clients.examples.adapter_cli import require_no_host_import as check; "
    clean = subprocess.run([sys.executable, "-c", check + "import scaleenv_mcp.clients.adapters.remote; check()"],
                           cwd=repo, capture_output=True, text=True, timeout=60)
    assert clean.returncode == 0, clean.stderr
    dirty = subprocess.run([sys.executable, "-c", check + "import scaleenv_mcp.registry; check()"],
                           cwd=repo, capture_output=True, text=True, timeout=60)
    assert dirty.returncode == 1 and "scaleenv_mcp.registry" in dirty.stderr
