"""Options shared by several commands, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cluster.options import HostsOption, RayOption  # shared with eval (clients/cli.py)

__all__ = ["ControlUrlOption", "DomainsDirOption", "HostsOption", "JsonOption", "RayOption", "TokenFileOption"]

DomainsDirOption = Annotated[
    list[Path] | None,
    typer.Option("--domains-dir", exists=True, file_okay=False, help="Folder of domain packages to serve instead of the shipped ones (repeatable)."),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of a table.")]
ControlUrlOption = Annotated[str, typer.Option("--control-url", help="Control listener of the running scaleenv serve.")]
TokenFileOption = Annotated[Path | None, typer.Option("--token-file", help="Its control token file (default: the one "
                                                      "serve writes, ~/.scaleenv/control-token).")]
