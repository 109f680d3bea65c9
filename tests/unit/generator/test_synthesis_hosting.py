"""The in-process ``Host`` offers every operation of ``SynthesisHost`` with its parameters (what the
candidate factory drives, locally and inside each host actor of ``tasks synth --ray``); and a Ray run
refuses what stays in this process (a chain writer, a gate of one's own) before it starts any Ray.

The generator is not type-checked yet (pyproject.toml), so the signatures are compared here, as
tests/contract/test_host_api.py does for ``EpisodeControl``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scaleenv_mcp.domain.catalog import resolve_domain_path
from scaleenv_mcp.errors import UsageError
from scaleenv_mcp.generator.synthesis.chain_code import ChainRequest, WrittenChain
from scaleenv_mcp.generator.synthesis.gate import RuleGate
from scaleenv_mcp.generator.synthesis.hosting import SynthesisHost
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.host.host import Host
from tests.support_protocols import assert_offers, operations

OPERATIONS = operations(SynthesisHost)


def test_the_protocol_names_what_synthesis_does_to_episodes():
    assert OPERATIONS == ["call", "close", "create_episode", "diff", "fingerprint", "fork", "stage_tasks",
                          "unstage_tasks"]
    assert isinstance(vars(SynthesisHost)["worker_count"], property)


@pytest.mark.parametrize("operation", OPERATIONS)
def test_the_host_takes_the_protocols_parameters(operation: str):
    assert_offers(Host, SynthesisHost, operation)


def test_the_host_says_how_many_workers_serve():
    assert isinstance(vars(Host)["worker_count"], property)


async def _writer(request: ChainRequest) -> WrittenChain:
    raise AssertionError("never asked: the run is refused first")


@pytest.mark.anyio
@pytest.mark.parametrize("extra", [{"gate": RuleGate()}, {"writer": _writer}], ids=["gate", "writer"])
async def test_ray_with_a_writer_or_a_gate_is_refused_before_anything_runs(extra: dict[str, object], tmp_path: Path):
    with pytest.raises(UsageError, match="offline synthesis only"):
        await synthesize_tasks(resolve_domain_path("smart_home"), 1, 0, out=tmp_path / "t.jsonl", ray="local",
                               hosts=1, **extra)  # type: ignore[arg-type]
    assert not (tmp_path / "t.jsonl").exists()
