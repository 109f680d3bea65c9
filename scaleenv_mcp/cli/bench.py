"""``scaleenv bench``: measure the host against bare MCP servers (run from a checkout: bench/ is not installed)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["bench"]


def bench(
    domain: Annotated[str, typer.Option(help="Domain (slug or path) whose tools the call benchmark uses.")] = "smart_home",
    out: Annotated[Path, typer.Option(help="Where to write the JSON results.")] = Path("bench/results.json"),
    markdown: Annotated[Path, typer.Option(help="Where to regenerate the Markdown report.")] = Path("BENCHMARKS.md"),
    quick: Annotated[bool, typer.Option("--quick", help="Fewer calls and episodes (a smoke run, minutes not tens).")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the JSON instead of the table.")] = False,
    only: Annotated[str | None, typer.Option(
        help="'validation': only time to verdict on hostile packages; 'state': only fingerprint and diff from change "
             "sets; 'startup': only the first-five-minutes timings (#28); 'calls': only HTTP tool calls, in interleaved "
             "rounds against the bare server and the isolation floor, that server with its tool code in our workers (#25); 'profile': the per-call CPU split (--profile); 'episodes': creation and memory of 143 KB and 1.2 MB episodes; 'ui': only the web view's list of 10,000 live episodes (#24); "
             "'stall': only how long a runaway call stalls the episodes on its worker, stall_after 0 against the default (#29 "
             "item 5; also writes docs/reliability-stall.json and renders docs/reliability.md again); "
             "'scaling': only calls/s and CPU per call on 1, 2 (more on bigger machines) Ray host actors against as "
             "many bare servers (#22; needs the [ray] extra); merged into the JSON of an earlier full run.")] = None,
    baseline: Annotated[Path | None, typer.Option(
        help="With --only startup or calls: another checkout (e.g. a worktree of main) measured the same way, "
             "as 'before'.")] = None,
    rounds: Annotated[int, typer.Option(help="With --only calls, scaling or stall: rounds (each server at each level once).")] = 3,
    http_parser: Annotated[str, typer.Option(help="With --only calls: uvicorn's HTTP parser for every server "
                                             "(auto, h11, httptools); h11 and httptools are reported apart.")] = "auto",
    profile: Annotated[bool, typer.Option("--profile", help="Only print where a tool call's server CPU goes (HTTP, SDK, "
                                          "event loop, ours, IPC, worker), ours against the bare server; the same as "
                                          "--only profile.")] = False,
) -> None:
    """Tool calls (HTTP at 1/16/64 connections, in-memory, stdio) against bare low-level and FastMCP
    servers running the same tool code inline; episode creation, memory, fingerprint and diff
    against raw sqlite3 deserialize; 10,000 live episodes; fingerprint and diff from change sets
    against the full scan and tau2's JSON hash; validation's time to verdict on hostile packages
    (tools that loop or recurse, a bomb at import). Medians and same-run ratios.
    """
    import sys

    from scaleenv_mcp.console import console, fail, print_json
    from scaleenv_mcp.domain.catalog import resolve_domain_path
    from scaleenv_mcp.errors import ScaleEnvError, UsageError

    repo = Path(__file__).resolve().parents[2]
    if not (repo / "bench" / "run.py").is_file():
        fail(UsageError("scaleenv bench runs from a source checkout (bench/ is not part of the installed package)"))
    sys.path.insert(0, str(repo))
    from bench.run import SECTIONS, render_markdown, run, run_section_only

    if profile:
        if only not in (None, "profile"):
            fail(UsageError(f"--profile is --only profile; it cannot be combined with --only {only}"))
        only = "profile"
    if http_parser not in ("auto", "h11", "httptools"):
        fail(UsageError(f"--http-parser takes auto, h11 or httptools, not {http_parser!r}"))
    if only is not None and only not in SECTIONS:
        fail(UsageError(f"--only takes {' or '.join(repr(s) for s in SECTIONS)}, not {only!r}"))
    try:
        if only:
            result = run_section_only(only, out, quick, baseline.resolve() if baseline else None,
                                      resolve_domain_path(domain), rounds, http_parser)
        else:
            result = run(resolve_domain_path(domain), out, quick=quick)
    except ScaleEnvError as error:
        fail(error)
    except ValueError as error:
        fail(UsageError(str(error)))
    markdown.write_text(render_markdown(result))
    if json_output:
        print_json(result)
    else:
        console.print(render_markdown(result))
