"""What ``scaleenv serve`` prints while its domains come online, and the one banner after.

On a terminal, a rich progress display (a counter of the domains done, online or failed, of
all being started, and one bar per domain being validated: cases done, ETA); otherwise (a pipe,
a log file, a test) one plain line per state change, the same counter at its end once every
domain is known ('  smart_home: online (3/8 domains done)'). Either way
the order is fixed: the bound line (printed by the CLI before anything heavy is imported),
each domain's state as it changes, then the banner once every domain is online or failed.
"""

from __future__ import annotations

import sys
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)

from scaleenv_mcp.host.host import Host
from scaleenv_mcp.host.listeners import Listeners

__all__ = ["StartupDisplay", "banner_lines"]


class StartupDisplay:
    """Observes a host's status and validation progress until ``come_online`` returns."""

    def __init__(self, host: Host, console: Console | None = None) -> None:
        self.host = host
        self.console = console or Console(stderr=True, highlight=False)
        self.live = self.console.is_terminal
        self.progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[unit]}"), TimeRemainingColumn(), console=self.console,
                                 transient=True, disable=not self.live)
        self.bars: dict[str, TaskID] = {}
        self.overall: TaskID | None = None  # 'all domains ━━━ 3/8 done': added with the first domain

    def __enter__(self) -> StartupDisplay:
        self.host.on_status = self.status
        self.host.on_progress = self.advance
        self.progress.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.host.on_status = self.host.on_progress = None
        self.progress.stop()

    def status(self, slug: str, status: str) -> None:
        # every domain is 'loading' before any changes again, so the total is known by then
        done = sum(not state.startswith(("loading", "validating")) for state in self.host.status.values())
        total = len(self.host.status)
        if self.live:
            if slug in self.bars and status != "validating":
                self.progress.remove_task(self.bars.pop(slug))
            if status == "validating":
                self.bars[slug] = self.progress.add_task(f"validating {slug}", total=None, unit="cases")
            if self.overall is None:
                self.overall = self.progress.add_task("all domains", total=None, unit="done")
            self.progress.update(self.overall, completed=done, total=total)
            self.progress.refresh()  # the line below is drawn above the display as it now is, not as it was
            self._print(f"  {slug}: {status}")
        elif status == "loading":  # the total is not known yet while the 'loading' lines come
            self._print(f"  {slug}: {status}")
        else:  # no counter bar in a pipe or a log: each line carries it, at its end so 'slug: state' still leads
            self._print(f"  {slug}: {status} ({done}/{total} domains done)")

    def advance(self, slug: str, done: int, total: int) -> None:
        if slug in self.bars:  # drawn at once when full: a fast validation still shows its bar complete
            self.progress.update(self.bars[slug], completed=done, total=total, refresh=done == total)

    def banner(self, listeners: Listeners) -> None:
        self._print("\n".join(banner_lines(self.host, listeners)))  # one write: the banner is never cut in two

    def _print(self, line: str) -> None:
        if self.live:  # soft_wrap: a line longer than the terminal is one line to copy, as in a pipe
            self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, file=sys.stderr, flush=True)


def banner_lines(host: Host, listeners: Listeners) -> list[str]:
    """'8 domains online at http://... (control: ...)', then each domain not served with its
    reason and the command that shows why."""
    online = sorted(slug for slug, status in host.status.items() if status.startswith("online"))
    failed = host.load_errors
    control = (f"control: {listeners.control_url}, bearer token in {listeners.token_path}" if listeners.control_url
               else "control API disabled")
    count = f"{len(online)} domain{'s' if len(online) != 1 else ''}" if not failed else f"{len(online)} of {len(host.status)} domains"
    lines = [f"scaleenv: {count} online at {listeners.agent_url}/mcp/{{domain}} ({control})"]
    if listeners.ui_login_url:
        lines.append(f"  web view: {listeners.ui_login_url} (one-time login link; `scaleenv ui` prints a fresh one)")
    paths = host.packages()
    for slug, reason in sorted(failed.items()):
        target = slug if host.domain_dirs is None else str(paths.get(slug, slug))
        lines.append(f"  not served: {slug}: {reason} (see why: scaleenv validate {target})")
    return lines
