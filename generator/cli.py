"""``scaleenv generate``: the command line over ``scaleenv_mcp.generator.pipeline.generate``.

Imported only when ``scaleenv generate`` runs (scaleenv_mcp/cli/commands.py registers a
pass-through command that imports this module by name and calls ``forward``), so ``scaleenv serve`` never loads the generator or openai.
Top-level imports are typer only; the pipeline is imported inside the command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["app", "generate", "main"]

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


def _batch_entries(path: Path) -> list[tuple[str, str]]:
    """(keyword, description) per line: plain text, or JSON {"keyword": ..., "description": ...}; # comments."""
    from scaleenv_mcp.errors import UsageError

    entries = []
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise UsageError(f"--batch {path}: {error}") from error
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                item = json.loads(line)
                entries.append((str(item["keyword"]), str(item.get("description", ""))))
            except (ValueError, KeyError) as error:
                raise UsageError(f"--batch {path} line {number}: {error}") from error
        else:
            entries.append((line, ""))
    return entries


@app.command()
def generate(
    keyword: Annotated[str | None, typer.Argument(help="What the world is about, e.g. \"pet care\".")] = None,
    description: Annotated[str, typer.Option(help="More words to steer the domain card.")] = "",
    model: Annotated[str | None, typer.Option(help="Model of every role without one in --roles.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint (default: OpenAI's).")] = None,
    roles: Annotated[Path | None, typer.Option(help="JSON or TOML file: per-role model, endpoint, limits.")] = None,
    out: Annotated[Path, typer.Option(help="Package folder to create (with --batch: the parent folder).")] = ...,  # type: ignore[assignment]
    workdir: Annotated[Path | None, typer.Option(help="Where work is kept for resuming (default .scaleenv-generate/<slug>).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Ignore stored responses and stage outputs.")] = False,
    batch: Annotated[Path | None, typer.Option(help="File of keywords, one domain per line.")] = None,
    max_rounds: Annotated[int, typer.Option(help="Debug rounds per tool before it is dropped.")] = 4,
    concurrency: Annotated[int, typer.Option(help="Tools in parallel and LLM requests in flight.")] = 4,
    retry_budget: Annotated[int, typer.Option(help="Retries (429, 5xx, timeouts) allowed in the whole run.")] = 20,
    backoff: Annotated[float, typer.Option(help="First backoff wait, seconds (doubles, with jitter).")] = 1.0,
    timeout: Annotated[float, typer.Option(help="Seconds before a request is abandoned and retried.")] = 120.0,
    max_tokens: Annotated[int | None, typer.Option(min=1, help="Output budget of one reply for every role without "
                                                             "max_tokens in --roles (default: 3000 to 8000 by role).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of requests, jitter and task synthesis.")] = 0,
    tools: Annotated[int, typer.Option(help="Tools to ask for.")] = 30,
    tables: Annotated[int, typer.Option(help="Tables to ask for.")] = 6,
    rows: Annotated[int, typer.Option(help="Seed rows to ask for per table (asked 40 at a time).")] = 90,
    tasks: Annotated[int, typer.Option(help="Verified tasks to synthesise (0: none).")] = 20,
    no_mutation: Annotated[bool, typer.Option("--no-mutation", help="Skip the mutation check of the final validation.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    replay: Annotated[Path | None, typer.Option(help="Answer every request from this cassette "
                                                     "(generator/recordings/<slug>/), offline; --model defaults "
                                                     "to the one it recorded.")] = None,
) -> None:
    """Grow a new, validated domain from a keyword with any OpenAI-compatible LLM.

    Resumable: run the same command again after a crash and nothing answered is asked again.
    Exit 0 done, 1 the generated domain failed its checks, 2 usage, 3 the endpoint or harness failed.
    """
    import anyio
    from rich.console import Console

    from scaleenv_mcp.console import EXIT_ENV, EXIT_USAGE, fail, print_json
    from scaleenv_mcp.errors import UsageError
    from scaleenv_mcp.generator.cassette import Cassette
    from scaleenv_mcp.generator.pipeline import generate as run_generate
    from scaleenv_mcp.generator.pipeline import slugify
    from scaleenv_mcp.generator.roles import load_roles, resolve_roles
    from scaleenv_mcp.generator.stages.context import GenerateSettings

    err = Console(stderr=True)
    try:
        if (keyword is None) == (batch is None):
            raise UsageError("give a KEYWORD or --batch FILE (not both)")
        cassette = Cassette.open(replay) if replay is not None else None
        if cassette is not None and model is None:
            model = cassette.meta.model
        resolved = resolve_roles(load_roles(roles), model=model, base_url=base_url, timeout=timeout,
                                 max_tokens=max_tokens)
        entries = _batch_entries(batch) if batch else [(keyword or "", description)]
        jobs = []
        for word, text in entries:
            slug = slugify(word) if batch else out.name
            target = out / slug if batch else out
            work = (workdir / slug if batch else workdir) if workdir else Path(".scaleenv-generate") / slug
            jobs.append(GenerateSettings(keyword=word, description=text, slug=slug, out=target, workdir=work,
                                         max_rounds=max_rounds, concurrency=concurrency, fresh=fresh, seed=seed,
                                         tool_count=tools, table_count=tables, rows_per_table=rows, tasks=tasks,
                                         mutation=not no_mutation))
        for job in jobs:
            if not re.match(r"^[a-z][a-z0-9_]*$", job.slug):
                raise UsageError(f"--out folder name {job.slug!r} must be a slug like pet_care: lower-case "
                                 "letters, digits and underscores, starting with a letter")
    except UsageError as error:
        fail(error)
    reports, code = [], 0
    for job in jobs:
        report, job_code = anyio.run(lambda: run_generate(job, resolved, retry_budget=retry_budget, backoff=backoff,
                                                          log=lambda m, s=job.slug: err.print(f"[dim]{s}[/] {m}",
                                                                                              highlight=False),
                                                          replay=cassette))
        reports.append(report)
        code = max(code, job_code)
        if not json_output:
            report.print()
        if (job_code in (EXIT_USAGE, EXIT_ENV) or job_code > 128) and job is not jobs[-1]:
            err.print(f"stopping the batch: {report.status}; run the same command again to resume")
            break
    if json_output:
        print_json(reports[0] if not batch else [r.model_dump(mode="json") for r in reports])
    raise typer.Exit(code)


def main(args: list[str]) -> None:
    """Entry point for ``scaleenv generate ARGS`` (the core CLI forwards its arguments here)."""
    from scaleenv_mcp.console import run_app

    run_app(app, "scaleenv generate", args)
