"""``scaleenv episodes export|import``: durable snapshots of a running ``scaleenv serve``, as files.

An episode (or a snapshot, by its ``snap-`` id) becomes one file (episodes/episode_file.py);
importing the file creates a new episode on that host or another. Exit codes: 0 done, 2 the
file or the arguments were refused (the message says why; nothing was created), 3 the host
could not be reached or refused the token.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Any

import typer

from scaleenv_mcp.cli.options import ControlUrlOption, JsonOption, TokenFileOption

__all__ = ["app", "export", "import_file"]

app = typer.Typer(help="Export episodes and snapshots of a running host as files, and import them.")

DEFAULT_CONTROL = "http://127.0.0.1:8766"


def _client(control_url: str, token_file: Path | None) -> Any:
    from scaleenv_mcp.control_client import ControlClient
    from scaleenv_mcp.settings import HostSettings

    return ControlClient(control_url, token_file=token_file or HostSettings.from_env().state_dir / "control-token")


@app.command("export")
def export(
    episode_id: Annotated[str, typer.Argument(metavar="ID", help="An episode id, or a snapshot id (snap-...).")],
    out: Annotated[Path, typer.Option("--out", dir_okay=False, help="File to write.")],
    control_url: ControlUrlOption = DEFAULT_CONTROL,
    token_file: TokenFileOption = None,
    json_output: JsonOption = False,
) -> None:
    """Write an episode (its SQLite state, trace and metadata) or a snapshot to one file.

    The same state exports to byte-identical files."""
    import anyio

    from scaleenv_mcp.console import console, fail, print_json
    from scaleenv_mcp.errors import ScaleEnvError

    async def run() -> bytes:
        async with _client(control_url, token_file) as control:
            if episode_id.startswith("snap-"):
                data: bytes = await control.export_snapshot(episode_id)
            else:
                data = await control.export_episode(episode_id)
            return data

    try:
        data = anyio.run(run)
        out.write_bytes(data)
    except (ScaleEnvError, OSError) as error:
        fail(error)
    digest = hashlib.sha256(data).hexdigest()
    if json_output:
        print_json({"id": episode_id, "out": str(out), "bytes": len(data), "sha256": digest})
    else:
        console.print(f"wrote {out} ({len(data)} bytes, sha256 {digest[:16]}...)", highlight=False, soft_wrap=True)


@app.command("import")
def import_file(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A file `scaleenv episodes export` wrote.")],
    force: Annotated[bool, typer.Option("--force", help="Import a file made by another version of its domain "
                                        "package (its SQLite image must still match this version's schema).")] = False,
    control_url: ControlUrlOption = DEFAULT_CONTROL,
    token_file: TokenFileOption = None,
    json_output: JsonOption = False,
) -> None:
    """Create a new episode on the running host from an exported file; prints the episode (id, agent URL)."""
    import anyio

    from scaleenv_mcp.console import console, fail, print_json
    from scaleenv_mcp.errors import ScaleEnvError

    async def run() -> Any:
        async with _client(control_url, token_file) as control:
            return await control.import_episode(file.read_bytes(), allow_other_version=force)

    try:
        info = anyio.run(run)
    except (ScaleEnvError, OSError) as error:
        fail(error)
    if json_output:
        print_json(info)
    else:
        console.print(f"episode {info.id} ({info.domain}{', task ' + info.task_id if info.task_id else ''}, "
                      f"{info.calls} calls): {info.agent_url}", highlight=False)
