"""``scaleenv soak --chaos``: kill workers and the host under load, and check what is left (issue #29).

Rounds, one per host kill. Each round starts a real ``scaleenv serve`` on one state directory
(shared by all rounds), loads it with clients (episodes of fuzzed tool calls over MCP, as the soak
makes), kills a random worker with SIGKILL every few seconds, then kills the host with SIGKILL
while the load runs: once ``round_seconds`` have passed, ``min_replays`` of the round's episodes
have been replayed and compared, and an episode is open that is not being closed (a loaded machine
gets fewer episodes through in a round; the round waits for them, up to ``round_limit`` seconds).
Checked, and counted in the report:

- processes left: every process of the killed host (it and its workers carry a tag) must be gone;
- surviving episodes: each episode that finished its calls is replayed call by call into a fresh
  episode (the calls answered ``worker_lost`` left out: nothing of them was kept, a retry is safe)
  and the two fingerprints must be equal, worker kills or not; and there must be such episodes,
  ``min_replays`` per round (a check of its own: none compared is not "none differed");
- killed episodes: an episode whose worker died and could not be rebuilt answers ``episode_lost``
  where it is used; every episode still open when the host was killed must answer ``episode_lost``
  (HTTP 410) on the next host, and over MCP (410, JSON-RPC -32004, ``data.code`` ``episode_lost``);
- never a 500 nor a -32603 other than ``worker_lost``, never a hang (a request over 60 s).

Seeded: the same seed makes the same calls and picks the same victims (timing interleaves them).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from scaleenv_mcp.control_client import ControlClient
from scaleenv_mcp.errors import EpisodeLostError, ScaleEnvError, WorkerLostFaultError
from scaleenv_mcp.host.control_models import EpisodeInfo
from scaleenv_mcp.soak.fuzz import fuzz_arguments
from scaleenv_mcp.soak.raw_mcp import RawMcpSession
from scaleenv_mcp.soak.run import DEFAULT_DOMAINS, classify, percentile
from scaleenv_mcp.soak.served import ServedHost, tagged_processes, worker_processes

__all__ = ["ChaosConfig", "chaos_checks", "chaos_summary_lines", "run_chaos"]

WORKER_LOST = "rpc:-32603:worker_lost"
HANG_S = 60.0  # a request not answered by then is a hang


@dataclass
class ChaosConfig:
    host_kills: int = 20
    worker_kills: int = 100
    round_seconds: float = 20.0  # load on each host before it is killed
    # ... and the host is killed only once this many of the round's episodes were replayed and compared,
    # or round_limit seconds after the round started (too few then: the replay check fails)
    min_replays: int = 1
    round_limit: float = 120.0
    domains: list[str] = field(default_factory=lambda: list(DEFAULT_DOMAINS))
    clients: int = 4
    workers: int = 2
    seed: int = 0
    calls_per_episode: int = 12
    skip_validation: bool = False
    domains_dir: Path | None = None
    state_dir: Path | None = None


def _lost_answer(status: int, answer: Any) -> bool:
    """The agent listener's answer for a lost episode: 410 with JSON-RPC -32004 and data.code episode_lost."""
    error = answer.get("error") if isinstance(answer, dict) else None
    if status != 410 or not isinstance(error, dict) or not isinstance(error.get("data"), dict):
        return False
    return bool(error.get("code") == -32004 and error["data"].get("code") == "episode_lost")


