"""A non-editable wheel install finds and serves the shipped domains (they travel inside the wheel)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("wheel")

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.parent.name for p in (REPO / "domains").glob("*/domain.json")) if (REPO / "domains").is_dir() else []


@pytest.fixture(scope="module")
def wheel_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(work), str(REPO)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = work.glob("scaleenv_mcp-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # The test environment's site-packages provide the dependencies, added as plain path entries
    # (their .pth files, the editable install's among them, are not processed), so the project
    # itself can only come from the wheel installed below.
    import sysconfig

    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(site) / "zz_test_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return python


def _run(python: Path, *args: str, cwd: Path, env_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(python), "-m", "scaleenv_mcp", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "SCALEENV_STATE_DIR": str(env_dir)})


def test_wheel_install_is_not_the_checkout(wheel_python: Path, tmp_path: Path):
    code = "import scaleenv_mcp, pathlib; print(pathlib.Path(scaleenv_mcp.__file__).resolve())"
    out = subprocess.run([str(wheel_python), "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert not Path(out.stdout.strip()).is_relative_to(REPO)


def test_wheel_installs_the_three_parts_under_the_project_namespace_only(wheel_python: Path, tmp_path: Path):
    """generator/, verifier/ and clients/ are folders of the checkout; installed, they are
    scaleenv_mcp.generator & co, and no generic top-level name lands in site-packages."""
    code = ("import importlib, importlib.util, pathlib, scaleenv_mcp\n"
            "for part in ('generator', 'verifier', 'clients'):\n"
            "    assert importlib.util.find_spec(part) is None, part\n"
            "    module = importlib.import_module('scaleenv_mcp.' + part)\n"
            "    print(pathlib.Path(module.__file__).resolve().relative_to(pathlib.Path(scaleenv_mcp.__file__).resolve().parent))\n"
            "import scaleenv_mcp.generator.tasks, scaleenv_mcp.verifier.verify, scaleenv_mcp.clients.webui\n"
            "print(scaleenv_mcp.clients.webui.__all__[0])")
    out = subprocess.run([str(wheel_python), "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["generator/__init__.py", "verifier/__init__.py", "clients/__init__.py", "UiAuth"]


@pytest.mark.skipif(not SHIPPED, reason="no shipped domains yet")
def test_wheel_lists_the_shipped_domains(wheel_python: Path, tmp_path: Path):
    result = _run(wheel_python, "domains", "--json", cwd=tmp_path, env_dir=tmp_path)
    assert result.returncode == 0, result.stderr
    listed = json.loads(result.stdout)
    assert sorted(d["slug"] for d in listed) == SHIPPED
    assert all("shipped_domains" in d["path"] for d in listed)


@pytest.mark.skipif(not SHIPPED, reason="no shipped domains yet")
def test_wheel_serves_a_shipped_domain(wheel_python: Path, tmp_path: Path):
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([str(wheel_python), "-m", "scaleenv_mcp", "serve", "--no-control", "--port", str(port),
                                "--domain", SHIPPED[0]], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                               env={"PATH": "/usr/bin:/bin", "SCALEENV_STATE_DIR": str(tmp_path)})
    try:
        deadline = time.monotonic() + 90
        served: list[str] = []
        while time.monotonic() < deadline and not served:
            time.sleep(0.5)
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as response:
                    served = json.loads(response.read())["domains"]
            except OSError:
                continue
        assert served == [SHIPPED[0]]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_wheel_web_view_has_its_templates_and_assets(wheel_python: Path, tmp_path: Path):
    """`scaleenv ui --results DIR` from the wheel: the login link it prints opens the runs page and
    the stylesheet (templates and static files travel in the wheel: pyproject's packages)."""
    import shutil

    import httpx

    shutil.copytree(REPO / "tests" / "fixtures" / "web_run", tmp_path / "runs" / "oracle")
    process = subprocess.Popen([str(wheel_python), "-m", "scaleenv_mcp", "ui", "--results", str(tmp_path / "runs"),
                                "--port", "0", "--no-open"], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                               env={"PATH": "/usr/bin:/bin", "SCALEENV_STATE_DIR": str(tmp_path)})
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert " at http://127.0.0.1:" in line, line + process.stderr.read()
        link = line.split(" at ", 1)[1].split(" ", 1)[0]
        with httpx.Client(follow_redirects=True) as browser:
            runs = browser.get(link)
            assert runs.status_code == 200 and runs.url.path == "/ui/runs" and "oracle" in runs.text
            assert browser.get(runs.url.join("/ui/run?name=oracle")).text.count("1.00") >= 3
            css = browser.get(runs.url.join("/ui/static/ui.css"))
            assert css.status_code == 200 and "--fg" in css.text
            assert httpx.get(runs.url.join("/ui/runs")).status_code == 401  # no cookie, no page
    finally:
        process.terminate()
        process.wait(timeout=10)
