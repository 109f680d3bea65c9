"""Adapters that plug a running ``scaleenv serve`` into other frameworks' training loops (issue #23).

Each talks to the host over HTTP only (the control API and MCP) through ``remote``, and imports
nothing of this project's host, so it runs inside the framework's own environment, whose pins
(verifiers' ``mcp==2.0.0``, OpenEnv's ``fastmcp``, NeMo Gym's Python 3.12) conflict with ours:

- ``verifiers_env``: a verifiers taskset (tasks, a toolset forwarding to the episode, our reward);
- ``openenv_env``: an OpenEnv ``Environment`` whose ``reset()`` creates an episode;
- ``nemo_gym_server``: a NeMo Gym resources server backed by the control API.

This package's ``__init__`` imports nothing, so importing one adapter never loads another's framework.
"""

__all__: list[str] = []
