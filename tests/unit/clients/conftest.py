"""Shared by the eval client tests: a tiny_library copy with solved tasks (tests.unit.clients.library_tasks)."""

from tests.unit.clients.library_tasks import library, library_master  # noqa: F401 - fixtures
