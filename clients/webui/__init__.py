"""ScaleEnv MCP: the web view (top layer: it reads the core, the generator's graph drawing and
the eval clients' run folders; nothing imports it but the CLI). See docs/ui.md."""

from __future__ import annotations

from scaleenv_mcp.clients.webui.app import UiMount, build_ui_app, ui_mount
from scaleenv_mcp.clients.webui.auth import UiAuth

__all__ = ["UiAuth", "UiMount", "build_ui_app", "ui_mount"]
