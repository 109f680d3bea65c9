"""``scaleenv eval``: a thin shell over ``run_eval`` and ``regrade_run`` with the same parameter names.

Only typer and the shared ``--ray``/``--hosts`` options are imported at module level; the work is
imported inside the command, so the ``scaleenv`` entry point stays fast and ``scaleenv serve`` never
loads openai. The core CLI reaches this module lazily (scaleenv_mcp/cli/forwarded.py forwards its raw arguments to ``main``).
Exit codes: 0 the eval ran (whatever the scores), 2 usage, 3 the harness failed (including
a run in which every episode was an infrastructure failure, or one that lost episodes with their host:
the run folder is complete, and ``--resume`` runs those again).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from scaleenv_mcp.cluster.options import HostsOption, RayOption, require_ray_for_hosts

T = TypeVar("T")

__all__ = ["app", "eval_command", "main", "spread_domains"]

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command("eval")
def eval_command(
    out: Annotated[Path, typer.Option(help="Run folder: run.json, episodes.jsonl, traces.jsonl, results.json.")],
    domains: Annotated[list[str] | None, typer.Option("--domains", help="Domains to evaluate on (slugs or paths; "
                                                                        "repeatable, or several after one --domains).")] = None,
    agent: Annotated[str | None, typer.Option(help="oracle | noop | random | openai:MODEL")] = None,
    user: Annotated[str, typer.Option(help="Simulated user: scripted | openai:MODEL")] = "scripted",
    split: Annotated[str | None, typer.Option(help="Only tasks of this split: train | test.")] = None,
    tasks: Annotated[str | None, typer.Option("--tasks", help="Comma-separated globs on task ids, e.g. 'lend-*'.")] = None,
    num_tasks: Annotated[int | None, typer.Option(min=1, help="Run N of the selected tasks, drawn with --seed.")] = None,
    trials: Annotated[int, typer.Option(min=1, help="Trials per task: the k of avg@k, pass@k, pass^k.")] = 1,
    concurrency: Annotated[int, typer.Option(min=1, help="Episodes run at once.")] = 4,
    seed: Annotated[int, typer.Option(help="Root seed of every episode's agent, user and LLM calls.")] = 0,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint for openai: roles "
                                                      "(the key comes from OPENAI_API_KEY).")] = None,
    url: Annotated[str | None, typer.Option(help="Agent listener of a running host (default: start one here).")] = None,
    control_url: Annotated[str | None, typer.Option(help="Control listener of that host.")] = None,
    token_file: Annotated[Path | None, typer.Option(help="Control token file of that host.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --out; finished episodes are skipped, "
                                                          "infrastructure failures retried.")] = False,
    regrade: Annotated[bool, typer.Option("--regrade", help="Re-score the run in --out by replaying its saved "
                                                            "tool calls; nothing else is rerun.")] = False,
    max_turns: Annotated[int, typer.Option(min=1, help="Agent messages per episode.")] = 20,
    max_calls: Annotated[int, typer.Option(min=0, help="Tool calls per episode.")] = 50,
    temperature: Annotated[float, typer.Option(help="LLM sampling temperature.")] = 0.0,
    agent_max_tokens: Annotated[int, typer.Option(min=1, help="Token cap of one agent reply (a reply cut there "
                                                              "is the agent's failed turn).")] = 2048,
    user_max_tokens: Annotated[int, typer.Option(min=1, help="Token cap of one simulated-user reply.")] = 512,
    agent_timeout: Annotated[float, typer.Option(min=1, help="Seconds per agent LLM request.")] = 120.0,
    user_timeout: Annotated[float, typer.Option(min=1, help="Seconds per simulated-user LLM request.")] = 120.0,
    llm_retries: Annotated[int, typer.Option(min=0, help="Retries of a failed LLM request.")] = 3,
    llm_backoff: Annotated[float, typer.Option(min=0, help="First LLM retry delay, seconds.")] = 1.0,
    no_llm_cache: Annotated[bool, typer.Option("--no-llm-cache", help="Do not cache LLM responses.")] = False,
    portable_schemas: Annotated[bool, typer.Option("--portable-schemas", help="Send the agent's tool schemas reduced "
                                                   "to a portable subset from the first request (a server that crashes "
                                                   "on a served schema, e.g. llama-cpp-python; see scaleenv doctor).")
                                ] = False,
    cache_dir: Annotated[Path | None, typer.Option(help="LLM response cache (default OUT/llm-cache). With --ray, "
                                                         "each node's Ray tasks write their own copy at this path "
                                                         "unless it is on a filesystem every node shares "
                                                         "(docs/cluster.md).")] = None,
    domains_dir: Annotated[list[Path] | None, typer.Option("--domains-dir", help="Extra folder of domains.")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes of a host started here.")] = None,
    ray: RayOption = None,
    hosts: HostsOption = None,
) -> None:
    """Evaluate an agent on tasks with a simulated user; write traces, episodes and results (avg@k, pass@k, pass^k).

    Examples:
      scaleenv eval --domains smart_home --agent oracle --user scripted --out runs/oracle
      scaleenv eval --domains smart_home express_logistics --agent openai:gpt-4.1-mini \\
          --user openai:gpt-4.1-mini --trials 4 --out runs/gpt41
      scaleenv eval --domains smart_home --agent oracle --ray local --hosts 2 --out runs/on-ray
    """
    import anyio
    from pydantic import ValidationError

    from scaleenv_mcp.clients.results import EvalConfig
    from scaleenv_mcp.console import EXIT_ENV, EXIT_USAGE, fail

    if regrade:
        _regrade(out, concurrency, url, control_url, token_file, workers)
        return
    if not domains or not agent:
        fail("give --domains and --agent (or --regrade to re-score a run)", EXIT_USAGE)
    try:
        config = EvalConfig(domains=domains, domain_dirs=domains_dir or [], split=split, tasks=tasks, num_tasks=num_tasks,
                            agent=agent,
                            user=user, trials=trials, concurrency=concurrency, seed=seed, out=out, base_url=base_url,
                            url=url, control_url=control_url, token_file=token_file, resume=resume,
                            max_turns=max_turns, max_calls=max_calls, temperature=temperature,
                            agent_max_tokens=agent_max_tokens, user_max_tokens=user_max_tokens,
                            agent_timeout=agent_timeout, user_timeout=user_timeout,
                            llm_retries=llm_retries, llm_backoff=llm_backoff, llm_cache=not no_llm_cache,
                            cache_dir=cache_dir, workers=workers, ray=ray, hosts=hosts,
                            portable_schemas=portable_schemas)
    except ValidationError as exc:
        first = exc.errors()[0]
        fail(f"{'.'.join(map(str, first['loc']))}: {first['msg']}", EXIT_USAGE)
    _guarded(lambda: require_ray_for_hosts(ray, hosts))  # a usage error before 3 s of imports (mcp, openai)
    from scaleenv_mcp.clients.report import print_progress, print_results
    from scaleenv_mcp.clients.runner import run_eval

    results = _guarded(lambda: anyio.run(run_eval, config, print_progress))
    print_results(results, out)
    if (failure := results.harness_failure()) is not None:
        fail(failure, EXIT_ENV)


def _guarded(work: Callable[[], T]) -> T:
    """The one place eval errors become exit codes: usage 2, anything else 3 (the harness failed)."""
    from scaleenv_mcp.console import EXIT_ENV, EXIT_USAGE, err_console, fail
    from scaleenv_mcp.errors import ScaleEnvError, UsageError

    try:
        return work()
    except ScaleEnvError as error:
        fail(error, EXIT_USAGE if isinstance(error, UsageError) else EXIT_ENV)
    except Exception as error:  # noqa: BLE001 - a bug or an unexpected failure is still a harness failure
        err_console.print_exception()
        fail(f"the eval harness failed: {type(error).__name__}: {error}", EXIT_ENV)


def _regrade(out: Path, concurrency: int, url: str | None, control_url: str | None, token_file: Path | None,
             workers: int | None) -> None:
    import functools

    import anyio

    from scaleenv_mcp.clients.regrade import regrade_run
    from scaleenv_mcp.clients.report import print_regrade

    job = functools.partial(regrade_run, out, concurrency=concurrency, url=url, control_url=control_url,
                            token_file=token_file, workers=workers)
    print_regrade(_guarded(lambda: anyio.run(job)))


def spread_domains(args: list[str]) -> list[str]:
    """``--domains a b`` -> ``--domains a --domains b`` (typer options take one value each)."""
    spread: list[str] = []
    taking = False
    for arg in args:
        if arg == "--domains":
            taking = True
            continue
        if taking and not arg.startswith("-"):
            spread += ["--domains", arg]
            continue
        taking = False
        spread.append(arg)
    return spread


def main(args: list[str]) -> None:
    """Run ``scaleenv eval`` with ``args``; exits like a command."""
    from scaleenv_mcp.console import run_app

    run_app(app, "scaleenv eval", spread_domains(args))
