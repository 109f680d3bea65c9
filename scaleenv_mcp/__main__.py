"""``python -m scaleenv_mcp`` is the ``scaleenv`` command (used by mcp-config for absolute paths)."""

from scaleenv_mcp.cli.app import main

main()
