"""The ``--ray ADDRESS`` and ``--hosts N`` options, declared once for every command that can run on
host actors (``serve``, ``verify``, ``eval``, ``tasks synth``), and the check they share.

They live in the core, not in ``scaleenv_mcp.cli.options``, because ``scaleenv eval``'s command is
declared by the eval clients (clients/cli.py), which must not import the CLI layer above them.
Nothing here imports Ray.
"""

from __future__ import annotations

from typing import Annotated

import typer

from scaleenv_mcp.errors import UsageError

__all__ = ["HostsOption", "RayOption", "require_ray_for_hosts"]

RayOption = Annotated[str | None, typer.Option(
    "--ray", metavar="ADDRESS", help="Run on host actors of a Ray cluster (docs/cluster.md): 'local' (start Ray "
    "here), 'auto' (the cluster this node joined) or the head's host:port. Needs the \\[ray] extra.")]
HostsOption = Annotated[int | None, typer.Option(
    "--hosts", min=1, help="With --ray: host actors to start (default: one per CPU the cluster has free).")]


def require_ray_for_hosts(ray: str | None, hosts: int | None) -> None:
    """Refuse ``--hosts`` without ``--ray``.

    Raises:
        UsageError: ``hosts`` given, ``ray`` not.
    """
    if hosts is not None and ray is None:
        raise UsageError("--hosts goes with --ray ADDRESS (local, auto or host:port)")
