"""``scaleenv soak``: a long fuzzed load against a real ``scaleenv serve``, and what it shows.

Clients, each in a loop until the time is up: create an episode over the control API, make
fuzzed tool calls on it over MCP (``soak.fuzz``), now and then a control operation
(fingerprint, snapshot, diff, trace, tables, fork, restore into the fork, delete a snapshot),
and send arbitrary JSON-RPC on an episode of their own. A share of the episodes is replayed
call by call into a fresh episode afterwards: the two fingerprints must be equal (no call
of another episode leaked into it). Meanwhile the host's RSS is sampled.

Counted against the host: a crash, an HTTP 5xx, and any -32603 (an environment fault) -
every fuzzed argument is the agent's doing, so a -32603 there is a fault reported for input.
Seeded: the same seed sends the same calls in each client (timing still interleaves them).
"""

from __future__ import annotations

import asyncio
import random
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.errors import ScaleEnvError
from scaleenv_mcp.soak.fuzz import fuzz_arguments, fuzz_message
from scaleenv_mcp.soak.raw_mcp import RawMcpSession
from scaleenv_mcp.soak.served import ServedHost, rss_kb, tagged_processes

__all__ = ["SoakConfig", "classify", "percentile", "run_soak"]

DEFAULT_DOMAINS = ["smart_home", "project_management", "stock_trading"]


@dataclass
class SoakConfig:
    minutes: float
    domains: list[str] = field(default_factory=lambda: list(DEFAULT_DOMAINS))
    clients: int = 6
    seed: int = 0
    workers: int = 2
    calls_per_episode: int = 40
    replay_share: float = 0.25
    skip_validation: bool = False
    state_dir: Path | None = None  # None: the usual one, so validation records are reused


def classify(status: int, answer: Any) -> str:
    """One word for an answer: success, tool_error:<code>, rpc:<code>[:<data code>], http:<status>."""
    if status >= 300 or not isinstance(answer, dict):
        return f"http:{status}"
    if "error" in answer:
        error: dict[str, Any] = answer["error"] if isinstance(answer["error"], dict) else {}
        data: dict[str, Any] = error["data"] if isinstance(error.get("data"), dict) else {}
        return f"rpc:{error.get('code')}" + (f":{data['code']}" if data.get("code") else "")
    result = answer.get("result") or {}
    if result.get("isError"):
        text = str((result.get("content") or [{}])[0].get("text", ""))
        return "tool_error:" + text.split(":", 1)[0]
    return "success"


