"""Controlled expansion: state patches for tools that only error, and further chains behind a gate."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.episodes.trace import OutcomeKind
from scaleenv_mcp.generator.graph import build_graph
from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver
from scaleenv_mcp.generator.synthesis.candidate import CandidateFactory, ProbeEpisode, StatePatcher
from scaleenv_mcp.generator.synthesis.executor import ChainRun
from scaleenv_mcp.generator.synthesis.gate import ExpansionDecision, GateView, RuleGate
from scaleenv_mcp.generator.synthesis.task_state import TaskState
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.host.host import Host

pytestmark = pytest.mark.anyio
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


@pytest.fixture
def returned_library(tmp_path: Path) -> Path:
    """The fixture library with its only loan already returned: ``return_book`` refuses every seed row."""
    target = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, target)
    seed = json.loads((target / "seed.json").read_text())
    for loan in seed["loans"]:
        loan["returned_on"] = "2026-03-10"
    (target / "seed.json").write_text(json.dumps(seed, indent=2))
    tests = json.loads((target / "tests.json").read_text())
    for case in tests["cases"]:
        if case["name"] == "return_book closes the loan and restocks":  # its loan is open again in the case's fixture
            case["fixture"] = {"rows": [{"op": "update", "table": "loans", "key": {"loan_id": "LN-00007"},
                                         "values": {"returned_on": None}}]}
    (target / "tests.json").write_text(json.dumps(tests, indent=2))
    (target / "tasks.jsonl").write_text("")
    return target


def _view(**changes: object) -> GateView:
    base = dict(task_id="t", complexity=1.0, whole=10.0, expanded=["a", "b"], chains=[["a"]], left=["c"], answered=0.9)
    return GateView.model_validate({**base, **changes})


async def test_rule_gate_reads_complexity_feasibility_and_tools_left():
    always = RuleGate(chances=(1.0, 1.0))
    assert (await always(_view(), random.Random(0))).add_chain
    assert (await always(_view(), random.Random(0))).feasibility == 0.9
    assert not (await always(_view(chains=[["a"], ["b"], ["c"]]), random.Random(0))).add_chain  # chances run out
    assert not (await always(_view(complexity=6.0), random.Random(0))).add_chain  # past 0.6 x the whole graph
    assert not (await always(_view(answered=0.3), random.Random(0))).add_chain  # below the 0.35 floor
    assert not (await always(_view(left=[]), random.Random(0))).add_chain
    assert not (await RuleGate(chances=(0.0,))(_view(), random.Random(0))).add_chain


async def test_a_patch_gives_a_refusing_tool_a_row_it_accepts(returned_library: Path, settings):
    package = load_domain(returned_library)
    async with Host.running(settings, [returned_library]) as host:
        factory = CandidateFactory(host, package, build_graph(package.manifest), 1)
        state = TaskState(host, package.slug, package.manifest, factory.builder, factory.world, "draft:patch", [], {})
        await state.open()
        refused = await state.call("return_book", {"loan_id": "LN-00007"})
        assert refused.kind is not OutcomeKind.success and "already returned" in (refused.message or "")
        rng = random.Random(3)
        probe = ProbeEpisode(host.registry, await state.fork())
        resolver = ArgumentResolver(package.manifest, state.world, rng)
        patcher = StatePatcher(factory, state, probe, ChainRun(), resolver, None, rng)
        observation = await patcher(package.manifest.tool("return_book"))
        assert observation is not None
        [patch] = state.patches
        assert patch.table == "loans" and patch.row is not None and patch.row["returned_on"] is None
        assert observation.result["loan_id"] == patch.row["loan_id"]
        # The main episode is the patched start state (the probe's return happened on the probe's episode).
        assert (await _returned_on(host, state.episode_id))[patch.row["loan_id"]] is None
        assert (await _returned_on(host, probe.episode_id))[patch.row["loan_id"]] == "2026-03-10"
        assert resolver.world.row("loans", patch.row["loan_id"]) is not None
        await probe.close()
        await state.close()


async def _returned_on(host: Host, episode_id: str) -> dict[str, str | None]:
    loans = (await host.registry.dump(episode_id, ["loans"]))["loans"]
    columns = loans["columns"]
    return {row[columns.index("loan_id")]: row[columns.index("returned_on")] for row in loans["rows"]}


async def test_further_chains_when_the_gate_accepts(tmp_path: Path):
    target = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, target)
    views: list[GateView] = []

    async def eager(view: GateView, rng: random.Random) -> ExpansionDecision:
        views.append(view)
        return ExpansionDecision(add_chain=True, feasibility=0.75, reason="test")

    report = await synthesize_tasks(target, 6, 5, workers=1, gate=eager)
    tasks = load_tasks(target / "tasks.jsonl")
    assert report.produced == 6
    grown = [t for t in tasks if len(t.meta.chains) >= 2]
    assert grown, report.rejected
    for task in grown:
        assert task.meta.chains[0] == task.meta.seed_chain
        assert [a.tool for a in task.actions] == [tool for chain in task.meta.chains for tool in chain]
        assert task.meta.chains[-1][-1] != task.meta.chains[0][-1]  # another end tool
        assert task.meta.feasibility == 0.75 and task.difficulty != "easy"
    assert views and all(v.expanded and v.whole > 0 and v.chains for v in views)
