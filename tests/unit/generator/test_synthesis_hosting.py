"""The in-process ``Host`` and the cluster's ``ClusterEpisodes`` both offer every operation of
``SynthesisHost`` with its parameters, so one synthesis code path drives either
(tests/integration/test_ray_synth.py runs it on both and compares the files byte for byte).

The generator is not type-checked yet (pyproject.toml), so the signatures are compared here, as
tests/contract/test_host_api.py does for ``EpisodeControl``.
"""

from __future__ import annotations

import pytest

from scaleenv_mcp.cluster.episodes import ClusterEpisodes  # imports no Ray
from scaleenv_mcp.generator.synthesis.hosting import SynthesisHost
from scaleenv_mcp.host.host import Host
from tests.support_protocols import assert_offers, operations

OPERATIONS = operations(SynthesisHost)


def test_the_protocol_names_what_synthesis_does_to_episodes():
    assert OPERATIONS == ["call", "close", "create_episode", "diff", "fingerprint", "fork", "stage_tasks",
                          "unstage_tasks"]
    assert isinstance(vars(SynthesisHost)["worker_count"], property)


@pytest.mark.parametrize("implementation", [Host, ClusterEpisodes], ids=lambda c: c.__name__)
@pytest.mark.parametrize("operation", OPERATIONS)
def test_both_hosts_take_the_protocols_parameters(implementation: type, operation: str):
    assert_offers(implementation, SynthesisHost, operation)


@pytest.mark.parametrize("implementation", [Host, ClusterEpisodes], ids=lambda c: c.__name__)
def test_both_hosts_say_how_many_workers_serve(implementation: type):
    assert isinstance(vars(implementation)["worker_count"], property)