class _Soak:
    def __init__(self, config: SoakConfig, served: ServedHost) -> None:
        self.config = config
        self.served = served
        self.outcomes: Counter[str] = Counter()
        self.messages: Counter[str] = Counter()
        self.control: Counter[str] = Counter()
        self.latencies: list[float] = []
        self.internal: list[dict[str, Any]] = []  # -32603 and 5xx answers, first few with their input
        self.replays: dict[str, Any] = {"checked": 0, "differed": 0, "examples": []}
        self.samples: list[dict[str, Any]] = []
        self.schemas: dict[str, dict[str, dict[str, Any]]] = {}
        self.deadline = 0.0

    def _note_internal(self, kind: str, tool: str, arguments: Any, answer: Any) -> None:
        if len(self.internal) < 20:
            self.internal.append({"class": kind, "tool": tool, "arguments": repr(arguments)[:300],
                                  "answer": repr(answer)[:300]})

    async def _control(self, name: str, coroutine: Any) -> Any:
        self.control[name] += 1
        try:
            return await coroutine
        except ScaleEnvError as error:
            self.control[f"{name}:error:{error.code}"] += 1
            if error.code in ("environment_fault", "internal"):
                self._note_internal(f"control:{error.code}", name, "", error.message)
            return None

    async def _tools(self, control: ControlClient, http: httpx.AsyncClient, domain: str) -> dict[str, dict[str, Any]]:
        [episode] = await control.create_episodes(domain)
        session = await RawMcpSession.open(episode.agent_url, http)
        _, answer = await session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        await control.close(episode.id)
        return {t["name"]: t["inputSchema"] for t in answer["result"]["tools"]}

    async def _call(self, session: RawMcpSession, tool: str, arguments: Any) -> str:
        started = time.perf_counter()
        try:
            status, answer = await session.call_tool(tool, arguments)
        except httpx.HTTPError as exc:
            kind = f"transport:{type(exc).__name__}"
            self.outcomes[kind] += 1
            return kind
        self.latencies.append(time.perf_counter() - started)
        kind = classify(status, answer)
        self.outcomes[kind] += 1
        if kind.startswith("rpc:-32603") or kind.startswith("http:5"):
            self._note_internal(kind, tool, arguments, answer)
        return kind

    async def _episode(self, control: ControlClient, http: httpx.AsyncClient, rng: random.Random) -> None:
        domain = rng.choice(self.config.domains)
        tools = self.schemas[domain]
        created = await self._control("create", control.create_episodes(domain))
        if not created:
            return
        episode = created[0]
        session = await RawMcpSession.open(episode.agent_url, http)
        calls: list[tuple[str, Any]] = []
        snapshots: list[tuple[str, bool]] = []  # (id, pinned)
        for index in range(self.config.calls_per_episode):
            if time.monotonic() > self.deadline:
                break
            tool = rng.choice(sorted(tools))
            arguments = fuzz_arguments(tools[tool], rng)
            await self._call(session, tool, arguments)
            calls.append((tool, arguments))
            if index % 8 == 7:
                await self._control_op(control, episode.id, snapshots, rng)
        await session.close()
        before = await self._control("fingerprint", control.fingerprint(episode.id))
        if rng.random() < self.config.replay_share and before is not None:
            await self._replay(control, http, domain, calls, before)
        for snapshot_id, pinned in snapshots:  # pinned ones outlive the episode: the soak deletes them
            if pinned or rng.random() < 0.5:
                await self._control("delete_snapshot", control.delete_snapshot(snapshot_id))
        await self._control("close", control.close(episode.id))

    async def _control_op(self, control: ControlClient, episode_id: str, snapshots: list[tuple[str, bool]],
                          rng: random.Random) -> None:
        op = rng.choice(["fingerprint", "snapshot", "diff", "trace", "tables", "fork", "get"])
        if op == "snapshot":
            pinned = rng.random() < 0.2
            snapshot_id = await self._control("snapshot", control.snapshot(episode_id, pinned=pinned))
            if snapshot_id:
                snapshots.append((snapshot_id, pinned))
        elif op == "diff":
            against = rng.choice(["start", *(s for s, _ in snapshots)]) if snapshots else "start"
            await self._control("diff", control.diff(episode_id, against=against))
        elif op == "fork":
            child = await self._control("fork", control.fork(episode_id))
            if child is not None:
                if snapshots:
                    await self._control("restore", control.restore(child.id, snapshots[-1][0]))
                await self._control("close", control.close(child.id))
        else:
            reads: dict[str, Callable[[str], Awaitable[Any]]] = {
                "fingerprint": control.fingerprint, "trace": control.trace, "tables": control.tables,
                "get": control.get_episode}
            call = reads[op]
            await self._control(op, call(episode_id))

    async def _replay(self, control: ControlClient, http: httpx.AsyncClient, domain: str,
                      calls: list[tuple[str, Any]], expected: str) -> None:
        created = await self._control("create", control.create_episodes(domain))
        if not created:
            return
        session = await RawMcpSession.open(created[0].agent_url, http)
        for tool, arguments in calls:
            await session.call_tool(tool, arguments)
        await session.close()
        replayed = await self._control("fingerprint", control.fingerprint(created[0].id))
        self.replays["checked"] += 1
        if replayed != expected:
            self.replays["differed"] += 1
            if len(self.replays["examples"]) < 5:
                self.replays["examples"].append({"domain": domain, "calls": len(calls)})
        await self._control("close", control.close(created[0].id))

    async def _junk_messages(self, control: ControlClient, http: httpx.AsyncClient, rng: random.Random) -> None:
        """Arbitrary JSON-RPC on an episode of its own (its state is not replayed)."""
        domain = rng.choice(self.config.domains)
        created = await self._control("create", control.create_episodes(domain))
        if not created:
            return
        session = await RawMcpSession.open(created[0].agent_url, http)
        tools = sorted(self.schemas[domain])
        for _ in range(10):
            message = fuzz_message(rng, tools)
            try:
                status, answer = await session.send(message)
            except httpx.HTTPError as exc:
                self.messages[f"transport:{type(exc).__name__}"] += 1
                continue
            kind = "accepted" if status == 202 else classify(status, answer)
            self.messages[kind] += 1
            if kind.startswith("rpc:-32603") or kind.startswith("http:5"):
                self._note_internal(f"message:{kind}", "", message, answer)
        await session.close()
        await self._control("close", control.close(created[0].id))

    async def client(self, index: int, control: ControlClient) -> None:
        rng = random.Random(self.config.seed * 1000 + index)
        async with httpx.AsyncClient(timeout=120) as http:
            while time.monotonic() < self.deadline and self.served.process.poll() is None:  # type: ignore[union-attr]
                try:
                    if rng.random() < 0.15:
                        await self._junk_messages(control, http, rng)
                    else:
                        await self._episode(control, http, rng)
                except (httpx.HTTPError, RuntimeError) as exc:
                    self.outcomes[f"client:{type(exc).__name__}"] += 1

    async def sample(self, started: float, every: float) -> None:
        while time.monotonic() < self.deadline:
            workers = [p for p in tagged_processes(self.served.tag) if p != self.served.pid]
            self.samples.append({"t_s": round(time.monotonic() - started, 1), "calls": sum(self.outcomes.values()),
                                 "host_rss_kb": rss_kb(self.served.pid),
                                 "workers_rss_kb": sum(rss_kb(p) for p in workers)})
            await asyncio.sleep(every)


