"""``scaleenv tasks synth|report|sample|restamp DOMAIN``: synthesise verified tasks; report their diversity; read a
few; recompute their gold fingerprints."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from scaleenv_mcp.cli.options import DomainsDirOption, HostsOption, JsonOption, RayOption

__all__ = ["app", "report", "restamp", "sample", "synth"]

app = typer.Typer(help="Synthesise and inspect a domain's tasks.")

DomainArg = Annotated[str, typer.Argument(help="Slug of an installed domain, or a path to a domain folder.")]
TasksFileOption = Annotated[Path | None, typer.Option("--tasks", exists=True, dir_okay=False, help="Tasks file (default: the domain's tasks.jsonl).")]


@app.command("synth")
def synth(
    domain: DomainArg,
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Verified tasks to produce.")] = 20,
    seed: Annotated[int, typer.Option("--seed", help="Synthesis seed: the same seed gives a byte-identical file.")] = 0,
    out: Annotated[Path | None, typer.Option("--out", help="Output file (default: the domain's tasks.jsonl).")] = None,
    workers: Annotated[int | None, typer.Option("--workers", help="Worker processes (default: one per core; with "
                                                "--ray, of each host actor).")] = None,
    max_candidates: Annotated[int | None, typer.Option("--max-candidates", help="Candidate budget (default max(4n, n+40)).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Let this LLM reword each kept task's opening and "
                                              "instruction (checked; refused wordings keep the template's).")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url",
                                                 help="OpenAI-compatible endpoint (default: OpenAI's).")] = None,
    roles: Annotated[Path | None, typer.Option("--roles", help="JSON or TOML roles file (as for `scaleenv generate`); "
                                               "its task_writer entry is used.")] = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
    ray: RayOption = None,
    hosts: HostsOption = None,
) -> None:
    """Build tasks by graph expansion, keep those that pass every verifier gate, write them sorted by id.

    With --model (or --roles) an LLM rewords the kept tasks; without, the output is byte-identical per seed,
    with or without --ray (the candidates' episodes on host actors of a Ray cluster: docs/cluster.md).

    Examples:
      scaleenv tasks synth smart_home -n 20 --seed 0 --out tasks.jsonl
      scaleenv tasks synth smart_home -n 200 --ray auto --hosts 8 --out tasks.jsonl   # the same file, from 8 hosts"""
    import anyio
    from rich.progress import Progress

    from scaleenv_mcp.cluster.options import require_ray_for_hosts
    from scaleenv_mcp.console import EXIT_BAD, console, fail, print_json, table
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        require_ray_for_hosts(ray, hosts)
        path = resolve_domain_path(domain, domains_dir)
        resolved = _task_writer_roles(model, base_url, roles)
        from scaleenv_mcp.generator.tasks import synthesize_tasks  # after the usage checks: 1.3 s of imports

        with Progress(console=console, transient=True, disable=json_output) as bar:
            where = f" on Ray host actors ({ray})" if ray is not None else ""
            job = bar.add_task(f"synthesising {path.name}{where}", total=n)

            def progress(done: int, total: int) -> None:
                bar.update(job, completed=done, total=total)

            async def run() -> Any:
                if resolved is None:
                    return await synthesize_tasks(path, n, seed, out, workers, max_candidates, progress, ray=ray,
                                                  hosts=hosts)
                from scaleenv_mcp.generator.synthesis.rewording import task_writer_asker
                async with task_writer_asker(resolved, seed) as ask:
                    return await synthesize_tasks(path, n, seed, out, workers, max_candidates, progress, wording=ask,
                                                  ray=ray, hosts=hosts)

            report = anyio.run(run)
    except ScaleEnvError as error:
        fail(error)
    if json_output:
        print_json(report)
    else:
        table(f"{report.domain}: synthesis (seed {report.seed})",
              ["requested", "produced", "candidates", "seconds", "tasks/s", "tools used", "difficulty"],
              [[report.requested, report.produced, report.candidates, report.seconds, report.tasks_per_second,
                f"{report.tools_used_share:.0%}", ", ".join(f"{k} {v}" for k, v in report.difficulty.items())]])
        if report.rejected:
            console.print("rejected: " + ", ".join(f"{k} {v}" for k, v in report.rejected.items()), highlight=False)
        if report.wording:
            console.print("wording: " + ", ".join(f"{k} {v}" for k, v in report.wording.items()), highlight=False)
        console.print(f"wrote {report.out}", highlight=False, soft_wrap=True)
    if report.produced < report.requested:
        raise typer.Exit(EXIT_BAD)


def _task_writer_roles(model: str | None, base_url: str | None, roles: Path | None) -> dict[str, Any] | None:
    """The ``task_writer`` role's settings when a model is configured, else None (no rewording)."""
    if model is None and roles is None and base_url is None:
        return None
    from scaleenv_mcp.generator.roles import load_roles, resolve_roles

    resolved: dict[str, Any] = resolve_roles(load_roles(roles), model=model, base_url=base_url, only=("task_writer",))
    return resolved


@app.command("report")
def report(
    domain: DomainArg,
    tasks: TasksFileOption = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Diversity and realism of a domain's tasks: tool sequences, chain lengths, difficulty, tools used, openings,
    internal ids in the user's words, principals acting, one-call tasks, gold length, reads."""
    from scaleenv_mcp.console import console, print_json, table
    from scaleenv_mcp.generator.diversity import diversity_report

    package, loaded = _package_and_tasks(domain, tasks, domains_dir)
    result = diversity_report(package.manifest, loaded, package.seed)
    if json_output:
        print_json(result)
        return
    table(f"{result.domain}: task diversity",
          ["tasks", "tool sequences", "tools used", "unique openings", "mean distractors", "mean |H|"],
          [[result.tasks, result.distinct_tool_sequences, f"{result.tools_used}/{result.tools_total} "
            f"({result.tools_used_share:.0%})", result.unique_openings, result.mean_distractors,
            result.mean_expanded_size]])
    console.print("chain length: " + ", ".join(f"{k}: {v}" for k, v in result.chain_length.items()), highlight=False)
    console.print("chains per task: " + ", ".join(f"{k}: {v}" for k, v in result.chains.items())
                  + f"; start state patched in {result.patched_tasks}", highlight=False)
    console.print("difficulty: " + ", ".join(f"{k}: {v}" for k, v in result.difficulty.items()), highlight=False)
    if result.unused_tools:
        console.print("unused tools: " + ", ".join(result.unused_tools), highlight=False)
    if result.realism is not None:
        real = result.realism
        console.print(f"realism: internal ids in the user's words {real.user_text_with_internal_ids}/{real.tasks} "
                      f"(openings {real.openings_with_internal_ids}); one principal acting {real.single_principal}; "
                      f"one call with every argument stated {real.one_call_all_stated}; mean gold length "
                      f"{real.mean_gold_length}; no read {real.without_read}; information {real.information_tasks}, "
                      f"refusal {real.refusal_tasks}", highlight=False)
        missed = [f"{name} {check.value:g} (wanted {check.target})" for name, check in real.targets.items()
                  if not check.met]
        console.print(f"targets met: {len(real.targets) - len(missed)}/{len(real.targets)}"
                      + (f"; missed: {', '.join(missed)}" if missed else ""), highlight=False)


@app.command("list")
def list_tasks(
    domain: DomainArg,
    tasks: TasksFileOption = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """One row per task: the id that `call --task`, `shell --task` and `serve --stdio --task` take, its split,
    difficulty and the user's opening line."""
    from scaleenv_mcp.console import print_json, table

    package, loaded = _package_and_tasks(domain, tasks, domains_dir)
    rows = [{"id": t.id, "split": t.split, "difficulty": t.difficulty, "opening": t.user.opening} for t in loaded]
    if json_output:
        print_json(rows)
        return
    table(f"{package.slug}: {len(rows)} tasks", ["id", "split", "difficulty", "opening"],
          [list(row.values()) for row in rows])


@app.command("sample")
def sample(
    domain: DomainArg,
    n: Annotated[int, typer.Option("-n", "--n", min=1, help="Tasks to show.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Which tasks: the same seed shows the same ones.")] = 1,
    tasks: TasksFileOption = None,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Show N tasks drawn by seed as a person reads them: opening, instruction, what the user knows and gives
    only when asked, the gold tool sequence, what the agent must tell and must not do. Markdown on stdout;
    --json prints the task lines. docs/task-examples.md is this for every shipped domain."""
    import sys

    from scaleenv_mcp.console import print_json
    from scaleenv_mcp.generator.samples import render_markdown, sample_tasks

    package, loaded = _package_and_tasks(domain, tasks, domains_dir)
    chosen = sample_tasks(loaded, n, seed)
    if json_output:
        print_json([t.model_dump(mode="json") for t in chosen])
        return
    sys.stdout.write(render_markdown(package.slug, chosen) + "\n")  # plain Markdown: no wrapping, pipe-friendly


@app.command("restamp")
def restamp(
    domain: DomainArg,
    tasks: Annotated[Path | None, typer.Option("--tasks", help="Tasks file to rewrite (default: the domain's tasks.jsonl).")] = None,
    workers: Annotated[int, typer.Option("--workers", min=1, help="Worker processes of the replay host.")] = 2,
    json_output: JsonOption = False,
    domains_dir: DomainsDirOption = None,
) -> None:
    """Replay every task's gold actions and rewrite only its gold.fingerprint (after the fingerprint's
    definition changed); every other byte of the file stays. Exits 1 when a replay failed (its line is kept)."""
    from scaleenv_mcp.console import EXIT_BAD, console, fail, print_json
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError
    from scaleenv_mcp.verifier.restamp import restamp as run_restamp

    try:
        report = run_restamp(resolve_domain_path(domain, domains_dir), tasks, workers)
    except ScaleEnvError as error:
        fail(error)
    if json_output:
        print_json(report)
    else:
        console.print(f"{report.tasks_file}: {report.changed} of {report.tasks} fingerprints rewritten in "
                      f"{report.seconds} s", highlight=False)
        for task_id, reason in report.failed.items():
            console.print(f"  {task_id}: {reason}", highlight=False)
    if report.failed:
        raise typer.Exit(EXIT_BAD)


def _package_and_tasks(domain: str, tasks: Path | None, domains_dir: list[Path] | None) -> tuple[Any, list[Any]]:
    """The domain package and its tasks (or those of ``tasks``); else the error, printed, and its exit code."""
    from scaleenv_mcp.console import fail
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.domain.loader import load_domain
    from scaleenv_mcp.domain.task_file import load_tasks
    from scaleenv_mcp.errors import ScaleEnvError

    try:
        package = load_domain(resolve_domain_path(domain, domains_dir))
        return package, (load_tasks(tasks) if tasks else list(package.tasks.values()))
    except ScaleEnvError as error:
        fail(error)
