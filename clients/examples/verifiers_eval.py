"""Example: ``vf-eval`` on ScaleEnv domains, verifiers' own rollout engine end to end.

    python -m scaleenv_mcp.clients.examples.verifiers_eval --token-file ~/.scaleenv/control-token \
        --domains smart_home express_logistics --tasks-per-domain 5 --policy oracle

Runs verifiers' ``vf-eval`` once, over every domain, with the ScaleEnv taskset (``scaleenv_verifiers``,
clients/adapters/verifiers_env.py): its null harness (verifiers' chat program, which uv sets up
from PyPI on first use) talks to a model through verifiers' interception proxy; the model here
is the oracle or random policy served as a chat-completions endpoint (policy_model.py). Each
rollout's setup creates an episode through the control API, the model's tool calls go through
the taskset's MCP toolset to the episode, and the trace's ``scaleenv`` reward is the host's.
Reads the rewards back from vf-eval's traces.jsonl and prints one JSON line. Needs verifiers 0.4
and uv in the environment it runs in.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from scaleenv_mcp.clients.adapters.remote import HostError, ScaleEnvRemote
from scaleenv_mcp.clients.examples.adapter_cli import free_port, main, serve_in_thread
from scaleenv_mcp.clients.examples.policy_model import policy_app

__all__ = ["run"]

PLUGIN_DIR = Path(__file__).resolve().parents[1] / "adapters" / "verifiers_plugin"


def _vf_eval(domains: list[str], per_domain: int, policy: str, model_url: str, host: dict[str, str],
             out: str) -> list[str]:
    return [str(Path(sys.executable).parent / "vf-eval"), "scaleenv_verifiers",
            "--env.taskset.domain", ",".join(domains), "--env.taskset.per-domain", str(per_domain),
            "--env.taskset.task.url", host["url"],
            "--env.taskset.task.control-url", host["control_url"], "--env.taskset.task.token-file", host["token_file"],
            "--env.agent.harness.id", "null", "--env.agent.runtime.type", "subprocess",
            "--model", policy, "--client.base-url", model_url, "--client.api-key-var", "SCALEENV_POLICY_KEY",
            "--no-push", "--select.limit", str(per_domain * len(domains)), "--rich", "None", "--output-dir", out]


def _rewards(out: str) -> dict[str, float]:
    """task id -> the ``scaleenv`` reward of its trace; an episode that errored is an error here."""
    rewards: dict[str, float] = {}
    for path in Path(out).rglob("traces.jsonl"):
        for line in path.read_text().splitlines():
            episode = json.loads(line)
            traces: Any = episode["traces"]
            for trace in traces.values() if isinstance(traces, dict) else traces:
                task_id = trace["task"]["data"]["task_id"]
                reward = (trace.get("rewards") or {}).get("scaleenv")
                if reward is None:
                    errors = [e["message"][:300] for e in trace.get("errors", []) + episode.get("errors", [])]
                    raise HostError(f"verifiers scored no reward for {task_id}: {errors}")
                rewards[task_id] = float(reward["score"])
    return rewards


async def run(url: str, control_url: str, token_file: str, domains: list[str], per_domain: int, policy: str,
              seed: int) -> dict[str, float]:
    async with ScaleEnvRemote(url, control_url, token_file=token_file) as remote:
        tasks = [task for domain in domains for task in (await remote.tasks(domain))[:per_domain]]
    base_url, server = serve_in_thread(policy_app(policy, tasks, seed), free_port())
    env = {**os.environ, "SCALEENV_POLICY_KEY": "unused",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN_DIR), os.environ.get("PYTHONPATH")]))}
    host = {"url": url, "control_url": control_url, "token_file": token_file}
    rewards: dict[str, float] = {}
    try:  # one vf-eval over every domain: its start-up is most of a short run's time
        with tempfile.TemporaryDirectory(prefix="scaleenv-vf-") as out:
            process = await asyncio.create_subprocess_exec(
                *_vf_eval(domains, per_domain, policy, f"{base_url}/v1", host, out), env=env,
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
            output, _ = await process.communicate()
            if process.returncode != 0:
                raise HostError(f"vf-eval failed ({process.returncode}): {output.decode()[-1500:]}")
            rewards.update(_rewards(out))
    finally:
        server.should_exit = True
    return rewards


if __name__ == "__main__":
    main(__doc__.splitlines()[0], run)
