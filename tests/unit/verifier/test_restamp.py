"""``scaleenv tasks restamp``: only each line's gold fingerprint changes, to what the replay reaches."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from scaleenv_mcp.cli.app import app
from scaleenv_mcp.domain.task import Task

DOMAIN = Path(__file__).resolve().parents[3] / "domains" / "job_seeking"
STALE = "0" * 64


def test_restamp_rewrites_only_stale_fingerprints(tmp_path: Path) -> None:
    package = tmp_path / "job_seeking"
    shutil.copytree(DOMAIN, package)
    lines = (package / "tasks.jsonl").read_text().splitlines(keepends=True)[:6]
    recorded = [Task.model_validate_json(line).gold.fingerprint for line in lines]
    stale = [line.replace(fp, STALE) if i % 2 == 0 else line for i, (line, fp) in enumerate(zip(lines, recorded))]
    tasks_file = tmp_path / "some.jsonl"
    tasks_file.write_text("".join(stale))

    done = CliRunner().invoke(app, ["tasks", "restamp", str(package), "--tasks", str(tasks_file), "--workers", "1"])

    assert done.exit_code == 0, done.output
    assert tasks_file.read_text() == "".join(lines)  # byte for byte: every other value, key order, newlines
    assert "3 of 6 fingerprints rewritten" in re.sub(r"\s+", " ", done.output)
