"""``scaleenv call`` (one tool call on a fresh episode) and ``scaleenv shell`` (an interactive session)."""

from __future__ import annotations

from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, JsonOption

__all__ = ["call", "shell"]


def call(
    domain: Annotated[str, typer.Argument(help="Domain slug or path.")],
    tool: Annotated[str, typer.Argument(help="Tool name (see `scaleenv tools DOMAIN`).")],
    args: Annotated[str, typer.Option("--args", help='Arguments as a JSON object, e.g. \'{"member_id": "MEM-00001"}\'.')] = "{}",
    task: Annotated[str | None, typer.Option("--task", help="Start from this task's state instead of the seed.")] = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Call one tool on a fresh episode and print its result and the state change.

    Exit codes: 0 success, 1 the tool refused (a declared error or bad arguments),
    2 usage (bad --args JSON, unknown domain or tool), 3 the environment failed.
    """
    import json

    import anyio

    from scaleenv_mcp.console import EXIT_BAD, console, fail, print_json
    from scaleenv_mcp.episodes.trace import OutcomeKind
    from scaleenv_mcp.errors import ScaleEnvError, UnknownTaskError, UnknownToolError, UsageError
    from scaleenv_mcp.host.shell import one_call

    try:
        arguments = json.loads(args)
    except json.JSONDecodeError as exc:
        fail(UsageError(f"--args is not JSON: {exc.msg} (column {exc.colno})"))
    try:
        outcome, diff = anyio.run(one_call, domain, tool, arguments, task, domains_dir)
    except UnknownToolError as error:
        fail(UsageError(f"{error.message}: `scaleenv tools {domain}` lists them"))
    except UnknownTaskError as error:
        fail(_listing_tasks(error, domain))
    except ScaleEnvError as error:
        fail(error)
    if json_output:
        # a served call does not record table access (only validation does), so the outcome's
        # reads/writes would be empty beside a non-empty diff: writes come from the diff instead
        print_json({"outcome": outcome.model_dump(mode="json", exclude={"reads", "writes"}),
                    "writes": sorted(n for n, t in diff.tables.items() if not t.is_empty), "changes": diff.model_dump(mode="json")})
    elif outcome.kind is OutcomeKind.success:
        console.print_json(json.dumps(outcome.result))
        if not diff.is_empty:
            console.print("[bold]state change:[/]")
            console.print_json(diff.model_dump_json(exclude_defaults=True))
    else:  # one line however wide the terminal: the refusal names every wrong argument
        console.print(f"[red]{outcome.error_code}[/]: {outcome.message}", highlight=False, soft_wrap=True)
    if outcome.kind is not OutcomeKind.success:
        raise typer.Exit(EXIT_BAD)


def shell(
    domain: Annotated[str, typer.Argument(help="Domain slug or path.")],
    task: Annotated[str | None, typer.Option("--task", help="Start from this task's state.")] = None,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Explore a domain interactively: list tools, call them (tab completes names), see the state diff.

    Commands: `tools`, `<tool> {json args}`, `diff`, `trace`, `reset`, `help`, `quit`.
    """
    import anyio

    from scaleenv_mcp.console import fail
    from scaleenv_mcp.errors import ScaleEnvError, UnknownTaskError
    from scaleenv_mcp.host.shell import run_shell

    try:
        anyio.run(run_shell, domain, task, domains_dir)
    except UnknownTaskError as error:
        fail(_listing_tasks(error, domain))
    except ScaleEnvError as error:
        fail(error)


def _listing_tasks(error: Exception, domain: str) -> Exception:
    """An unknown --task, with the command that lists the domain's tasks."""
    from scaleenv_mcp.errors import UsageError

    return UsageError(f"{error}: `scaleenv tasks list {domain}` lists them")
