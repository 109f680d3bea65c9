"""Example: NeMo Gym rollouts on ScaleEnv domains through the ScaleEnv resources server.

    python -m scaleenv_mcp.clients.examples.nemo_gym_rollout --token-file ~/.scaleenv/control-token \
        --domains smart_home express_logistics --tasks-per-domain 5 --policy oracle

Starts ``ScaleEnvResourcesServer`` (a NeMo Gym ``SimpleResourcesServer``) on a free loopback port
per domain, builds the dataset rows (``dataset_rows``), then plays each row the way a NeMo Gym
agent server does: ``/seed_session`` with the row, one ``POST /{tool}`` per function call of the
policy, and ``/verify`` with the row and the final response, whose ``reward`` is the host's.
Prints one JSON line (clients/examples/adapter_cli.py). Needs nemo-gym (Python 3.12 or newer).
"""

from __future__ import annotations

from typing import Any

import httpx

from scaleenv_mcp.clients.adapters.policies import OraclePolicy, RandomPolicy
from scaleenv_mcp.clients.adapters.remote import HostError, ScaleEnvRemote
from scaleenv_mcp.clients.examples.adapter_cli import free_port, main, serve_in_thread

__all__ = ["run"]


def _serve(domain: str, url: str, control_url: str, token_file: str) -> tuple[str, Any]:
    from nemo_gym.config_types import BaseServerConfig
    from nemo_gym.server_utils import ServerClient
    from omegaconf import OmegaConf

    from scaleenv_mcp.clients.adapters.nemo_gym_server import ScaleEnvResourcesServer, ScaleEnvResourcesServerConfig

    port = free_port()
    config = ScaleEnvResourcesServerConfig(host="127.0.0.1", port=port, entrypoint="", name=f"scaleenv_{domain}",
                                           scaleenv_url=url, scaleenv_control_url=control_url,
                                           scaleenv_token_file=token_file, scaleenv_domain=domain)
    # Standalone: no NeMo Gym head server to ask for the global config (its own tests do the same).
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=port),
                          global_config_dict=OmegaConf.create({}))
    return serve_in_thread(ScaleEnvResourcesServer(config=config, server_client=client).setup_webserver(), port)


def _response(text: str) -> dict[str, Any]:
    """The final model response as NeMo Gym's ``/verify`` takes it (a Responses API object)."""
    return {"id": "resp-example", "created_at": 0, "model": "example-policy", "object": "response",
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
            "output": [{"type": "message", "id": "msg-final", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": []}]}]}


async def _rollout(base_url: str, row: dict[str, Any], task: dict[str, Any], policy: str, seed: int) -> float:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as gym:  # one cookie jar: one Gym session
        seeded = await gym.post("/seed_session", json=row)
        if seeded.status_code != 200:
            raise HostError(f"seed_session failed ({seeded.status_code}): {seeded.text[:300]}")
        tools = [{"name": t["name"], "inputSchema": t["parameters"]} for t in row["responses_create_params"]["tools"]]
        chosen = OraclePolicy(task) if policy == "oracle" else RandomPolicy(tools, seed)
        observation: Any = None
        while (step := chosen.next(observation)).tool is not None:
            observation = (await gym.post(f"/{step.tool}", json=step.arguments)).json()
        verified = await gym.post("/verify", json={**row, "response": _response(step.message or "")})
        if verified.status_code != 200:
            raise HostError(f"verify failed ({verified.status_code}): {verified.text[:300]}")
        return float(verified.json()["reward"])


async def run(url: str, control_url: str, token_file: str, domains: list[str], per_domain: int, policy: str,
              seed: int) -> dict[str, float]:
    from scaleenv_mcp.clients.adapters.nemo_gym_server import dataset_rows

    rewards: dict[str, float] = {}
    async with ScaleEnvRemote(url, control_url, token_file=token_file) as remote:
        for domain in domains:
            tasks = {t["id"]: t for t in (await remote.tasks(domain))[:per_domain]}
            rows = await dataset_rows(remote, domain, per_domain)
            base_url, server = _serve(domain, url, control_url, token_file)
            try:
                for row in rows:
                    rewards[row["task_id"]] = await _rollout(base_url, row, tasks[row["task_id"]], policy,
                                                             seed + len(rewards))
            finally:
                server.should_exit = True
    return rewards


if __name__ == "__main__":
    main(__doc__.splitlines()[0], run)
