"""What the framework examples share: their command line, the no-host-import check, the report.

Standard library and httpx only: the examples run in the frameworks' own virtual environments, where this
project is not installed (tests/support_frameworks.py builds them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from scaleenv_mcp.clients.adapters.remote import HostError, ScaleEnvRemote

__all__ = ["free_port", "main", "parser", "print_report", "require_no_host_import", "run_main", "serve_in_thread"]

ADAPTER_SIDE = ("scaleenv_mcp.clients.adapters", "scaleenv_mcp.clients.examples", "scaleenv_mcp.clients.completion")
"""What an adapter may load of this project: itself, and the package namespaces that hold it (both import
nothing on their own: scaleenv_mcp/__init__.py and clients/__init__.py resolve names lazily)."""
NAMESPACES = {"scaleenv_mcp", "scaleenv_mcp._checkout", "scaleenv_mcp.clients"}


def parser(description: str) -> argparse.ArgumentParser:
    """--url, --control-url, --token-file, --domains, --tasks-per-domain, --policy, --seed."""
    found = argparse.ArgumentParser(description=description)
    found.add_argument("--url", default="http://127.0.0.1:8765", help="the agent listener of `scaleenv serve`")
    found.add_argument("--control-url", default="http://127.0.0.1:8766", help="its control API")
    found.add_argument("--token-file", required=True, help="the control token file `scaleenv serve` wrote")
    found.add_argument("--domains", nargs="+", default=["smart_home"])
    found.add_argument("--tasks-per-domain", type=int, default=5)
    found.add_argument("--policy", choices=["oracle", "random"], default="oracle")
    found.add_argument("--seed", type=int, default=0)
    return found


def require_no_host_import() -> None:
    """Fail the run if anything pulled in this project's host: the adapters must talk HTTP only."""
    loaded = sorted(name for name in sys.modules
                    if name.split(".")[0] in {"scaleenv_mcp", "generator", "verifier", "clients"}
                    and name not in NAMESPACES and not name.startswith(ADAPTER_SIDE))
    if loaded:
        raise SystemExit(f"the adapter imported {', '.join(loaded)}: adapters must talk to the host over HTTP only")


def print_report(policy: str, rewards: dict[str, float], extra: dict[str, object] | None = None) -> None:
    """One JSON line: the policy, each task's reward and their mean (what the tests read)."""
    values: Sequence[float] = list(rewards.values())
    mean = sum(values) / len(values) if values else 0.0
    print(json.dumps({"policy": policy, "rewards": rewards, "mean": mean, **(extra or {})}))


async def _host_answers(url: str, control_url: str, token_file: str) -> None:
    """One control request before anything else: a host that is down or refuses the token is said at once,
    not after the framework's import (several seconds of CPU for verifiers, OpenEnv or NeMo Gym)."""
    async with ScaleEnvRemote(url, control_url, token_file=token_file) as remote:
        await remote.domains()


def run_main(rollouts: Coroutine[Any, Any, Any], policy: str) -> None:
    """Run the rollouts (rewards by task, or rewards and more to report) and print the report; a host
    that is down or refuses is one line and exit 3."""
    try:
        result = asyncio.run(rollouts)
    except HostError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(3) from None
    rewards, extra = result if isinstance(result, tuple) else (result, None)
    print_report(policy, rewards, extra)
    require_no_host_import()


def main(description: str, rollouts: Callable[..., Coroutine[Any, Any, Any]],
         extra: dict[str, dict[str, Any]] | None = None) -> None:
    """Parse the command line and run ``rollouts(url, control_url, token_file, domains, per_domain, policy,
    seed, **extra options)``; ``extra`` maps an example's own options to their argparse settings."""
    arguments = parser(description)
    for flag, settings in (extra or {}).items():
        arguments.add_argument(flag, **settings)
    options = vars(arguments.parse_args())
    common = ("url", "control_url", "token_file", "domains", "tasks_per_domain", "policy", "seed")
    own = {k: v for k, v in options.items() if k not in common}

    async def checked_rollouts() -> Any:
        await _host_answers(options["url"], options["control_url"], options["token_file"])
        return await rollouts(*(options[k] for k in common), **own)

    run_main(checked_rollouts(), options["policy"])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve_in_thread(app: Any, port: int) -> tuple[str, Any]:
    """A framework's ASGI app on a loopback port, in a daemon thread; set ``server.should_exit`` to stop it."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="critical"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the example's own server did not start on 127.0.0.1:{port}")
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server
