"""Example: the ScaleEnv verifiers taskset, one rollout per task, with a scripted policy in the model's seat.

    python -m scaleenv_mcp.clients.examples.verifiers_rollout --token-file ~/.scaleenv/control-token \
        --domains smart_home express_logistics --tasks-per-domain 5 --policy oracle

For each domain, ``load_environment(domain=..., url=..., ...)`` builds the verifiers env (its
taskset is the domain's tasks); each task then runs the rollout's steps through the taskset's
own hooks, on a ``vf.Trace``: ``task.setup`` creates the episode, every policy action goes
through ``forward_call`` (what the taskset's MCP toolset runs for a model's tool call), the final
message becomes the trace's reply, and ``task.score`` records the host's reward as the trace's
``scaleenv`` reward. This is ``load_environment`` and the taskset's hooks on their own; verifiers'
own rollout engine (``vf-eval``, a harness and a model) runs them in clients/examples/verifiers_eval.py.
Needs verifiers 0.4.
"""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.clients.adapters.policies import OraclePolicy, RandomPolicy
from scaleenv_mcp.clients.adapters.remote import ScaleEnvRemote
from scaleenv_mcp.clients.examples.adapter_cli import main

__all__ = ["run"]


async def _rollout(task: Any, card: dict[str, Any], policy: str, seed: int) -> float:
    import verifiers.v1 as vf

    from scaleenv_mcp.clients.adapters.verifiers_env import ScaleEnvState, forward_call, list_episode_tools

    trace = vf.Trace(task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
                     agent=vf.AgentInfo(config=vf.AgentConfig()), state=ScaleEnvState())
    await task.setup(trace, None)
    chosen = OraclePolicy(card) if policy == "oracle" else RandomPolicy(await list_episode_tools(trace.state), seed)
    observation: Any = None
    while (step := chosen.next(observation)).tool is not None:
        result = await forward_call(trace.state, step.tool, step.arguments)
        observation = result.structured
    trace.root_reply = step.message
    await task.score(trace)
    return trace.rewards["scaleenv"].score


async def run(url: str, control_url: str, token_file: str, domains: list[str], per_domain: int, policy: str,
              seed: int) -> dict[str, float]:
    from scaleenv_mcp.clients.adapters.verifiers_env import load_environment

    rewards: dict[str, float] = {}
    async with ScaleEnvRemote(url, control_url, token_file=token_file) as remote:
        for domain in domains:
            cards = {card["id"]: card for card in await remote.tasks(domain)}  # the oracle's reference actions
            env = load_environment(domain=domain, url=url, control_url=control_url, token_file=token_file)
            for task in env.taskset.take(per_domain):
                rewards[task.data.task_id] = await _rollout(task, cards[task.data.task_id], policy, seed + len(rewards))
    return rewards


if __name__ == "__main__":
    main(__doc__.splitlines()[0], run)
