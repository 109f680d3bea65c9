"""ScaleEnv MCP: generator layer (see docs/architecture.md)."""
