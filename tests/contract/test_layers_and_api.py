"""Contracts: the public API, module size, generated docs (import layers: test_import_layers.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LAYERS = {"scaleenv_mcp": 0, "verifier": 1, "generator": 2, "clients": 3, "bench": 4}


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
    for name in LAYERS:
        module = __import__(name)
        assert Path(module.__file__).resolve().is_relative_to(REPO), f"{name} resolves to {module.__file__}"


def test_serve_path_never_imports_openai_or_the_generator():
    code = ("import sys; import scaleenv_mcp.cli.app, scaleenv_mcp.host.listeners, scaleenv_mcp.host.control, "
            "scaleenv_mcp.host.stdio; print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('openai', 'generator', 'clients')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_web_view_never_loads_openai_and_draws_graphs_only_when_asked():
    """``scaleenv serve`` mounts the web view: it must not bring openai (or the generator) into
    the serving process; the generator's pure graph drawing is imported on the first domain page."""
    code = ("import sys; import scaleenv_mcp.clients.webui, scaleenv_mcp.cli.serve; print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'openai', 'generator', 'verifier'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_worker_process_does_not_load_the_mcp_stack():
    code = "import sys; import scaleenv_mcp.workers.worker; print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'starlette', 'uvicorn', 'openai'}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("path", sorted(p for pkg in LAYERS for p in (REPO / pkg).rglob("*.py")), ids=str)
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