class _Round:
    """One host's life: load, worker kills, the host kill."""

    def __init__(self, chaos: _Chaos, served: ServedHost) -> None:
        self.chaos = chaos
        self.served = served
        self.open: set[str] = set()  # episodes created and not closed (checked on the next host if the host dies)
        self.closing: set[str] = set()  # their close sent, not answered: closed or not, if the host dies now
        self.killing = False  # set as the host is killed: failures after it are the kill's

    async def _call(self, session: RawMcpSession, tool: str, arguments: Any) -> str:
        started = time.monotonic()
        try:
            status, answer = await session.call_tool(tool, arguments, timeout=HANG_S)
        except httpx.TimeoutException:
            return self.chaos.note("hang", f"tools/call {tool}")
        except httpx.HTTPError:
            return "host_gone" if self.killing else self.chaos.note("transport", tool)
        self.chaos.latencies.append(time.monotonic() - started)
        if _lost_answer(status, answer):
            return "episode_lost"
        kind = classify(status, answer)
        if kind.startswith(("http:5", "rpc:-32603")) and kind != WORKER_LOST:
            self.chaos.note(kind, f"{tool} {str(answer)[:200]}")
        return kind

    async def _control(self, name: str, coroutine: Any) -> Any:
        """A control operation; (result, None) or (None, what went wrong)."""
        self.chaos.control[name] += 1
        try:
            return await asyncio.wait_for(coroutine, HANG_S), None
        except TimeoutError:
            return None, self.chaos.note("hang", name)
        except ScaleEnvError as error:
            if self.killing:
                return None, "host_gone"
            if error.code not in (EpisodeLostError.code, WorkerLostFaultError.code):
                self.chaos.note(f"control:{error.code}", f"{name}: {error.message[:200]}")
            return None, error.code

    async def _retrying(self, name: str, make: Any) -> tuple[Any, str | None]:
        """A control operation retried while it answers worker_lost (the episode is rebuilt meanwhile)."""
        for _ in range(5):
            result, problem = await self._control(name, make())
            if problem != WorkerLostFaultError.code:
                return result, problem
        return None, "worker_lost"

    async def _start(self, control: ControlClient, http: httpx.AsyncClient,
                     domain: str) -> tuple[EpisodeInfo, RawMcpSession] | None:
        """A fresh episode (counted open until closed) and an MCP session on it."""
        created, _ = await self._retrying("create", lambda: control.create_episodes(domain))
        if not created:
            return None
        self.open.add(created[0].id)
        return created[0], await RawMcpSession.open(created[0].agent_url, http)

    async def _episode(self, control: ControlClient, http: httpx.AsyncClient, rng: random.Random) -> None:
        chaos = self.chaos
        domain = rng.choice(chaos.config.domains)
        tools = chaos.schemas[domain]
        started = await self._start(control, http, domain)
        if started is None:
            return
        episode, session = started
        kept: list[tuple[str, Any]] = []
        kinds: list[str] = []  # every call's outcome, for the example if the replay differs
        for _ in range(chaos.config.calls_per_episode):
            tool = rng.choice(sorted(tools))
            arguments = fuzz_arguments(tools[tool], rng)
            kind = await self._call(session, tool, arguments)
            kinds.append(f"{tool}: {kind}")
            chaos.outcomes[kind] += 1
            if kind in ("episode_lost", "host_gone"):
                if kind == "episode_lost":
                    await self._lost_by_worker(control, episode.id)
                return
            if kind != WORKER_LOST:
                kept.append((tool, arguments))
        fingerprint, problem = await self._retrying("fingerprint", lambda: control.fingerprint(episode.id))
        if problem == EpisodeLostError.code:
            await self._lost_by_worker(control, episode.id)
        if fingerprint is None:
            return
        await self._replay(control, http, domain, kept, fingerprint, kinds)
        await self._close(control, episode.id)

    async def _close(self, control: ControlClient, episode_id: str) -> None:
        """Close an episode and stop counting it open. Not once the host is killed: the episode stays open,
        lost with the host. One whose close was under way then is left out (whether it was closed is unknown)."""
        if self.killing:
            return
        self.closing.add(episode_id)
        await self._control("close", control.close(episode_id))
        self.closing.discard(episode_id)
        self.open.discard(episode_id)

    async def _lost_by_worker(self, control: ControlClient, episode_id: str) -> None:
        """An episode found lost during the load (its worker died and it was not rebuilt): it must stay so."""
        self.open.discard(episode_id)
        _, problem = await self._control("get", control.get_episode(episode_id))
        self.chaos.worker_lost_episodes["checked"] += 1
        self.chaos.worker_lost_episodes["answered_episode_lost"] += problem == EpisodeLostError.code

    async def _replay(self, control: ControlClient, http: httpx.AsyncClient, domain: str,
                      calls: list[tuple[str, Any]], expected: str, kinds: list[str]) -> None:
        """The calls again, one by one, into a fresh episode (a call answered worker_lost is retried)."""
        started = await self._start(control, http, domain)
        if started is None:
            return
        replica, session = started
        start, _ = await self._retrying("fingerprint", lambda: control.fingerprint(replica.id))
        again: list[str] = []
        for tool, arguments in calls:
            for _ in range(5):
                kind = await self._call(session, tool, arguments)
                if kind != WORKER_LOST:
                    break
            again.append(f"{tool}: {kind}")
            if kind in ("episode_lost", "host_gone", WORKER_LOST):
                if kind == "episode_lost":
                    await self._lost_by_worker(control, replica.id)
                return
        fingerprint, _ = await self._retrying("fingerprint", lambda: control.fingerprint(replica.id))
        if fingerprint is None:
            return
        self.chaos.replays["checked"] += 1
        self.chaos.replays["changed"] += fingerprint != start  # the calls wrote: a lost or doubled write would show
        if fingerprint != expected:
            self.chaos.replays["differed"] += 1
            if len(self.chaos.replays["examples"]) < 5:
                self.chaos.replays["examples"].append({"domain": domain, "calls": calls[:3], "outcomes": kinds,
                                                       "replayed": again})
        await self._close(control, replica.id)

    async def client(self, index: int, control: ControlClient, deadline: float) -> None:
        rng = random.Random(f"{self.chaos.config.seed}-{self.chaos.round}-{index}")
        async with httpx.AsyncClient(timeout=HANG_S) as http:
            while not self.killing and time.monotonic() < deadline:
                try:
                    await self._episode(control, http, rng)
                except (httpx.HTTPError, RuntimeError):
                    if not self.killing:
                        self.chaos.note("client", "episode loop broke off")

    async def kill_workers(self, count: int, until: float, rng: random.Random) -> None:
        """``count`` SIGKILLs of a random worker, spread over the round; each waits for the respawn."""
        for index in range(count):
            await asyncio.sleep(max(0.0, (until - time.monotonic()) / (count - index + 1)))
            workers = sorted(worker_processes(self.served.tag, self.served.pid))
            if not workers or self.served.process is None or self.served.process.poll() is not None:
                continue
            victim = rng.choice(workers)
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                continue
            self.chaos.worker_kills += 1
            killed = time.monotonic()
            while time.monotonic() - killed < 30:  # the pool respawns it
                alive = worker_processes(self.served.tag, self.served.pid)
                if victim not in alive and len(alive) >= self.chaos.config.workers:
                    self.chaos.respawn_ms.append((time.monotonic() - killed) * 1000)
                    break
                await asyncio.sleep(0.02)


