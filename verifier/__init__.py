"""ScaleEnv MCP: verifier layer (see docs/architecture.md)."""
