"""The CLI as users run it: a subprocess, real output, meaningful exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"


def scaleenv(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "scaleenv_mcp", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_help_teaches_every_command():
    result = scaleenv("--help")
    assert result.returncode == 0
    for command in ("serve", "domains", "tools", "call", "shell", "mcp-config", "validate"):
        assert command in result.stdout


def test_domains_json_lists_the_fixture_with_its_size():
    result = scaleenv("domains", "--json", "--domains-dir", str(FIXTURES))
    assert result.returncode == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    assert (entry["slug"], entry["tools"], entry["tables"], entry["rows"]) == ("tiny_library", 6, 3, 7)
    assert entry["status"] in ("validated", "not validated")


def test_tools_lists_names():
    result = scaleenv("tools", "tiny_library", "--domains-dir", str(FIXTURES))
    assert result.returncode == 0 and "borrow_book" in result.stdout


def test_call_prints_result_and_state_change():
    result = scaleenv("call", "tiny_library", "borrow_book", "--args", '{"member_id": "MEM-00002", "book_id": "BK-00001"}',
                      "--json", "--domains-dir", str(FIXTURES))
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["outcome"]["result"]["loan_id"] == "LN-00008"
    assert payload["changes"]["tables"]["books"]["changed"][0]["after"] == {"copies_available": 1}


@pytest.mark.parametrize(("args", "code"), [
    (["call", "tiny_library", "get_member", "--args", '{"member_id": "MEM-0"}'], 1),       # the tool refused
    (["call", "tiny_library", "get_member", "--args", "{nope"], 2),                         # bad JSON: usage
    (["call", "no_such_domain", "get_member"], 2),                                           # unknown domain: usage
    (["call", "tiny_library", "no_such_tool"], 2),                                           # unknown tool: usage
])
def test_exit_codes_mean_something(args: list[str], code: int):
    result = scaleenv(*args, "--domains-dir", str(FIXTURES))
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_mcp_config_uses_absolute_paths_and_no_token():
    result = scaleenv("mcp-config", "tiny_library", "--domains-dir", str(FIXTURES))
    config = json.loads(result.stdout)["mcpServers"]["scaleenv-tiny_library"]
    assert Path(config["command"]).is_absolute() and Path(config["args"][-1]).is_absolute()
    assert "token" not in result.stdout.lower()


def test_validate_passes_the_fixture_and_fails_a_broken_copy(tmp_path: Path):
    good = scaleenv("validate", str(FIXTURES / "tiny_library"), "--json")
    assert good.returncode == 0, good.stdout[-2000:]
    report = json.loads(good.stdout)
    assert report["passed"] and report["unexpected_failures"] == 0 and report["mutation_score"] >= 0.6
    assert report["observed"]["borrow_book"]["writes"] == ["books", "loans"]
    assert report["observed"]["tally"] == {"reads": [], "writes": []}
    # the report feeds the graph's state edges as it is
    (tmp_path / "report.json").write_text(good.stdout)
    graph = scaleenv("graph", str(FIXTURES / "tiny_library"), "--observed", str(tmp_path / "report.json"),
                     "--no-save", "--json")
    assert graph.returncode == 0, graph.stderr[-2000:]
    state = {(e["source"], e["target"]) for e in json.loads(graph.stdout)["edges"] if e["type"] == "state"}
    assert ("borrow_book", "return_book") in state

    broken = tmp_path / "tiny_library"
    shutil.copytree(FIXTURES / "tiny_library", broken)
    source = (broken / "tools.py").read_text().replace("copies_available - 1", "copies_available - 2")
    (broken / "tools.py").write_text(source)
    bad = scaleenv("validate", str(broken), "--json", "--no-mutation")
    assert bad.returncode == 1
    failures = json.loads(bad.stdout)["failures"]
    assert any("borrow_book lends an available book" == f["name"] and f["actual_changes"] for f in failures)
