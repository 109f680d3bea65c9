"""``scaleenv relay`` end to end: ``scaleenv generate`` against it over real HTTP (the real
``openai`` client, loopback), a test answerer writing answer files, a cassette recorded
while it relays, and ``scaleenv generate --replay`` answering from that cassette offline.

The answerer sends bad input the way a model would (not JSON, a reply cut in half, tools
that were not asked for): it must go through the client's repair path like any endpoint's,
be recorded verbatim, and replay to the same package. An answer that never comes ends in
the per-request timeout and the retry budget (exit 3), and the run resumes later without
any answered request being asked again.
"""

from __future__ import annotations

import filecmp
import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

import scaleenv_mcp.generator.prompting as prompting
from scaleenv_mcp.generator.cassette import Cassette
from scaleenv_mcp.generator.pipeline import generate
from scaleenv_mcp.generator.relay import RelaySettings, running_relay
from scaleenv_mcp.generator.report import GenerationReport
from scaleenv_mcp.generator.roles import RolesFile, resolve_roles
from scaleenv_mcp.generator.stages.context import GenerateSettings
from tests.support_relay_answerer import Answerer, answering, scripted_answer

# one worker runs the whole module under pytest -n, so its module-scoped fixture is built once (#26)
pytestmark = pytest.mark.xdist_group("relay")

MODEL = "relay-test-model"


def _settings(root: Path, name: str) -> GenerateSettings:
    return GenerateSettings(keyword="pet care", slug="pet_care", out=root / name / "out" / "pet_care",
                            workdir=root / name / "work", tasks=0, mutation=False, concurrency=2)


def _run(settings: GenerateSettings, base_url: str | None, *, timeout: float = 30, budget: int = 20,
         replay: Cassette | None = None) -> tuple[GenerationReport, int]:
    roles = resolve_roles(RolesFile(), model=MODEL, base_url=base_url, timeout=timeout)
    return anyio.run(lambda: generate(settings, roles, retry_budget=budget, backoff=0.01, replay=replay))


