"""Offline task synthesis by graph expansion (paper phase 2): chains, start states, execution, expansion, user text.

The entry point is ``scaleenv_mcp.generator.tasks.synthesize_tasks``; these modules are its parts.
"""

__all__: list[str] = []
