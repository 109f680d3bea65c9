"""The type checker's configuration in pyproject.toml (mypy, strict on scaleenv_mcp/) holds, so the
README's test command and CI run it with everything else; .ci/run also runs it before pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_mypy_finds_nothing():
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml")],
                            capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