def _bad_input(request: dict) -> str | None:
    """First answers of three roles are what a model might send; their repairs are scripted."""
    repair = request["messages"][-1]["content"].startswith("REPAIR:")
    if repair:
        return None
    if request["role"] == "domain_card":
        return "A veterinary clinic's front desk sounds like a good world to build."  # not JSON
    if request["role"] == "db_schema":
        good = scripted_answer(request)
        return good[: len(good) // 2]  # cut in half, reported as a normal stop
    if request["role"] == "tool_schemas":
        answer = json.loads(scripted_answer(request))
        answer["tools"].append({**answer["tools"][0], "name": "teleport_pet"})  # a tool nobody asked for
        return json.dumps(answer)
    return None


def _log(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "relay.log.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GenerationReport, int, Path]:
    """One run through the relay, recording: (root, report, exit code, relay folder)."""
    root = tmp_path_factory.mktemp("relay")
    relay_dir, cassette = root / "relay", root / "cassette"
    settings = RelaySettings(folder=relay_dir, record=cassette, answered_by="the scripted test answerer", poll=0.02)
    with running_relay(settings) as (_, base_url), answering(Answerer(relay_dir, override=_bad_input)):
        report, code = _run(_settings(root, "recorded"), base_url)
    return root, report, code, relay_dir


def test_generate_runs_through_the_relay_and_bad_input_is_repaired(recorded):
    root, report, code, relay_dir = recorded
    assert code == 0, report.status
    repairs = {(r.stage, r.role): r.repairs for r in report.usage}
    assert repairs[("card", "domain_card")] == 1 and repairs[("database", "db_schema")] == 1
    assert repairs[("tools", "tool_schemas")] == 1
    done = {p.stem: json.loads(p.read_text()) for p in (relay_dir / "done").glob("*.json")}
    assert not list((relay_dir / "pending").glob("*.json"))
    repaired = [r["messages"][-1]["content"] for r in done.values() if r["messages"][-1]["content"].startswith("REPAIR:")]
    assert any("teleport_pet" in text and "give exactly the tools" in text for text in repaired)
    assert len(repaired) == 3
    # every request named its role and stage from the generator's headers, and was answered once
    assert all(r["role"] != "unknown" and r["stage"] for r in done.values())
    answered = [e["key"] for e in _log(relay_dir) if e["event"] == "answered"]
    assert len(answered) == len(set(answered)) == len(done) == sum(r.calls for r in report.usage)
    # usage is counted from the text
    card = next(r for r in done.values() if r["role"] == "domain_card" and len(r["messages"]) == 2)
    first = next(e for e in _log(relay_dir) if e["event"] == "answered" and e["key"] == card["key"])
    text = (relay_dir / "answers" / f"{card['id']}.json").read_text()
    assert first["completion_tokens"] == (len(text) + 3) // 4


def test_the_cassette_replays_offline_to_the_same_package(recorded):
    root, report, _, _ = recorded
    cassette = Cassette.open(root / "cassette")
    assert cassette.meta.model == MODEL and cassette.meta.answered_by == "the scripted test answerer"
    assert len(cassette.entries) == sum(r.calls for r in report.usage)
    assert any(e.role == "domain_card" and not e.text.startswith("{") for e in cassette.entries.values())  # verbatim
    out, work = root / "replayed" / "pet_care", root / "replayed-work"
    done = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "generate", "pet care", "--out", str(out),
                           "--workdir", str(work), "--replay", str(root / "cassette"), "--tasks", "0",
                           "--no-mutation", "--concurrency", "2", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    replayed = json.loads(done.stdout)
    assert replayed["status"] == "complete"
    recorded_out = Path(report.out or "")
    names = sorted(p.name for p in recorded_out.iterdir())
    assert names == sorted(p.name for p in out.iterdir())
    _, mismatch, errors = filecmp.cmpfiles(recorded_out, out, names, shallow=False)
    assert mismatch == [] and errors == []


def test_replay_fails_clearly_when_one_prompt_changed(recorded, tmp_path, monkeypatch):
    root = recorded[0]
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    for path in prompting.PROMPTS_DIR.iterdir():
        (prompts / path.name).write_text(path.read_text())
    edited = prompts / "db_schema.md"
    edited.write_text(edited.read_text().replace("\n=== user ===\n", "\nBe brief.\n=== user ===\n", 1))
    monkeypatch.setattr(prompting, "PROMPTS_DIR", prompts)
    prompting._template.cache_clear()
    prompting.prompt_fragment.cache_clear()
    try:
        report, code = _run(_settings(tmp_path, "edited"), None, replay=Cassette.open(root / "cassette"))
    finally:
        prompting._template.cache_clear()
        prompting.prompt_fragment.cache_clear()
    assert code == 3
    assert "\n" not in report.status
    assert "role db_schema, stage database" in report.status and "the prompts changed: re-record" in report.status
    calls = {(r.stage, r.role): r.calls for r in report.usage}
    assert calls[("card", "domain_card")] == 2 and calls[("tools", "tool_schemas")] == 2  # replayed, unchanged


def test_an_answer_that_never_comes_spends_the_budget_and_the_run_resumes(tmp_path):
    relay_dir = tmp_path / "relay"
    settings = RelaySettings(folder=relay_dir, poll=0.02)
    never = lambda request: request["role"] == "db_schema"  # noqa: E731
    run = _settings(tmp_path, "slow")
    with running_relay(settings) as (_, base_url):
        with answering(Answerer(relay_dir, skip=never)):
            # 3 s: the answered roles must be answered within it even on a loaded machine (at 1 s one was
            # asked again under CI load, and answered twice)
            report, code = _run(run, base_url, timeout=3, budget=1)
        assert code == 3, report.status
        assert "retry budget" in report.status and "no answer within 3s" in report.status
        first = _log(relay_dir)
        answered_before = {e["key"] for e in first if e["event"] == "answered"}
        assert {e["role"] for e in first if e["event"] == "unanswered"} == {"db_schema"}
        with answering(Answerer(relay_dir)):
            report, code = _run(run, base_url)
    assert code == 0, report.status
    second = _log(relay_dir)[len(first):]
    received_again = {e["key"] for e in second if e["event"] == "received"}
    assert received_again and not received_again & answered_before  # nothing answered was asked again
    answered = [e["key"] for e in _log(relay_dir) if e["event"] == "answered"]
    assert len(answered) == len(set(answered))


def test_a_resumed_recording_answers_what_the_cassette_holds(recorded, tmp_path):
    """Recording again into a cassette (after a prompt fix, say): what it holds is answered at once,
    only new requests wait for answer files. Nobody answers here, so every request must be held."""
    root = recorded[0]
    before = (root / "cassette" / "answers.jsonl").read_text()
    relay_dir = tmp_path / "relay"
    settings = RelaySettings(folder=relay_dir, record=root / "cassette", answered_by="the scripted test answerer",
                             poll=0.02)
    with running_relay(settings) as (_, base_url):
        report, code = _run(_settings(tmp_path, "again"), base_url, timeout=5, budget=0)
    assert code == 0, report.status
    assert not list((relay_dir / "pending").glob("*.json")) and not list((relay_dir / "done").glob("*.json"))
    assert {e["event"] for e in _log(relay_dir)} == {"from_cassette"}
    assert (root / "cassette" / "answers.jsonl").read_text() == before
