"""``scaleenv soak``: fuzzed load on a real host for N minutes; calls, errors by class, p50/p99, RSS over time."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cli.options import JsonOption

__all__ = ["soak"]


def soak(
    minutes: Annotated[float, typer.Option(help="How long to run the load.")] = 5.0,
    domain: Annotated[list[str] | None, typer.Option("--domain", help="Domains to fuzz (repeatable; default: "
                                                     "smart_home, project_management, stock_trading).")] = None,
    clients: Annotated[int, typer.Option(help="Concurrent clients.")] = 6,
    workers: Annotated[int, typer.Option(help="Worker processes of the host under test.")] = 2,
    seed: Annotated[int, typer.Option(help="Seed of the fuzzed calls.")] = 0,
    skip_validation: Annotated[bool, typer.Option("--skip-validation", help="Serve without validating (faster "
                                                  "start; the soak then tests unvalidated serving).")] = False,
    json_output: JsonOption = False,
    markdown: Annotated[Path | None, typer.Option(help="Also write docs/reliability.md-style Markdown here.")] = None,
    machine: Annotated[str, typer.Option(help="How to describe this machine in the Markdown.")] = "not described",
) -> None:
    """Run a fuzzed soak against `scaleenv serve` in a child process and report what it saw.

    Counts against the host: a crash, a 5xx, a -32603 answer to fuzzed input, an episode
    that differs from its sequential replay, RSS growth after warm-up, a process left behind.
    Exit 1 when any of those happened.
    """
    import json

    import anyio

    from scaleenv_mcp.console import print_json
    from scaleenv_mcp.soak.report import render_reliability
    from scaleenv_mcp.soak.run import DEFAULT_DOMAINS, SoakConfig, run_soak, summary_lines

    config = SoakConfig(minutes=minutes, domains=domain or list(DEFAULT_DOMAINS), clients=clients, seed=seed,
                        workers=workers, skip_validation=skip_validation)
    report = anyio.run(run_soak, config)
    if markdown is not None:
        markdown.write_text(render_reliability(report, machine))
        markdown.with_suffix(".json").write_text(json.dumps(report, indent=1) + "\n")
    if json_output:
        print_json(report)
    else:
        for line in summary_lines(report):
            typer.echo(line)
    bad = (report["host_crashes"] or report["processes_left"] or report["replay"]["differed"]
           or report["internal_errors"]["tool_calls"] or report["internal_errors"]["messages"])
    raise typer.Exit(1 if bad else 0)
