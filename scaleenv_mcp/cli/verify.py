"""``scaleenv verify DOMAIN``: replay every task over MCP and run the admission gates."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, HostsOption, JsonOption, RayOption

__all__ = ["verify"]


def verify(
    domain: Annotated[str, typer.Argument(help="Slug of an installed domain, or a path to a domain folder.")],
    tasks: Annotated[Path | None, typer.Option("--tasks", help="Tasks file (default: the domain's tasks.jsonl).")] = None,
    transport: Annotated[str, typer.Option("--transport", help="memory (in-process) or http (streamable HTTP).")] = "memory",
    url: Annotated[str | None, typer.Option("--url", help="Agent listener base URL of a running host.")] = None,
    control_url: Annotated[str | None, typer.Option("--control-url", help="Control API of a running host.")] = None,
    token_file: Annotated[Path | None, typer.Option("--token-file", help="Control token file of that host.")] = None,
    sample: Annotated[int | None, typer.Option("--sample", min=1, help="Verify a deterministic sample of N tasks.")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Worker processes of the host started here.")] = None,
    no_determinism: Annotated[bool, typer.Option("--no-determinism", help="Skip the second-process replay.")] = False,
    ray: RayOption = None,
    hosts: HostsOption = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Exit 0 when every task passes every gate, 1 when any fails, 3 when the environment failed.

    Without --control-url a host is started here (for http, with its own loopback listeners).
    """
    import anyio
    from rich.progress import Progress

    from scaleenv_mcp.cluster.options import require_ray_for_hosts
    from scaleenv_mcp.console import EXIT_BAD, EXIT_ENV, console, fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        require_ray_for_hosts(ray, hosts)
        path = resolve_domain_path(domain, domains_dir)
        from scaleenv_mcp.verifier.verify import verify_domain  # after the usage checks: 1.4 s of imports

        with Progress(console=console, transient=True, disable=json_output) as bar:
            job = bar.add_task(f"verifying {path.name} over {transport}", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(job, completed=done, total=total)

            report = anyio.run(lambda: verify_domain(path, tasks, transport, url, control_url, token_file, sample,
                                                     workers, not no_determinism, progress, ray=ray, hosts=hosts))
    except ScaleEnvError as error:
        fail(error)
    if json_output:
        print_json(report)
    else:
        failed = [v for v in report.verdicts if not v.passed]
        counts: dict[str, list[int]] = {}
        for verdict in report.verdicts:
            for gate in verdict.gates:
                counts.setdefault(gate.gate, [0, 0])[0 if gate.passed else 1] += 1
        table(f"{report.domain}: gates over {report.transport}", ["gate", "passed", "failed"],
              [[gate, ok, bad] for gate, (ok, bad) in counts.items()])
        if failed:
            table(f"{report.domain}: failed tasks", ["task", "failed gates", "detail"],
                  [[v.task_id, ", ".join(v.failed_gates), next((g.detail for g in v.gates if not g.passed), "")[:120]]
                   for v in failed[:50]])
        outcome = "[green]PASSED[/]" if not failed else "[red]FAILED[/]"
        console.print(f"{outcome} {report.passed}/{report.tasks} tasks over {report.transport} in {report.seconds} s "
                      f"({report.tasks_per_second} tasks/s)"
                      + (f"; failures by gate: {report.failures_by_gate}" if report.failures_by_gate else ""))
    if report.environment_errors:
        raise typer.Exit(EXIT_ENV)
    if report.failed:
        raise typer.Exit(EXIT_BAD)
