"""Example: OpenEnv rollouts on ScaleEnv domains, served by OpenEnv's own server and driven by its client.

    python -m scaleenv_mcp.clients.examples.openenv_rollout --token-file ~/.scaleenv/control-token \
        --domains smart_home express_logistics --tasks-per-domain 5 --policy oracle

Starts OpenEnv's FastAPI app (``create_fastapi_app``) around ``ScaleEnvEnvironment`` on a free
loopback port, then for each task: ``GenericEnvClient.reset(task_id=...)`` (a new episode on
the scaleenv host), one ``call_tool`` step per policy action, and a ``finish`` step whose
reward is the host's; with ``--user scripted``, the policy's last words go to the scripted user
as ``message`` steps until the user ends the episode (the reward arrives on that step). Prints one JSON line (clients/examples/adapter_cli.py). The oracle scores
1.0, the random policy about 0. Needs openenv-core and uvicorn (which it brings); run it where
openenv-core is installed (its fastmcp pin conflicts with ours).
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.clients.adapters.policies import OraclePolicy, RandomPolicy
from scaleenv_mcp.clients.adapters.remote import ScaleEnvRemote
from scaleenv_mcp.clients.examples.adapter_cli import free_port, main, serve_in_thread

__all__ = ["run"]


async def _episode(base_url: str, task: dict[str, Any], policy: str, seed: int, user: str) -> tuple[float, int]:
    """The reward, and how many messages the policy sent the user."""
    from openenv import GenericEnvClient

    async with GenericEnvClient(base_url=base_url) as client:
        result = await client.reset(task_id=task["id"])
        tools = result.observation["tools"]
        chosen = OraclePolicy(task) if policy == "oracle" else RandomPolicy(
            [{"name": t["name"], "inputSchema": t["input_schema"]} for t in tools], seed)
        observation: Any = None
        messages = 0
        while True:
            step = chosen.next(observation)
            if step.tool is None:
                kind = "message" if user == "scripted" else "finish"
                result = await client.step({"type": kind, "message": step.message})
                messages += 1
                if result.done:
                    return float(result.reward or 0.0), messages
                continue  # the scripted user answered: the policy speaks again
            result = await client.step({"type": "call_tool", "tool_name": step.tool, "arguments": step.arguments})
            observation = result.observation.get("result")


async def run(url: str, control_url: str, token_file: str, domains: list[str], per_domain: int, policy: str,
              seed: int, user: str = "facts") -> tuple[dict[str, float], dict[str, Any]]:
    """Reward per task id (each task its own OpenEnv session and scaleenv episode), and how many
    messages the policy sent the user before the episode ended."""
    from scaleenv_mcp.clients.adapters.openenv_env import build_app

    rewards: dict[str, float] = {}
    messages: dict[str, int] = {}
    async with ScaleEnvRemote(url, control_url, token_file=token_file) as remote:
        plan = {domain: (await remote.tasks(domain))[:per_domain] for domain in domains}
    for domain, tasks in plan.items():  # one OpenEnv server per domain, one session per task
        app = build_app(url=url, control_url=control_url, token_file=token_file, domain=domain, user=user)
        base_url, server = serve_in_thread(app, free_port())
        try:
            for task in tasks:
                rewards[task["id"]], messages[task["id"]] = await _episode(base_url, task, policy, seed + len(rewards),
                                                                           user)
        finally:
            server.should_exit = True
    return rewards, {"user": user, "messages": messages}


if __name__ == "__main__":
    main(__doc__.splitlines()[0], run, {"--user": {"choices": ["facts", "scripted"], "default": "facts"}})
