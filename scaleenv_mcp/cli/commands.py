"""Registers every subcommand. Command modules import only typer at top level; the work they
call is imported inside each command, so startup stays fast and layers stay apart."""

from __future__ import annotations

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    from scaleenv_mcp.cli import (
        bench,
        call,
        episodes,
        forwarded,
        graph,
        inspect,
        serve,
        soak,
        tasks,
        ui,
        validate,
        verify,
    )

    app.command("serve")(serve.serve)
    app.command("domains")(inspect.domains)
    app.command("tools")(inspect.tools)
    app.command("mcp-config")(inspect.mcp_config)
    app.command("call")(call.call)
    app.command("shell")(call.shell)
    app.command("validate")(validate.validate)
    app.command("graph")(graph.graph)
    app.add_typer(tasks.app, name="tasks")
    app.add_typer(episodes.app, name="episodes")
    app.command("verify")(verify.verify)
    app.command("bench")(bench.bench)
    app.command("soak")(soak.soak)
    app.command("ui")(ui.ui)
    for name, command in (("eval", forwarded.eval_command), ("generate", forwarded.generate_command),
                          ("doctor", forwarded.doctor_command), ("relay", forwarded.relay_command)):
        app.command(name, add_help_option=False, context_settings=forwarded.FORWARDED_SETTINGS)(command)
