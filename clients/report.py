"""How an eval reads to a person: progress lines, the summary table, the regrade report.

Scripts read results.json instead; this module only prints (to stdout for the summary,
stderr for progress) and must not compute metrics.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from scaleenv_mcp.clients.llm import PORTABLE_ASKED
from scaleenv_mcp.clients.metrics import Estimate, GroupMetrics
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus
from scaleenv_mcp.clients.regrade import RegradeReport
from scaleenv_mcp.clients.results import EvalResults
from scaleenv_mcp.console import console, err_console

# A pipe or a log file gets a wide table (rich would squeeze it into 80 columns).
_table_console = console if console.is_terminal else Console(width=160)

__all__ = ["print_progress", "print_regrade", "print_results"]


def print_progress(record: EpisodeRecord, done: int, total: int) -> None:
    if record.status is EpisodeStatus.completed:
        outcome = f"reward {record.reward:g} ({record.end_reason.value if record.end_reason else '-'})"
    else:
        outcome = f"[red]INFRA {record.infra.kind.value if record.infra else ''}[/]"
    warn = ""
    if record.status is EpisodeStatus.completed and record.calls == 0:
        warn += " [yellow]warning: the agent made no tool call[/]"
    if record.agent_tokens.truncated:
        warn += f" [yellow]{record.agent_tokens.truncated} reply(s) cut at max_tokens[/]"
    err_console.print(f"[{done}/{total}] {record.key}: {outcome}, {record.calls} calls, {record.turns} turns{warn}",
                      highlight=False)


def _cell(estimate: Estimate) -> str:
    if not estimate.tasks:
        return "-"
    return f"{estimate.value:.3f} [{estimate.ci_low:.2f}, {estimate.ci_high:.2f}]"


def _row(name: str, group: GroupMetrics) -> list[str]:
    match = f"{group.mean_table_match:.3f}" if group.mean_table_match is not None else "-"
    return [name, str(group.tasks), str(group.episodes), str(group.infra_failures), _cell(group.avg_at_k),
            _cell(group.pass_at_k), _cell(group.pass_hat_k), match]


def print_results(results: EvalResults, out: Path | None = None) -> None:
    k = results.k
    rows = [_row(slug, group) for slug, group in results.domains.items()]
    rows.append(_row("overall", results.overall))
    stamp = results.stamp
    view = Table(title=f"agent {stamp.agent} · user {stamp.user} · k={k} · tasks {stamp.tasks} · "
                       f"task set {stamp.task_set_hash[:12]}", title_justify="left")
    view.add_column("domain", no_wrap=True)
    for column in ["tasks", "scored", "infra", f"avg@{k} [95% Wilson]", f"pass@{k} [95% Wilson]",
                   f"pass^{k} [95% Wilson]", "table match"]:
        view.add_column(column, justify="right", no_wrap=True)
    for row in rows:
        view.add_row(*row)
    _table_console.print(view)
    problems = results.model_problems
    if problems.no_tool_call or problems.truncated_replies or problems.context_full:
        console.print("[yellow]the model misbehaved (scored as the agent's own failures):[/]", highlight=False)
        if problems.no_tool_call:
            console.print(f"  {len(problems.no_tool_call)} episode(s) without a single tool call (does the server "
                          f"show the model its tools? see docs/model-servers.md): "
                          f"{', '.join(problems.no_tool_call[:5])}", highlight=False)
        if problems.truncated_replies:
            console.print(f"  {problems.truncated_replies} agent reply(s) cut off at max_tokens in "
                          f"{len(problems.truncated_episodes)} episode(s) (--agent-max-tokens)", highlight=False)
        if problems.context_full:
            console.print(f"  {len(problems.context_full)} episode(s) ended when the agent's conversation outgrew the "
                          f"model's context (end reason context_full): {', '.join(problems.context_full[:5])}",
                          highlight=False)
    fallback = results.schema_fallback
    if fallback is not None:
        asked = fallback.reason == PORTABLE_ASKED
        why = ("[yellow]the tool schemas went reduced, as asked[/] (--portable-schemas)" if asked else f"[yellow]the server refused the tool schemas as served[/] ({escape(fallback.reason)})")
        console.print(f"{why}; "
                      f"{fallback.episodes} episode(s) got them reduced to {', '.join(fallback.kept)} (the other "
                      f"keywords told in descriptions; the host still checks every argument)", highlight=False)
    if results.infra_failures:
        console.print(f"[yellow]the server failed: {len(results.infra_failures)} episode(s) not scored "
                      f"(infrastructure, not counted as 0; --resume retries them):[/]", highlight=False)
        for failure in results.infra_failures[:10]:
            console.print(f"  {failure.key}: {failure.kind.value}: {failure.message}", highlight=False)
    if results.overall.tasks_short:
        console.print(f"[yellow]{results.overall.tasks_short} task(s) have fewer than {k} scored trials and are left "
                      f"out of pass@{k}/pass^{k}.[/]", highlight=False)
    tokens = results.agent_tokens.add(results.user_tokens)
    console.print(f"tokens: agent {results.agent_tokens.prompt}+{results.agent_tokens.completion}, user "
                  f"{results.user_tokens.prompt}+{results.user_tokens.completion}; {tokens.cached}/{tokens.requests} "
                  f"LLM requests from the cache", highlight=False)
    if out is not None:
        console.print(f"results: {out / 'results.json'}", highlight=False, soft_wrap=True)


def print_regrade(report: RegradeReport) -> None:
    console.print(f"regraded {report.regraded} episode(s) from saved traces; {len(report.changed)} reward(s) changed",
                  highlight=False)
    for change in report.changed[:20]:
        console.print(f"  {change.key}: {change.before} -> {change.after}", highlight=False)
    for key, reason in list(report.failed.items())[:20]:
        console.print(f"  [red]{key}: replay failed: {reason}[/]", highlight=False)
    print_results(report.results)
