"""docs/reliability.md, rendered from a soak's JSON report (so the page says only what was measured)."""

from __future__ import annotations

import statistics
from typing import Any

from scaleenv_mcp.soak.chaos import chaos_checks, chaos_summary_lines
from scaleenv_mcp.soak.run import summary_lines

__all__ = ["render_reliability", "stall_table"]


def _verdict(ok: bool) -> str:
    return "yes" if ok else "**no**"


def _chaos_section(chaos: dict[str, Any] | None) -> list[str]:
    if chaos is None:
        return ["## Chaos", "", "Not run yet: `scaleenv soak --chaos --markdown docs/reliability.md`.", ""]
    config = chaos["config"]
    return [
        "## Chaos",
        "",
        f"Machine: {chaos.get('machine', 'not described')}. Run: `scaleenv soak --chaos --host-kills "
        f"{config['host_kills']} --worker-kills {config['worker_kills']} --round-seconds {config['round_seconds']:g} "
        f"--clients {config['clients']} --workers {config['workers']} --seed {config['seed']}"
        + "".join(f" --domain {d}" for d in config["domains"])
        + ("` with --skip-validation" if config["skip_validation"] else "`") + f" (JSON: {chaos.get('json', '')}).",
        "",
        f"One round per host kill: a fresh `scaleenv serve` on one state directory, {config['clients']} clients "
        f"making episodes of {config['calls_per_episode']} fuzzed tool calls over MCP, a random worker killed "
        "(SIGKILL) every few seconds, then the host killed (SIGKILL) under the load"
        + (f" once {config['round_seconds']:g} s have passed, {config['min_replays']} of the round's episodes "
           "were replayed and one is open (a loaded machine's rounds last longer)" if "min_replays" in config else "")
        + ". Each episode that finished "
        "is replayed call by call into a fresh one (calls answered `worker_lost` left out: nothing of them was "
        "kept) and the fingerprints compared; every episode the killed host had open is asked of the next host "
        "(control API, and the first three over MCP); the killed host's processes are looked for by their tag.",
        "",
        *[f"- {line}" for line in chaos_summary_lines(chaos)],
        "",
        "| check | met |",
        "|---|---|",
        *[f"| {name} | {_verdict(ok)} |" for name, ok in chaos_checks(chaos)],
        "",
        "| tool call outcome under chaos | count |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in chaos["outcomes"].items()],
        "",
        *(["| failure | detail |", "|---|---|",
           *[f"| {e['class']} | `{e['detail'][:160]}` |".replace("\n", " ") for e in chaos["failure_examples"]], ""]
          if chaos["failure_examples"] else []),
    ]


def stall_table(stall: dict[str, Any]) -> list[str]:
    """Medians of ``scaleenv bench --only stall`` (bench/stall.py), before and after, as one table."""
    lines = ["| host | read on a co-located episode, sent 0.2 s into the runaway (ms) | sent 1.0 s in (ms) | "
             "same read, no runaway (ms) | runaway's budget error after (s) | episodes moved per round |",
             "| --- | --- | --- | --- | --- | --- |"]
    for mode, median in stall["medians"].items():
        moved = statistics.median(r["episodes_moved"] for r in stall["rows"][mode])
        lines.append(f"| {mode} | {median['read_at_0.2s_ms']:.1f} | {median['read_at_1.0s_ms']:.1f} | "
                     f"{median['idle_read_ms']:.1f} | {median['runaway_error_s']:.2f} | {moved:g} |")
    return lines


def _stall_section(stall: dict[str, Any] | None) -> list[str]:
    if stall is None:
        return ["## A runaway's co-located episodes (#29 item 5)", "",
                "Not measured yet: `scaleenv bench --only stall`.", ""]
    return [
        "## A runaway's co-located episodes (#29 item 5)",
        "",
        f"Measured by `scaleenv bench --only stall` (bench/stall.py; JSON: reliability-stall.json) at commit "
        f"`{stall['commit'][:12]}`, {stall['cpus']} CPU cores shared with other sessions (load average "
        f"{stall['load_average'][0]:.2f} at the start). Two hosts of 2 workers, call budget "
        f"{stall['call_timeout_s']:g} s: a runaway call (a tool looping for ever) and two bystander episodes on one "
        "worker; a read (one tool call over MCP) on the first bystander 0.2 s after the runaway started, on the "
        f"second 1.0 s after; medians of {stall['rounds']} rounds alternating between a host with `stall_after` 0 "
        "(the behaviour before) and one with the default.",
        "",
        *stall_table(stall),
        "",
        f"With `stall_after` ({stall['stall_after_s']:g} s by default), once a request has run that long the "
        "episodes whose requests wait behind it move to another worker (rebuilt there by replay, their requests "
        "following in order: episodes/relocation.py); the runaway's own episode stays and gets its whole budget. "
        "With one worker nothing can move and a co-located read still waits for the budget.",
        "",
    ]


