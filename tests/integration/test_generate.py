"""A domain grown end to end from "pet care" against the loopback LLM, then served and verified;
and the never-lose-work property: `scaleenv generate` killed with SIGKILL again and again.

The reference run (in-process, concurrency 4) is the run never killed. The resume test runs
the real CLI as a subprocess (concurrency 1, so a request is only sent once the previous
answer is stored), kills it at chosen requests and while it validates, restarts it each
time, and then demands: no request answered twice, nothing ever at --out before the end, and a
package byte-identical to the reference one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.generator.pipeline import generate
from scaleenv_mcp.generator.report import GenerationReport
from scaleenv_mcp.generator.roles import RolesFile, resolve_roles
from scaleenv_mcp.generator.stages.context import GenerateSettings
from scaleenv_mcp.host.host import Host
from scaleenv_mcp.settings import HostSettings
from tests.support_llm_server import FakeLLM, running_fake_llm

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("generate")

TOOLS = ["book_appointment", "cancel_appointment", "find_pets", "get_pet", "register_pet"]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeLLM]:
    with running_fake_llm() as server:
        yield server


@pytest.fixture(scope="module")
def reference(fake: FakeLLM, tmp_path_factory: pytest.TempPathFactory) -> tuple[GenerationReport, int, Path, int]:
    """The run never killed: report, exit code, package folder, requests answered."""
    fake.reset()
    root = tmp_path_factory.mktemp("reference")
    settings = GenerateSettings(keyword="pet care", slug="pet_care", out=root / "out" / "pet_care",
                                workdir=root / "work", tasks=2, concurrency=4)
    roles = resolve_roles(RolesFile(), model="fake-model", base_url=fake.base_url)
    report, code = anyio.run(lambda: generate(settings, roles, backoff=0.01))
    answered = len(fake.requests(status="200"))
    assert fake.answered_twice() == []
    return report, code, settings.out, answered


def test_a_domain_is_grown_end_to_end(reference: tuple[GenerationReport, int, Path, int]):
    report, code, out, answered = reference
    assert code == 0, report.status
    assert report.status == "complete" and report.out == str(out)
    assert [t.tool for t in report.tools if t.passed] == TOOLS and report.first_try_pass_rate == 1.0
    assert report.validation is not None and report.validation.passed and report.validation.mutation_score >= 0.6
    assert report.validation.verified == "2/2 tasks pass every gate" and report.tasks.kept == 2
    assert report.llm_edges_added == 2 and report.tables == 3
    assert sorted(p.name for p in out.iterdir()) == ["domain.json", "graph.json", "schema.sql", "seed.json",
                                                     "tasks.jsonl", "tests.json", "tools.py"]
    manifest = json.loads((out / "domain.json").read_text())
    assert manifest["provenance"]["kind"] == "generated" and manifest["provenance"]["model"] == "fake-model"
    book = next(t for t in manifest["tools"] if t["name"] == "book_appointment")
    assert any("register_pet has run first" in p for p in book["preconditions"])  # an LLM-judged edge
    # usage per stage and role, with every live call counted once
    calls = {(r.stage, r.role): r.calls for r in report.usage}
    assert calls[("procedural", "code")] == 5 and calls[("procedural", "tests")] == 5
    # the LLM expansion gate was asked between chains, and its feasibility score is what the tasks record
    assert calls[("tasks", "expansion_gate")] >= 2
    tasks = [json.loads(line) for line in (out / "tasks.jsonl").read_text().splitlines()]
    assert all(t["meta"]["chains"][0] == t["meta"]["seed_chain"] for t in tasks)
    assert any(t["meta"]["feasibility"] == 0.8 for t in tasks)  # the gate's score (not asked when no writer is left)
    # seed chains written as code by the LLM: read without running, refused ones replaced by sampled chains
    assert calls[("tasks", "chain_writer")] >= 2 and report.tasks.chain_code.get("refused", 0) >= 1
    written = [t for t in tasks if t["meta"]["seed_chain_code"]]
    assert written and report.tasks.chain_code["used"] >= len(written)
    assert all("def chain(call)" in t["meta"]["seed_chain_code"] for t in written)
    # the task writer's wordings passed the rewording check (generator/synthesis/rewording.py) and were taken
    assert not any(reason.startswith("wording_") for reason in report.tasks.rejected)
    assert all(t["user"]["opening"] == "Hi! I'd like some help with my pet's care, please." for t in tasks)
    assert sum(calls.values()) == answered
    saved = json.loads((Path(report.workdir) / "report.json").read_text())
    assert saved["first_try_pass_rate"] == 1.0 and saved["status"] == "complete"


@pytest.mark.anyio
async def test_the_grown_domain_is_served_and_its_tasks_verify(reference: tuple[GenerationReport, int, Path, int],
                                                               tmp_path: Path):
    from scaleenv_mcp.verifier.verify import verify_domain

    out = reference[2]
    settings = HostSettings(workers=1, port=0, control_port=None, token_file=tmp_path / "token")
    async with Host.running(settings, domains=[str(out)]) as host:
        assert host.status["pet_care"] == "online"  # the host validated it itself
        episode = await host.create_episode("pet_care")
        async with host.client(episode.id) as client:
            assert sorted(t.name for t in (await client.list_tools()).tools) == TOOLS
            pet = await client.call_tool("get_pet", {"pet_id": "PET-00003"})
            assert pet.structured_content["name"] == "Biscuit" and not pet.is_error
            refused = await client.call_tool("book_appointment", {"pet_id": "PET-00003", "day": "2026-03-12",
                                                                  "slot": "09:00", "reason": "check"})
            assert refused.is_error and "already booked" in refused.content[0].text
    verified = await verify_domain(out, workers=1, determinism=False)
    assert verified.tasks == 2 and verified.passed == 2


def _first_difference(a: Path, b: Path) -> str:
    for number, (x, y) in enumerate(zip(a.read_text().splitlines(), b.read_text().splitlines()), start=1):
        if x != y and a.suffix == ".jsonl":
            one, two = json.loads(x), json.loads(y)
            fields = sorted(k for k in one if one[k] != two.get(k))
            return f"line {number} fields {fields}: {[one[k] for k in fields]} vs {[two.get(k) for k in fields]}"[:1500]
        if x != y:
            return f"line {number}: {x[:300]!r} vs {y[:300]!r}"
    return "one file is longer"


def _cli(fake: FakeLLM, root: Path) -> list[str]:
    return [sys.executable, "-m", "scaleenv_mcp", "generate", "pet care", "--model", "fake-model", "--base-url",
            fake.base_url, "--out", str(root / "out" / "pet_care"), "--workdir", str(root / "work"), "--tasks", "2",
            "--concurrency", "1", "--backoff", "0.01", "--no-mutation", "--json"]


@pytest.mark.slow
def test_killed_runs_resume_without_repeating_a_request_and_end_byte_identical(
        fake: FakeLLM, reference: tuple[GenerationReport, int, Path, int], tmp_path: Path):
    _, _, reference_out, answered = reference
    fake.reset()
    # Kills at requests arriving at the server (the request is dropped, as by a crash in flight):
    # the database schema request, the second seed chain written as code (inside task synthesis)
    # and the second task's wording; and kills while no request is in flight: during a tool's
    # validation and during the whole package's validation.
    seen: Counter[str] = Counter()
    kill_at = {("db_schema", 1), ("chain_writer", 2), ("task_writer", 2)}
    plan: list[Path | None] = [None, tmp_path / "work/procedural/get_pet/round-0/pet_care/tests.json",
                               tmp_path / "work/package/pet_care/graph.json", None, None]
    running: dict[str, int] = {}

    def killer(role: str, marker: str | None) -> bool:
        seen[role] += 1
        if (role, seen[role]) in kill_at and "pid" in running:
            os.kill(running["pid"], signal.SIGKILL)
            return True
        return False

    fake.on_request = killer
    out = tmp_path / "out" / "pet_care"
    command = _cli(fake, tmp_path)
    for step, kill_when in enumerate(plan):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        running["pid"] = process.pid
        while kill_when is not None and process.poll() is None and not kill_when.exists():
            time.sleep(0.005)
        if kill_when is not None:
            process.send_signal(signal.SIGKILL)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == -signal.SIGKILL, (step, stderr.decode()[-2000:])
        assert not out.exists(), f"something appeared at --out after kill {step}"
    running.clear()
    finished = subprocess.run(command, capture_output=True, timeout=120)
    assert finished.returncode == 0, finished.stderr.decode()[-3000:]
    assert json.loads(finished.stdout)["status"] == "complete"
    assert fake.answered_twice() == []
    assert len(fake.requests(status="200")) == answered  # every answer asked for exactly once in all
    assert [r.role for r in fake.requests(status="killed")] == ["db_schema", "chain_writer", "task_writer"]
    assert seen["db_schema"] == 2 and seen["task_writer"] == 3  # each killed request was sent once more
    written = {(r.stage, r.role): r.calls for r in reference[0].usage}[("tasks", "chain_writer")]
    assert seen["chain_writer"] == written + 1
    final = json.loads(finished.stdout)
    for file in sorted(reference_out.iterdir()):
        assert (out / file.name).read_bytes() == file.read_bytes(), (
            f"{file.name} differs from the run never killed: {_first_difference(file, out / file.name)}; "
            f"task synthesis rejected {reference[0].tasks.rejected} then {final['tasks']['rejected']}")
    assert sorted(p.name for p in out.parent.iterdir()) == ["pet_care"]  # no partial copies left beside it
