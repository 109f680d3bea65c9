"""The local episode behind ``scaleenv call`` and ``scaleenv shell``: a one-worker host, one episode,
driven through the Host's public methods only."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.domain.loader import DomainPackage
from scaleenv_mcp.episodes.trace import CallOutcome, OutcomeKind
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from scaleenv_mcp.state.diff import StateDiff

__all__ = ["local_episode", "one_call", "run_shell"]


@contextlib.asynccontextmanager
async def local_episode(domain: str, task_id: str | None,
                        domain_dirs: list[Path] | None) -> AsyncIterator[tuple[Host, EpisodeInfo, DomainPackage]]:
    """A host serving ``domain`` alone, one episode of it (from its seed or ``task_id``), and its package."""
    path = resolve_domain_path(domain, domain_dirs)
    settings = HostSettings.from_env(workers=1)
    async with Host.running(settings, [path.parent], [path.name]) as host:
        package = host.package(path.name)
        if package is None:  # the host read the package once; its load error says why it is not served
            from scaleenv_mcp.errors import DomainError

            raise DomainError(path.name, host.load_errors.get(path.name, "not online"))
        yield host, await host.create_episode(path.name, task_id), package


async def one_call(domain: str, tool: str, arguments: dict[str, Any], task_id: str | None,
                   domain_dirs: list[Path] | None) -> tuple[CallOutcome, StateDiff]:
    async with local_episode(domain, task_id, domain_dirs) as (host, episode, _):
        outcome = await host.call(episode.id, tool, arguments)
        return outcome, await host.diff(episode.id)


async def run_shell(domain: str, task_id: str | None, domain_dirs: list[Path] | None) -> None:
    from rich.console import Console

    console = Console()
    async with local_episode(domain, task_id, domain_dirs) as (host, episode, package):
        tools = {t.name: t for t in package.manifest.tools}
        _enable_completion(list(tools) + ["tools", "diff", "trace", "reset", "help", "quit"])
        console.print(f"[bold]{package.manifest.title}[/] (episode {episode.id[:8]}): type `help`.")
        while True:
            try:
                line = (await asyncio.to_thread(input, f"{package.slug}> ")).strip()
            except (EOFError, KeyboardInterrupt):
                return
            if not line:
                continue
            command, _, rest = line.partition(" ")
            if command in ("quit", "exit"):
                return
            if command == "help" and rest.strip() in tools:
                from scaleenv_mcp.domain.tool_help import tool_help

                console.print(tool_help(package, rest.strip()), highlight=False, markup=False,
                              soft_wrap=True)
            elif command == "help" and rest.strip():
                console.print(f"unknown tool {rest.strip()!r}: `tools` lists them", highlight=False, markup=False)
            elif command == "help":
                console.print("tools | help TOOL | <tool> {json args} | diff | trace | reset | quit")
            elif command == "tools":
                for tool in tools.values():
                    console.print(f"[cyan]{tool.name}[/] {tool.description.split('. ')[0]}", highlight=False)
            elif command == "diff":
                console.print_json((await host.diff(episode.id)).model_dump_json(exclude_defaults=True))
            elif command == "trace":
                for record in await host.trace(episode.id):
                    console.print(f"{record.index} {record.tool} {json.dumps(record.arguments)} -> {record.outcome.value}",
                                  highlight=False)
            elif command == "reset":
                await host.reset(episode.id)
                console.print("episode reset to its start state")
            elif command in tools:
                try:
                    arguments = json.loads(rest) if rest.strip() else {}
                    outcome = await host.call(episode.id, command, arguments)
                except json.JSONDecodeError as exc:
                    console.print(f"[red]arguments are not JSON:[/] {exc.msg}")
                    continue
                except ScaleEnvError as error:
                    console.print(f"[red]{error.code}[/]: {error.message}", highlight=False)
                    continue
                if outcome.kind is OutcomeKind.success:
                    console.print_json(json.dumps(outcome.result))
                else:
                    console.print(f"[red]{outcome.error_code}[/]: {outcome.message}", highlight=False)
            else:
                console.print(f"unknown command {command!r}; type `help`")


def _enable_completion(words: list[str]) -> None:
    try:
        import readline
    except ImportError:  # not on every platform
        return

    def complete(text: str, state: int) -> str | None:
        matches = [w for w in words if w.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