def render_reliability(report: dict[str, Any], machine: str, chaos: dict[str, Any] | None = None,
                       stall: dict[str, Any] | None = None) -> str:
    config = report["config"]
    growth = report["rss"]["host_growth_after_warmup_pct"]
    checks = [
        ("host crashes: 0", report["host_crashes"] == 0),
        ("no -32603 or 5xx answer to fuzzed input",
         report["internal_errors"]["tool_calls"] + report["internal_errors"]["messages"] == 0),
        ("no replayed episode differs from its sequential replay", report["replay"]["differed"] == 0),
        ("host RSS within 10% after warm-up", growth is not None and abs(growth) <= 10),
        ("no process left after the host stopped", report["processes_left"] == 0),
        ("at least 100,000 fuzzed tool calls", report["tool_calls"] >= 100_000),
        ("at least 1,000 control operations", report["control_ops"] >= 1000),
    ]
    lines = [
        "# Reliability",
        "",
        "Generated by `scaleenv soak --markdown docs/reliability.md` and `scaleenv soak --chaos --markdown "
        "docs/reliability.md` from their JSON reports, and `scaleenv bench --only stall` (issue #29; each run "
        "renders the page from its own report and the others' last ones). Do not edit by hand: rerun them.",
        "",
        f"Machine: {machine}. Run: `scaleenv soak --minutes {config['minutes']:g} --clients {config['clients']} "
        f"--workers {config['workers']} --seed {config['seed']}" + "".join(f" --domain {d}" for d in config["domains"])
        + ("` with --skip-validation" if config["skip_validation"] else "`") + ".",
        "",
        "## Summary",
        "",
        *[f"- {line}" for line in summary_lines(report)],
        "",
        "## Checks",
        "",
        "| check | met |",
        "|---|---|",
        *[f"| {name} | {_verdict(ok)} |" for name, ok in checks],
        "",
        "## What the soak does",
        "",
        f"{config['clients']} clients, each in a loop: create an episode (control API), {config['calls_per_episode']} "
        "tool calls with fuzzed arguments over MCP streamable HTTP (valid about 60% of the time, otherwise huge "
        "strings, integers past int64, wrong types, missing and unexpected names), a control operation every 8 calls "
        "(fingerprint, snapshot, diff, trace, tables, fork and restore into the fork, get), then fingerprint; a "
        "quarter of the episodes are replayed call by call into a fresh episode and the fingerprints compared. "
        "15% of the loops instead send 10 arbitrary JSON-RPC messages on an episode of their own.",
        "",
        *_chaos_section(chaos),
        *_stall_section(stall),
        "## Tool call outcomes",
        "",
        "| outcome | count |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in report["outcomes"].items()],
        "",
        "## Arbitrary JSON-RPC messages",
        "",
        "| answer | count |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in report["message_outcomes"].items()],
        "",
        "## Control operations",
        "",
        "| operation | count |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in report["control"].items()],
        "",
        "## Host RSS over time",
        "",
        "| t (s) | tool calls | host RSS (MiB) | workers RSS (MiB) |",
        "|---|---|---|---|",
        *[f"| {s['t_s']} | {s['calls']} | {s['host_rss_kb'] / 1024:.1f} | {s['workers_rss_kb'] / 1024:.1f} |"
          for s in report["rss"]["samples"]],
        "",
    ]
    if report["internal_errors"]["examples"]:
        lines += ["## -32603 and 5xx answers (first 20)", "", "| class | tool | arguments | answer |", "|---|---|---|---|"]
        lines += [f"| {e['class']} | {e['tool']} | `{e['arguments'][:120]}` | `{e['answer'][:160]}` |".replace("\n", " ")
                  for e in report["internal_errors"]["examples"]]
        lines.append("")
    return "\n".join(lines)