class _Chaos:
    def __init__(self, config: ChaosConfig) -> None:
        self.config = config
        self.round = 0
        self.schemas: dict[str, dict[str, dict[str, Any]]] = {}
        self.outcomes: Counter[str] = Counter()
        self.control: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()  # 500s, -32603 other than worker_lost, hangs, transport errors
        self.examples: list[dict[str, str]] = []
        self.latencies: list[float] = []
        self.replays: dict[str, Any] = {"checked": 0, "changed": 0, "differed": 0, "examples": []}
        self.worker_lost_episodes = Counter({"checked": 0, "answered_episode_lost": 0})
        self.host_lost_episodes = Counter({"checked": 0, "answered_episode_lost": 0, "mcp_checked": 0,
                                           "mcp_answered_episode_lost": 0})
        self.worker_kills = 0
        self.host_kills = 0
        self.respawn_ms: list[float] = []
        self.round_s: list[float] = []  # each host's life under load, from the round's start until its SIGKILL
        self.processes_left = 0
        self.gone_ms: list[float] = []  # from the host's SIGKILL until none of its processes is left

    def note(self, kind: str, detail: str) -> str:
        self.failures[kind] += 1
        if len(self.examples) < 20:
            self.examples.append({"class": kind, "detail": detail})
        return kind

    async def tools(self, served: ServedHost) -> None:
        async with ControlClient(served.control_url, served.token) as control, httpx.AsyncClient(timeout=60) as http:
            for domain in self.config.domains:
                [episode] = await control.create_episodes(domain)
                session = await RawMcpSession.open(episode.agent_url, http)
                _, answer = await session.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
                self.schemas[domain] = {t["name"]: t["inputSchema"] for t in answer["result"]["tools"]}
                await control.close(episode.id)

    async def check_lost(self, served: ServedHost, ids: list[str]) -> None:
        """The episodes a killed host had open, asked of the next host: each must answer episode_lost."""
        counts = self.host_lost_episodes
        async with ControlClient(served.control_url, served.token) as control, httpx.AsyncClient(timeout=60) as http:
            for index, episode_id in enumerate(ids):
                counts["checked"] += 1
                try:
                    await control.get_episode(episode_id)
                except EpisodeLostError:
                    counts["answered_episode_lost"] += 1
                except ScaleEnvError as error:
                    self.note(f"after host kill: {error.code}", episode_id)
                if index < 3:  # and over MCP, as an agent would find it
                    counts["mcp_checked"] += 1
                    response = await http.post(f"{served.agent_url}/mcp/episodes/{episode_id}", json={
                        "jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={"accept": "application/json, text/event-stream"})
                    try:
                        answer = response.json()
                    except ValueError:
                        answer = None
                    counts["mcp_answered_episode_lost"] += _lost_answer(response.status_code, answer)

    async def run_round(self, served: ServedHost, worker_kills: int, rng: random.Random) -> list[str]:
        """Load the host, kill ``worker_kills`` workers, kill the host; the ids it had open."""
        current = _Round(self, served)
        started, replayed = time.monotonic(), self.replays["checked"]
        deadline = started + self.config.round_seconds
        limit = started + max(self.config.round_seconds, self.config.round_limit)
        async with ControlClient(served.control_url, served.token, timeout=HANG_S, max_in_flight=64) as control:
            clients = [asyncio.create_task(current.client(i, control, limit + 30)) for i in range(self.config.clients)]
            await current.kill_workers(worker_kills, deadline, rng)
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
            # A loaded machine gets fewer episodes through: wait for the round's replays, and for an
            # episode open (not being closed) for the next host to find lost.
            while (self.replays["checked"] - replayed < self.config.min_replays or not current.open - current.closing) \
                    and time.monotonic() < limit:
                await asyncio.sleep(0.05)
            self.round_s.append(time.monotonic() - started)
            current.killing = True
            killed = time.monotonic()
            if served.process is not None:  # from here, with no client turn between the decision and the kill
                served.process.send_signal(signal.SIGKILL)
            await asyncio.to_thread(served.kill)  # and reaped
            self.host_kills += 1
            await asyncio.gather(*clients)
        while (left := tagged_processes(served.tag)) and time.monotonic() - killed < 15:
            await asyncio.sleep(0.05)
        self.processes_left += len(left)
        if not left:
            self.gone_ms.append((time.monotonic() - killed) * 1000)
        return sorted(current.open)


def _median(values: list[float]) -> float:
    return round(percentile(values, 0.5), 1)


async def run_chaos(config: ChaosConfig) -> dict[str, Any]:
    """Run the chaos rounds; the report as a JSON-ready dict."""
    chaos = _Chaos(config)
    rng = random.Random(config.seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as scratch:
        state = config.state_dir or Path(scratch)

        def host() -> ServedHost:
            return ServedHost(config.domains_dir, state, domains=None if config.domains_dir else config.domains,
                              workers=config.workers, skip_validation=config.skip_validation)

        served = await asyncio.to_thread(host().start)
        await chaos.tools(served)
        try:
            for round_index in range(config.host_kills):
                chaos.round = round_index
                kills = -(-(config.worker_kills - chaos.worker_kills) // (config.host_kills - round_index))
                open_ids = await chaos.run_round(served, kills, rng)
                served = await asyncio.to_thread(host().start)
                await chaos.check_lost(served, open_ids)
        finally:
            await asyncio.to_thread(served.stop)
    elapsed = time.monotonic() - started
    lost = chaos.host_lost_episodes
    return {
        "config": {"host_kills": config.host_kills, "worker_kills": config.worker_kills,
                   "round_seconds": config.round_seconds, "min_replays": config.min_replays,
                   "round_limit": config.round_limit, "domains": config.domains, "clients": config.clients,
                   "workers": config.workers, "seed": config.seed, "calls_per_episode": config.calls_per_episode,
                   "skip_validation": config.skip_validation},
        "elapsed_s": round(elapsed, 1), "host_kills": chaos.host_kills, "worker_kills": chaos.worker_kills,
        "round_s": {"median": _median(chaos.round_s), "max": round(max(chaos.round_s, default=0), 1)},
        "tool_calls": sum(chaos.outcomes.values()), "outcomes": dict(chaos.outcomes.most_common()),
        "control": dict(sorted(chaos.control.items())),
        "latency_ms": {"p50": round(percentile(chaos.latencies, 0.5) * 1000, 2)},
        "worker_respawn_ms": {"median": _median(chaos.respawn_ms), "max": round(max(chaos.respawn_ms, default=0), 1)},
        "host_gone_ms": {"median": _median(chaos.gone_ms), "max": round(max(chaos.gone_ms, default=0), 1)},
        "processes_left": chaos.processes_left,
        "replay": chaos.replays,
        "lost_with_worker": dict(chaos.worker_lost_episodes),
        "lost_with_host": dict(lost),
        "failures": dict(chaos.failures.most_common()), "failure_examples": chaos.examples,
    }


def chaos_checks(report: dict[str, Any]) -> list[tuple[str, bool]]:
    """What the chaos run must show (issue #29), each with whether it did."""
    config, host, worker = report["config"], report["lost_with_host"], report["lost_with_worker"]
    replays = max(1, config.get("min_replays", 1) * config["host_kills"])  # reports before min_replays: 1 a round
    return [
        (f"{config['host_kills']} host kills", report["host_kills"] >= config["host_kills"]),
        (f"{config['worker_kills']} worker kills", report["worker_kills"] >= config["worker_kills"]),
        ("0 processes left behind", report["processes_left"] == 0),
        (f"at least {replays} surviving episodes replayed ({config.get('min_replays', 1)} per round)",
         report["replay"]["checked"] >= replays),
        ("every surviving episode equals its sequential replay", report["replay"]["differed"] == 0),
        ("every episode open on a killed host answers episode_lost (control API and MCP)",
         host["checked"] > 0 and host["answered_episode_lost"] == host["checked"]
         and host["mcp_answered_episode_lost"] == host["mcp_checked"]),
        ("every episode lost with its worker answers episode_lost",
         worker["answered_episode_lost"] == worker["checked"]),
        ("no 500, no -32603 but worker_lost, no hang", not report["failures"]),
    ]


def chaos_summary_lines(report: dict[str, Any]) -> list[str]:
    host, worker = report["lost_with_host"], report["lost_with_worker"]
    return [
        f"host kills: {report['host_kills']}; worker kills: {report['worker_kills']} (a fresh worker process "
        f"started {report['worker_respawn_ms']['median']} ms after the SIGKILL, median; "
        f"{report['worker_respawn_ms']['max']} ms max); "
        f"{report['elapsed_s']} s",
        f"processes left after host kills: {report['processes_left']} (all gone {report['host_gone_ms']['median']} ms "
        f"after the SIGKILL, median; {report['host_gone_ms']['max']} ms max)",
        f"tool calls: {report['tool_calls']}; answered worker_lost: {report['outcomes'].get(WORKER_LOST, 0)}",
        f"surviving episodes replayed: {report['replay']['checked']}"
        + (f" ({report['replay']['changed']} of them with writes)" if "changed" in report["replay"] else "")
        + f", differing: {report['replay']['differed']}"
        + (f"; each host killed after {report['round_s']['median']} s of load, median ({report['round_s']['max']} s "
           f"max: at least {report['config']['round_seconds']:g} s, and until {report['config']['min_replays']} of its "
           "episodes were replayed)" if "round_s" in report else ""),
        f"episodes open on a killed host: {host['checked']}, answering episode_lost: {host['answered_episode_lost']} "
        f"(over MCP {host['mcp_answered_episode_lost']}/{host['mcp_checked']})",
        f"episodes lost with their worker: {worker['checked']}, answering episode_lost: "
        f"{worker['answered_episode_lost']}",
        "failures (500, -32603 but worker_lost, hangs): " + (", ".join(f"{k} {v}" for k, v in report["failures"].items())
                                                            or "none"),
    ]
