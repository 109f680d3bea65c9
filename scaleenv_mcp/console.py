"""How every command prints and exits: rich tables for people, ``--json`` for scripts, one exit-code map.

Exit codes (README, "Commands"): 0 done, 1 what was checked is bad, 2 usage, 3 the harness
or environment failed. ``fail()`` is the one translation point from errors to codes. It sits
below every package that prints (the CLI, generator/cli.py, clients/cli.py, clients/report.py),
so none of them imports the CLI package back; it imports nothing of the project but errors.
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

__all__ = ["EXIT_BAD", "EXIT_ENV", "EXIT_OK", "EXIT_USAGE", "console", "err_console", "fail", "print_json", "run_app",
           "table"]

EXIT_OK, EXIT_BAD, EXIT_USAGE, EXIT_ENV = 0, 1, 2, 3

console = Console()
err_console = Console(stderr=True, soft_wrap=True)  # an error is one line, whatever the terminal width


def print_json(value: Any) -> None:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, default=str) + "\n")


def table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    """A table that never cuts a word with "…": on a terminal, cells wrap at spaces and fold what is
    wider than its column; into a pipe or a file, each row is one line however long (grep finds it whole)."""
    from rich.measure import Measurement

    view = Table(title=title, title_justify="left")
    for column in columns:
        view.add_column(column, overflow="fold")
    for row in rows:
        view.add_row(*[str(v) for v in row])
    if console.is_terminal:
        console.print(view)
        return
    view.title = None  # a title line padded to the width of the widest row would end in spaces
    width = Measurement.get(console, console.options.update_width(1 << 20), view).maximum
    console.print(title, highlight=False, markup=False, soft_wrap=True)
    Console(file=console.file, width=max(width, console.width)).print(view)


def exit_code_for(error: BaseException) -> int:
    if isinstance(error, UsageError):
        return EXIT_USAGE
    if isinstance(error, DomainError):
        return EXIT_BAD
    return EXIT_ENV  # harness errors, OS errors and anything unexpected


def fail(error: BaseException | str, code: int | None = None) -> NoReturn:
    """One ``error:`` line and the exit: ``code``, else the error's own (``exit_code_for``)."""
    if isinstance(error, str):
        message = error
    else:
        message = error.message if isinstance(error, ScaleEnvError) else f"{type(error).__name__}: {error}"
    from rich.markup import escape

    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False)  # a message's [brackets] are text
    if code is None:
        code = EXIT_ENV if isinstance(error, str) else exit_code_for(error)
    raise typer.Exit(code)


def run_app(app: typer.Typer, prog_name: str, args: list[str] | None = None) -> NoReturn:
    """Run a typer app as a command. Its usage errors (click's: no command, an unknown command or
    option, a value of the wrong type, a missing argument) print as two plain lines, the error
    and the usage with where to read more, exit 2; typer would draw rich boxes around them."""
    clicks = sys.modules[typer.BadParameter.__module__]  # click's exceptions, or the copy newer typer vendors
    try:  # (no no_args_is_help on these apps: it prints the whole help as its error; click says 'Missing command.')
        code = typer.main.get_command(app).main(args=args, prog_name=prog_name, standalone_mode=False)
    except clicks.UsageError as error:
        _usage_error(error.ctx, error.format_message())
        code = EXIT_USAGE
    except clicks.ClickException as error:
        print(f"error: {error.format_message()}", file=sys.stderr)
        code = error.exit_code
    except typer.Abort:
        print("error: aborted", file=sys.stderr)
        code = EXIT_BAD
    raise SystemExit(code if isinstance(code, int) else EXIT_OK)


def _usage_error(ctx: Any, message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    if ctx is not None:
        usage = " ".join(ctx.get_usage().removeprefix("Usage:").split())
        print(f"usage: {usage} (`{ctx.command_path} --help` says more)", file=sys.stderr)