def percentile(values: list[float], share: float) -> float:
    """The value ``share`` of the way up the sorted values (0.5: the median); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _rss_growth(samples: list[dict[str, Any]]) -> float | None:
    """Host RSS at the end against RSS after warm-up (the first quarter), in percent."""
    if len(samples) < 4:
        return None
    warm = samples[len(samples) // 4]["host_rss_kb"]
    return round(100.0 * (samples[-1]["host_rss_kb"] - warm) / warm, 1) if warm else None


async def run_soak(config: SoakConfig, progress: Any = None) -> dict[str, Any]:
    """Run the soak; the report as a JSON-ready dict."""
    with tempfile.TemporaryDirectory() as scratch:
        state = config.state_dir or Path(scratch)
        served = ServedHost(None, state, domains=config.domains, workers=config.workers,
                            skip_validation=config.skip_validation)
        boot = time.monotonic()
        await asyncio.to_thread(served.start)
        boot_s = time.monotonic() - boot
        try:
            async with ControlClient(served.control_url, served.token, max_in_flight=64) as control:
                soak = _Soak(config, served)
                async with httpx.AsyncClient(timeout=60) as http:
                    for domain in config.domains:
                        soak.schemas[domain] = await soak._tools(control, http, domain)
                started = time.monotonic()
                soak.deadline = started + config.minutes * 60
                every = max(2.0, config.minutes * 60 / 60)
                await asyncio.gather(soak.sample(started, every),
                                     *(soak.client(i, control) for i in range(config.clients)))
                elapsed = time.monotonic() - started
        finally:
            crashed = served.process is not None and served.process.poll() is not None
            await asyncio.to_thread(served.stop)
            deadline = time.monotonic() + 15
            while (left := tagged_processes(served.tag)) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
    calls = sum(soak.outcomes.values())
    internal_calls = sum(n for k, n in soak.outcomes.items() if k.startswith(("rpc:-32603", "http:5")))
    internal_messages = sum(n for k, n in soak.messages.items() if k.startswith(("rpc:-32603", "http:5")))
    control_ops = sum(n for k, n in soak.control.items() if ":error:" not in k)
    return {
        "config": {"minutes": config.minutes, "domains": config.domains, "clients": config.clients,
                   "seed": config.seed, "workers": config.workers, "calls_per_episode": config.calls_per_episode,
                   "skip_validation": config.skip_validation},
        "host_boot_s": round(boot_s, 1), "elapsed_s": round(elapsed, 1),
        "tool_calls": calls, "calls_per_s": round(calls / elapsed, 1) if elapsed else 0.0,
        "outcomes": dict(soak.outcomes.most_common()),
        "jsonrpc_messages": sum(soak.messages.values()), "message_outcomes": dict(soak.messages.most_common()),
        "control_ops": control_ops, "control": dict(sorted(soak.control.items())),
        "latency_ms": {"p50": round(percentile(soak.latencies, 0.5) * 1000, 2),
                       "p99": round(percentile(soak.latencies, 0.99) * 1000, 2),
                       "max": round(max(soak.latencies, default=0.0) * 1000, 2)},
        "internal_errors": {"tool_calls": internal_calls, "messages": internal_messages, "examples": soak.internal},
        "replay": soak.replays, "host_crashes": int(crashed), "processes_left": len(left),
        "rss": {"samples": soak.samples, "host_growth_after_warmup_pct": _rss_growth(soak.samples)},
    }


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The human summary ``scaleenv soak`` prints (also the head of docs/reliability.md)."""
    rss = report["rss"]
    first, last = (rss["samples"][0], rss["samples"][-1]) if rss["samples"] else ({}, {})
    return [
        f"tool calls: {report['tool_calls']} ({report['calls_per_s']}/s over {report['elapsed_s']} s); "
        f"JSON-RPC fuzz messages: {report['jsonrpc_messages']}; control operations: {report['control_ops']}",
        f"latency p50 {report['latency_ms']['p50']} ms, p99 {report['latency_ms']['p99']} ms, "
        f"max {report['latency_ms']['max']} ms",
        f"host crashes: {report['host_crashes']}; processes left after stop: {report['processes_left']}",
        f"-32603 / 5xx answers: {report['internal_errors']['tool_calls']} to tool calls, "
        f"{report['internal_errors']['messages']} to fuzz messages",
        f"replayed episodes: {report['replay']['checked']}, differing: {report['replay']['differed']}",
        f"host RSS: {first.get('host_rss_kb', 0) // 1024} MiB at start, {last.get('host_rss_kb', 0) // 1024} MiB at "
        f"end; growth after warm-up {rss['host_growth_after_warmup_pct']}%",
        "outcomes: " + ", ".join(f"{k} {v}" for k, v in report["outcomes"].items()),
    ]

