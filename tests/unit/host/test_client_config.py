"""``scaleenv mcp-config --install``: one entry merged into a desktop client's config file, nothing else touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scaleenv_mcp.cli.app import app
from scaleenv_mcp.cli.client_config import client_entry, default_config_path, install_entry
from scaleenv_mcp.errors import UsageError


def _install(*args: str):
    return CliRunner().invoke(app, ["mcp-config", "smart_home", "--install", *args])


def test_install_merges_one_entry_and_keeps_the_rest(tmp_path: Path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"theme": "dark", "mcpServers": {"other": {"command": "x"}}}))
    first = _install("cursor", "--config-file", str(config))
    assert first.exit_code == 0 and "added scaleenv-smart_home" in first.output
    written = json.loads(config.read_text())
    assert written["theme"] == "dark" and written["mcpServers"]["other"] == {"command": "x"}
    entry = written["mcpServers"]["scaleenv-smart_home"]
    assert entry["args"][:4] == ["-m", "scaleenv_mcp", "serve", "--stdio"] and Path(entry["args"][4]).is_absolute()
    again = _install("cursor", "--config-file", str(config))
    assert again.exit_code == 0 and "unchanged" in again.output


def test_vscode_spells_servers_with_a_type(tmp_path: Path):
    config = tmp_path / ".vscode" / "mcp.json"
    result = _install("vscode", "--config-file", str(config))
    assert result.exit_code == 0, result.output
    assert json.loads(config.read_text())["servers"]["scaleenv-smart_home"]["type"] == "stdio"
    key, entry = client_entry("vscode", None, "http://127.0.0.1:9/mcp/smart_home")
    assert (key, entry) == ("servers", {"type": "http", "url": "http://127.0.0.1:9/mcp/smart_home"})


def test_bad_files_and_clients_are_refused_and_nothing_is_written(tmp_path: Path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = _install("cursor", "--config-file", str(broken))
    assert result.exit_code == 2 and "not valid JSON" in result.output and broken.read_text() == "{not json"
    assert _install("nope").exit_code == 2
    http = CliRunner().invoke(app, ["mcp-config", "smart_home", "--http", "--install", "claude-desktop",
                                    "--config-file", str(tmp_path / "c.json")])
    assert http.exit_code == 2 and "stdio servers only" in http.output and not (tmp_path / "c.json").exists()
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    with pytest.raises(UsageError):
        install_entry(listed, "mcpServers", "x", {"command": "y"})


def test_default_paths_are_where_each_client_looks(tmp_path: Path):
    assert default_config_path("cursor", home=tmp_path) == tmp_path / ".cursor" / "mcp.json"
    assert default_config_path("vscode", cwd=tmp_path) == tmp_path / ".vscode" / "mcp.json"
    assert default_config_path("claude-desktop", home=tmp_path).name == "claude_desktop_config.json"
