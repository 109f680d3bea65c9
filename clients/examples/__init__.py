"""Runnable examples of the clients' APIs (docs/eval.md walks through them)."""
