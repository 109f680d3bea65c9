"""The ScaleEnv taskset under the top-level name verifiers resolves plugins by: put this folder on
PYTHONPATH (with the repository) and run ``vf-eval scaleenv_verifiers --env.taskset.domain ...``
(docs/integrations.md). Everything is in clients/adapters/verifiers_env.py."""

from scaleenv_mcp.clients.adapters.verifiers_env import ScaleEnvTaskset

__all__ = ["ScaleEnvTaskset"]
