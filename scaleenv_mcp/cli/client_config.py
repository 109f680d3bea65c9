"""Where the desktop MCP clients people use keep their server list, and how an entry is added.

Each client spells the same entry its own way: Claude Desktop and Cursor keep ``mcpServers``
(Claude Desktop speaks stdio only), VS Code keeps ``servers`` with an explicit ``type``. An
install merges one entry into the file and leaves every other key as it was; a file that is
not a JSON object is refused, never overwritten.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Literal

from scaleenv_mcp.errors import UsageError

__all__ = ["CLIENTS", "client_entry", "default_config_path", "install_entry"]

Client = Literal["claude-desktop", "cursor", "vscode"]
CLIENTS: tuple[Client, ...] = ("claude-desktop", "cursor", "vscode")


def default_config_path(client: Client, home: Path | None = None, cwd: Path | None = None) -> Path:
    """The file the client reads: Claude Desktop's per OS, Cursor's global one, VS Code's workspace one."""
    home, cwd = home or Path.home(), cwd or Path.cwd()
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    if client == "vscode":
        return cwd / ".vscode" / "mcp.json"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", home)) / "Claude" / "claude_desktop_config.json"
    return home / ".config" / "Claude" / "claude_desktop_config.json"


def client_entry(client: Client, command: list[str] | None, url: str | None) -> tuple[str, dict[str, Any]]:
    """(top-level key, entry) for a stdio ``command`` or an HTTP ``url``."""
    if client == "vscode":
        entry: dict[str, Any] = ({"type": "http", "url": url} if url else
                                 {"type": "stdio", "command": command[0], "args": command[1:]} if command else {})
        return "servers", entry
    if url:
        if client == "claude-desktop":
            raise UsageError("Claude Desktop's config file takes stdio servers only: drop --http "
                             "(each client starts its own `scaleenv serve --stdio`)")
        return "mcpServers", {"url": url}
    assert command
    return "mcpServers", {"command": command[0], "args": command[1:]}


def install_entry(path: Path, key: str, name: str, entry: dict[str, Any]) -> str:
    """Merge ``{key: {name: entry}}`` into the JSON file at ``path``; returns what happened:
    "added", "replaced" or "unchanged"."""
    config: Any = {}
    if path.exists():
        try:
            config = json.loads(path.read_text(encoding="utf-8") or "{}")
        except json.JSONDecodeError as error:
            raise UsageError(f"{path} is not valid JSON ({error.msg} at line {error.lineno}): fix it or move it "
                             "away; nothing was written") from None
    if not isinstance(config, dict) or not isinstance(config.get(key, {}), dict):
        raise UsageError(f"{path}: expected a JSON object with an object under {key!r}; nothing was written")
    servers = config.setdefault(key, {})
    before = servers.get(name)
    if before == entry:
        return "unchanged"
    servers[name] = entry
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".tmp")
    scratch.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    scratch.replace(path)
    return "added" if before is None else "replaced"
