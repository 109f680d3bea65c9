"""``scaleenv soak``: fuzzed load on a real host for N minutes; calls, errors by class, p50/p99, RSS over time."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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
    markdown: Annotated[Path | None, typer.Option(help="Also write docs/reliability.md-style Markdown here (with "
                                                  "the soak's JSON beside it, and the chaos run's as NAME-chaos.json).")
                        ] = None,
    machine: Annotated[str, typer.Option(help="How to describe this machine in the Markdown.")] = "not described",
    chaos: Annotated[bool, typer.Option("--chaos", help="Instead of the soak: kill workers and the host under load "
                                        "(rounds of --round-seconds, one per host kill) and check what is left.")
                     ] = False,
    host_kills: Annotated[int, typer.Option(help="--chaos: host SIGKILLs (one per round).")] = 20,
    worker_kills: Annotated[int, typer.Option(help="--chaos: worker SIGKILLs in all, spread over the rounds.")] = 100,
    round_seconds: Annotated[float, typer.Option(help="--chaos: load on each host before it is killed.")] = 20.0,
) -> None:
    """Run a fuzzed soak against `scaleenv serve` in a child process and report what it saw.

    Counts against the host: a crash, a 5xx, a -32603 answer to fuzzed input, an episode
    that differs from its sequential replay, RSS growth after warm-up, a process left behind.
    With --chaos: a process left behind by a killed host, a surviving episode that differs from its
    replay, a killed episode that does not answer episode_lost, a 500, a -32603 but worker_lost, a hang.
    Exit 1 when any of those happened.
    """
    import json

    import anyio

    from scaleenv_mcp.console import fail, print_json
    from scaleenv_mcp.errors import ScaleEnvError
    from scaleenv_mcp.soak.chaos import ChaosConfig, chaos_checks, chaos_summary_lines, run_chaos
    from scaleenv_mcp.soak.report import render_reliability
    from scaleenv_mcp.soak.run import DEFAULT_DOMAINS, SoakConfig, run_soak, summary_lines
    from scaleenv_mcp.soak.served import HostStartError

    soak_json = markdown.with_suffix(".json") if markdown is not None else None
    chaos_json = markdown.with_name(f"{markdown.stem}-chaos.json") if markdown is not None else None
    # the runaway stall's figures (scaleenv bench --only stall writes them), kept on the page as last measured
    stall_json = markdown.with_name(f"{markdown.stem}-stall.json") if markdown is not None else None
    last_stall = json.loads(stall_json.read_text()) if stall_json is not None and stall_json.is_file() else None

    def run(main: Any, config: Any) -> dict[str, Any]:
        """The run, or one ``error:`` line (exit 3) when the host under test did not start or refused it."""
        try:
            report: dict[str, Any] = anyio.run(main, config)
        except (HostStartError, ScaleEnvError) as error:
            fail(error if isinstance(error, ScaleEnvError) else str(error))
        return report

    if chaos:
        chaos_config = ChaosConfig(host_kills=host_kills, worker_kills=worker_kills, round_seconds=round_seconds,
                                   domains=domain or list(DEFAULT_DOMAINS), clients=clients, workers=workers, seed=seed,
                                   skip_validation=skip_validation)
        chaos_report = {**run(run_chaos, chaos_config), "machine": machine,
                        "json": chaos_json.name if chaos_json else ""}
        if markdown is not None and soak_json is not None and chaos_json is not None:
            chaos_json.write_text(json.dumps(chaos_report, indent=1) + "\n")
            if soak_json.is_file():  # the page holds both runs: the soak's figures as last measured
                soak_report = json.loads(soak_json.read_text())
                markdown.write_text(render_reliability(soak_report, soak_report.get("machine", machine), chaos_report,
                                                       last_stall))
        if json_output:
            print_json(chaos_report)
        else:
            for line in chaos_summary_lines(chaos_report):
                typer.echo(line)
        raise typer.Exit(0 if all(ok for _, ok in chaos_checks(chaos_report)) else 1)
    config = SoakConfig(minutes=minutes, domains=domain or list(DEFAULT_DOMAINS), clients=clients, seed=seed,
                        workers=workers, skip_validation=skip_validation)
    report = {**run(run_soak, config), "machine": machine}
    if markdown is not None and soak_json is not None and chaos_json is not None:
        last_chaos = json.loads(chaos_json.read_text()) if chaos_json.is_file() else None
        markdown.write_text(render_reliability(report, machine, last_chaos, last_stall))
        soak_json.write_text(json.dumps(report, indent=1) + "\n")
    if json_output:
        print_json(report)
    else:
        for line in summary_lines(report):
            typer.echo(line)
    bad = (report["host_crashes"] or report["processes_left"] or report["replay"]["differed"]
           or report["internal_errors"]["tool_calls"] or report["internal_errors"]["messages"])
    raise typer.Exit(1 if bad else 0)
