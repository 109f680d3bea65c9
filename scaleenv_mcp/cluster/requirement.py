"""Import Ray, or say in one line how to install it (``--ray`` without the ``[ray]`` extra)."""

from __future__ import annotations

import importlib
from types import ModuleType

from scaleenv_mcp.errors import EnvironmentFaultError

__all__ = ["RAY_MISSING", "import_ray"]

RAY_MISSING = ('--ray needs Ray, which is not installed here: pip install "scaleenv-mcp[ray]" '
               '(or pip install "ray>=2.40"), on every node of the cluster')


def import_ray() -> ModuleType:
    """The ``ray`` module.

    Raises:
        EnvironmentFaultError: Ray is not installed (exit 3: the command was right, this environment
            lacks a package; the same as an unreachable cluster, and what a script should retry after
            installing, not rewrite).
    """
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise EnvironmentFaultError(RAY_MISSING) from None
