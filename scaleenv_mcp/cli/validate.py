"""``scaleenv validate DOMAIN``: policy, conformance, database checks, procedural tests, mutation score."""

from __future__ import annotations

from typing import Annotated

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, JsonOption

__all__ = ["validate"]


def validate(
    domain: Annotated[str, typer.Argument(help="Slug of an installed domain, or a path to a domain folder.")],
    json_output: JsonOption = False,
    no_mutation: Annotated[bool, typer.Option("--no-mutation", help="Skip the mutation check (faster).")] = False,
    no_determinism: Annotated[bool, typer.Option("--no-determinism", help="Skip the second-process rerun.")] = False,
    workers: Annotated[int, typer.Option(help="Worker processes running the cases.")] = 2,
    timeout: Annotated[float, typer.Option(help="Wall-time budget of one case, seconds.")] = 5.0,
    budget: Annotated[float | None, typer.Option(
        help="Wall-time budget of the whole run, seconds (default: 60 + 0.5 per case, +0.5 with the determinism "
             "rerun, +4 with the mutation check); past it validation stops and fails.")] = None,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Prove a domain package safe and correct: exit 0 when it passes, 1 when anything fails.

    Runs the static policy on tools.py, checks schema.sql and seed.json against domain.json,
    runs every tests.json case in worker processes (Success / Anticipated Rejection /
    Unexpected Failure), checks declared errors and observed reads and writes, reruns the
    success cases under another PYTHONHASHSEED, and reports the mutation score (>= 60% needed).
    A domain that declares principals is also held to the acting contract (docs/authoring-domains.md):
    permission rules and wrong-principal cases on every writing tool, identification by natural keys.
    It also reports the seed's shape (status frequencies, repeated free text, marker suffixes) as advice.
    Fails fast: a case past its wall-time or memory budget (or crashing its worker) fails its tool and
    skips the tool's other cases; a tools.py that runs away at import fails once, at load; past the
    whole-run --budget the rest is skipped. Exit 1 in each case, with the reason.
    """
    import anyio
    from rich.progress import Progress

    from scaleenv_mcp.console import EXIT_BAD, console, fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError
    from scaleenv_mcp.procedural.validate import validate_domain

    try:
        path = resolve_domain_path(domain, domains_dir)
    except ScaleEnvError as error:
        fail(error)
    with Progress(console=console, transient=True, disable=json_output) as bar:
        task = bar.add_task(f"validating {path.name}", total=None)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=f"{path.name}: {stage}", completed=done, total=total)

        report = anyio.run(lambda: validate_domain(path, mutation=not no_mutation, determinism=not no_determinism,
                                                   workers=workers, timeout=timeout, progress=progress,
                                                   budget=budget))
    if json_output:
        print_json({**report.model_dump(mode="json"), "passed": report.passed})
    else:
        table(f"{report.domain}: procedural tests", ["tool", "cases", "success", "rejection", "unexpected", "mutants killed"],
              [[r.tool, r.cases, r.success, r.anticipated_rejection, r.unexpected_failure,
                f"{r.killed}/{r.mutants}"] for r in report.tools])
        for finding in report.findings:
            where = f"{finding.file}" + (f":{finding.line}" if finding.line else "") + (f" [{finding.tool}]" if finding.tool else "")
            console.print(f"[red]{finding.check}[/] {where}: {finding.reason}", highlight=False)
        for failure in report.failures:
            console.print(f"[red]unexpected failure[/] {failure.name}: {'; '.join(failure.problems)}", highlight=False)
        for row in report.tools:
            if row.skipped:
                why = f"it ran away on {row.stopped_by}" if row.stopped_by else report.halted
                console.print(f"[yellow]skipped[/] {row.skipped} case(s) of {row.tool}: {why}", highlight=False)
        contract = report.contract
        if contract is not None and contract.acts_for_someone:
            console.print(f"acts for {contract.principals} principal kind(s), {contract.identification_paths} "
                          f"identification path(s); {contract.writing_tools_with_permission}/{contract.writing_tools} "
                          f"writing tools with a permission rule, {contract.permission_cases} wrong-principal cases, "
                          f"{contract.policy_rules} policy-only rules, {contract.user_visible_columns} user-visible columns",
                          highlight=False)
        elif contract is not None:
            console.print("acts for nobody: declares no principals (the acting contract does not apply)")
        if report.seed is not None:
            for problem in report.seed.problems:
                console.print(f"[yellow]seed[/] {problem}", highlight=False)
            console.print(f"seed shape: {len(report.seed.statuses)} status columns, "
                          f"{len(report.seed.problems)} problem(s) (advice; see docs/domain-quality.md)", highlight=False)
        score = "n/a" if report.mutation_score is None else f"{report.mutation_score:.0%}"
        verdict = "[green]PASSED[/]" if report.passed else "[red]FAILED[/]"
        if report.runaway:
            verdict += f" ({report.runaway})"
        console.print(f"{verdict} cases {report.cases}, unexpected failures {report.unexpected_failures}, "
                      f"skipped {len(report.skipped)}, findings {len(report.findings)}, "
                      f"mutation score {score} ({report.killed}/{report.mutants})", highlight=False)
    if not report.passed:
        raise typer.Exit(EXIT_BAD)
