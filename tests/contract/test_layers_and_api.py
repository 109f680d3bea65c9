"""Contracts: the public API, module size, generated docs (import layers: test_import_layers.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FOLDERS = {"scaleenv_mcp": "scaleenv_mcp", "verifier": "scaleenv_mcp.verifier", "generator": "scaleenv_mcp.generator",
           "clients": "scaleenv_mcp.clients", "bench": "bench"}  # folder of the checkout -> its import name


def _loaded(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (modules or packages) a fresh interpreter has loaded after ``code``."""
    probe = (f"{code}; import sys; print(sorted(n for n in {names!r} "
             "if any(m == n or m.startswith(n + '.') for m in sys.modules)))")
    return eval(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)


def test_public_api_is_small_and_pinned():
    import scaleenv_mcp

    assert scaleenv_mcp.__all__ == ["ControlClient", "EpisodeControl", "Host", "HostSettings"]
    assert [getattr(scaleenv_mcp, name).__name__ for name in scaleenv_mcp.__all__] == scaleenv_mcp.__all__


def test_toolkit_surface_is_the_tool_errors_and_argument_checks():
    from scaleenv_mcp import toolkit

    assert sorted(toolkit.__all__) == ["ConflictError", "InvalidArgumentError", "NotFoundError", "NotPermittedError",
                                      "PermissionDeniedError", "optional_choice", "optional_date", "paginate",
                                      "require_choice", "require_date", "require_page", "require_permission",
                                      "require_row"]


def test_web_view_surface_is_the_app_its_mount_and_its_auth():
    import scaleenv_mcp.clients.webui

    assert scaleenv_mcp.clients.webui.__all__ == ["UiAuth", "UiMount", "build_ui_app", "ui_mount"]


def test_project_packages_resolve_to_this_repo():
    for folder, name in FOLDERS.items():
        module = importlib.import_module(name)
        assert Path(module.__file__).resolve().parent == REPO / folder, f"{name} resolves to {module.__file__}"
        assert Path(module.__file__).resolve().is_relative_to(REPO), f"{name} resolves to {module.__file__}"


def test_serve_path_never_imports_openai_or_the_generator():
    code = "import scaleenv_mcp.cli.app, scaleenv_mcp.host.listeners, scaleenv_mcp.host.control, scaleenv_mcp.host.stdio"
    assert _loaded(code, ("openai", "scaleenv_mcp.generator", "scaleenv_mcp.clients")) == []


def test_ray_is_imported_only_when_asked_for():
    """Ray is an optional extra: importing any module of ours leaves it unloaded, the cluster package's
    included; only starting host actors (``--ray``, ``RayHosts.running``) loads it, through import_ray()."""
    code = ("import scaleenv_mcp, scaleenv_mcp.cli.app, scaleenv_mcp.cli.serve, scaleenv_mcp.host.listeners, "
            "scaleenv_mcp.host.control, scaleenv_mcp.cluster.router, scaleenv_mcp.cluster.hosts, scaleenv_mcp.cluster.actor")
    assert _loaded(code, ("ray",)) == []


def test_the_web_view_never_loads_openai_and_draws_graphs_only_when_asked():
    """``scaleenv serve`` mounts the web view: it must not bring openai (or the generator) into
    the serving process; the generator's pure graph drawing is imported on the first domain page."""
    code = "import scaleenv_mcp.clients.webui, scaleenv_mcp.cli.serve"
    assert _loaded(code, ("openai", "scaleenv_mcp.generator", "scaleenv_mcp.verifier")) == []


def test_the_python_api_and_scaleenv_call_load_the_mcp_sdk_only_when_asked_for_mcp():
    """``Host`` drives episodes without MCP; the SDK (a second of imports) comes with an episode's MCP
    server or client only, so ``scaleenv call`` and scripts on the Python API start without it."""
    code = "import scaleenv_mcp.host.host, scaleenv_mcp.host.shell, scaleenv_mcp.cli.call"
    assert _loaded(code, ("mcp", "mcp_types", "starlette", "uvicorn", "httpx")) == []


def test_worker_process_does_not_load_the_mcp_stack():
    code = "import sys; import scaleenv_mcp.workers.worker; print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'starlette', 'uvicorn', 'openai'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("path", sorted(p for pkg in FOLDERS for p in (REPO / pkg).rglob("*.py")), ids=str)
def test_modules_stay_small(path: Path):
    assert len(path.read_text().splitlines()) <= 450, "split this module by job"


def test_generated_format_doc_is_current():
    from scaleenv_mcp.domain.docs import render_format_doc

    assert (REPO / "docs" / "domain-format.md").read_text() == render_format_doc(), \
        "run: python -m scaleenv_mcp.domain.docs"


def test_generated_acting_tables_are_current():
    from scaleenv_mcp.domain.docs import acting_block

    assert acting_block(REPO) in (REPO / "docs" / "domain-quality.md").read_text(), \
        "run: python -m scaleenv_mcp.domain.docs"


def test_example_tasks_doc_is_current():
    from scaleenv_mcp.generator.samples import EXAMPLES_DOC, examples_doc

    assert (REPO / EXAMPLES_DOC).read_text() == examples_doc(REPO), "run: python -m scaleenv_mcp.generator.samples"
