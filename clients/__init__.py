"""ScaleEnv MCP: clients layer (see docs/architecture.md)."""
