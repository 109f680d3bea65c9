"""`scaleenv generate` as a command: usage errors, the batch file, the JSON report and exit codes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scaleenv_mcp.generator.cli import _batch_entries, app
from tests.support_llm_server import FakeLLM, running_fake_llm


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeLLM]:
    with running_fake_llm() as server:
        yield server


def test_batch_files_take_plain_lines_json_lines_and_comments(tmp_path: Path):
    path = tmp_path / "batch.txt"
    path.write_text('# domains to grow\npet care\n\n{"keyword": "stock trading", "description": "retail broker"}\n')
    assert _batch_entries(path) == [("pet care", ""), ("stock trading", "retail broker")]


@pytest.mark.parametrize("args", [
    ["pet care", "--out", "x/Bad-Name", "--model", "m"],          # not a slug
    ["pet care", "--out", "x/pet_care"],                          # no model
    ["--out", "x/pet_care", "--model", "m"],                      # neither keyword nor batch
])
def test_usage_errors_exit_2(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output


def test_a_batch_stops_when_the_endpoint_fails_and_reports_as_json(fake: FakeLLM, tmp_path: Path):
    fake.reset()
    fake.always_fail = 500
    batch = tmp_path / "batch.txt"
    batch.write_text("pet care\nstock trading\n")
    result = CliRunner().invoke(app, ["--batch", str(batch), "--out", str(tmp_path / "domains"), "--workdir",
                                      str(tmp_path / "work"), "--model", "fake-model", "--base-url", fake.base_url,
                                      "--retry-budget", "0", "--json"])
    fake.reset()
    assert result.exit_code == 3
    reports = json.loads(result.stdout)
    assert [r["slug"] for r in reports] == ["pet_care"] and "retry budget" in reports[0]["status"]
    assert (tmp_path / "work" / "pet_care" / "report.json").exists() and not (tmp_path / "domains").exists()
