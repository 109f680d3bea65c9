"""Other frameworks in virtual environments of their own, for the adapter tests (issue #23).

Their pins conflict with ours (langchain-mcp-adapters wants mcp<2, verifiers mcp==2.0.0, NeMo Gym
Python 3.12), so each is installed once into a venv cached under the temporary directory, keyed
by its requirements and Python, and our examples run there with the repository on PYTHONPATH
(the adapters import only the framework and httpx). When PyPI cannot be reached the test skips
saying so, except under CI=1, where it fails; when the Python a framework needs is not on the
machine (NeMo Gym's 3.12 on a machine with only 3.11) it skips, CI or not.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["FRAMEWORKS", "Framework", "framework_python", "run_example", "unavailable"]

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(tempfile.gettempdir()) / "scaleenv-framework-venvs"


@dataclass(frozen=True)
class Framework:
    requirements: tuple[str, ...]
    python: str = f"{sys.version_info.major}.{sys.version_info.minor}"


FRAMEWORKS = {
    "langchain": Framework(("langchain-mcp-adapters==0.3.2",)),
    "verifiers": Framework(("verifiers==0.4.0", "uv")),  # vf-eval sets its harness up with uv
    "openenv": Framework(("openenv-core==0.3.0",)),
    "nemo_gym": Framework(("nemo-gym==0.4.0",), python="3.12"),  # 0.4.0 is the last for Python < 3.13.14
}


def unavailable(reason: str) -> None:
    """Skip with the reason; under CI=1 fail instead (CI must run every adapter test)."""
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def _interpreter(version: str) -> str | None:
    """A Python of ``version`` that runs: this one, a pyenv install, or one on PATH (pyenv's shim on
    PATH fails for a version it has not selected, so each candidate is tried)."""
    if version == f"{sys.version_info.major}.{sys.version_info.minor}":
        return sys.executable
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [str(p) for p in sorted(pyenv.glob(f"{version}.*/bin/python{version}"), reverse=True)]
    candidates += [found] if (found := shutil.which(f"python{version}")) else []
    for candidate in candidates:
        if subprocess.run([candidate, "-c", "pass"], capture_output=True).returncode == 0:
            return candidate
    return None


def framework_python(name: str) -> Path:
    """The Python of ``name``'s venv, built on first use (a few tens of seconds) and reused after."""
    framework = FRAMEWORKS[name]
    python = _interpreter(framework.python)
    if python is None:
        # Not an install step we could take (no PyPI wheel brings an interpreter, and no other source
        # is reachable): a skip even under CI=1, said plainly. This machine's image has pyenv's 3.12.
        pytest.skip(f"{name} needs Python {framework.python}, which is not on this machine (PATH or pyenv)")
    key = hashlib.sha256(json.dumps([framework.requirements, framework.python]).encode()).hexdigest()[:12]
    venv = CACHE / f"{name}-{key}"
    done = venv / ".scaleenv-complete"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}-{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build at a time, whoever asks
        if not done.exists():
            shutil.rmtree(venv, ignore_errors=True)
            subprocess.run([python, "-m", "venv", str(venv)], check=True, capture_output=True)
            pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--timeout", "30",
                                  "--retries", "2", *framework.requirements], capture_output=True, text=True)
            if pip.returncode != 0:
                tail = " | ".join((pip.stderr or pip.stdout).strip().splitlines()[-3:])
                unavailable(f"could not install {' '.join(framework.requirements)} from PyPI: {tail}")
            done.write_text(" ".join(framework.requirements) + "\n")
    return venv / "bin" / "python"


def run_example(python: Path, module: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` from the repository root, as the framework's user would run it."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run([str(python), "-m", module, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
