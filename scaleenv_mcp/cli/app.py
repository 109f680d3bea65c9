"""The ``scaleenv`` command: one entry point, one subcommand per job, each a thin call of the API.

Subcommand modules are imported lazily so ``scaleenv serve`` never loads the generator or
openai (tests/contract/test_layers_and_api.py checks it in a fresh interpreter).
"""

from __future__ import annotations

import typer

from scaleenv_mcp.cli import commands

__all__ = ["app", "main"]

app = typer.Typer(
    name="scaleenv",
    help="Host, validate, generate and evaluate tool-use environments for LLM agents over MCP.\n\n"
    "Start with `scaleenv domains` to see the worlds on offer and `scaleenv serve` to serve them.",
    add_completion=False,
    pretty_exceptions_enable=False,
)
commands.register(app)


def _version(value: bool) -> None:
    if value:
        from scaleenv_mcp import __version__

        typer.echo(f"scaleenv {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """Host, validate, generate and evaluate tool-use environments for LLM agents over MCP."""


def main() -> None:
    from scaleenv_mcp.console import run_app

    run_app(app, "scaleenv")
