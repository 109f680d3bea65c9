"""How every command prints and exits: rich tables for people, ``--json`` for scripts, one exit-code map.

Exit codes (README, "Commands"): 0 done, 1 what was checked is bad, 2 usage, 3 the harness
or environment failed. ``fail()`` is the one translation point from errors to codes.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from scaleenv_mcp.errors import DomainError, ScaleEnvError, UsageError

__all__ = ["EXIT_BAD", "EXIT_ENV", "EXIT_OK", "EXIT_USAGE", "console", "err_console", "fail", "print_json", "table"]

EXIT_OK, EXIT_BAD, EXIT_USAGE, EXIT_ENV = 0, 1, 2, 3

console = Console()
err_console = Console(stderr=True, soft_wrap=True)  # an error is one line, whatever the terminal width


def print_json(value: Any) -> None:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    view = Table(title=title, title_justify="left")
    for column in columns:
        view.add_column(column)
    for row in rows:
        view.add_row(*[str(v) for v in row])
    console.print(view)


def exit_code_for(error: BaseException) -> int:
    if isinstance(error, UsageError):
        return EXIT_USAGE
    if isinstance(error, DomainError):
        return EXIT_BAD
    return EXIT_ENV  # harness errors, OS errors and anything unexpected


def fail(error: BaseException) -> NoReturn:
    message = error.message if isinstance(error, ScaleEnvError) else f"{type(error).__name__}: {error}"
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(exit_code_for(error))
