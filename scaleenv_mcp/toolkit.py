"""The only project module a domain's ``tools.py`` may import from.

Tool code is untrusted (see docs/threat-model.md): the static policy allows
``from scaleenv_mcp.toolkit import <name>`` for exactly the names in ``__all__`` here,
so this module is the whole surface tool authors get besides ``ctx``. Keep it small and
free of anything that reaches the process (no module objects, no I/O).
"""

from __future__ import annotations

from scaleenv_mcp.errors import ConflictError, InvalidArgumentError, NotFoundError, NotPermittedError

__all__ = ["ConflictError", "InvalidArgumentError", "NotFoundError", "NotPermittedError"]
