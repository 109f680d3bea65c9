"""LLM rewording of synthesised tasks and its check: the real openai client against the loopback LLM.

The same module rewords in the generator's stage 7 and in `scaleenv tasks synth --model`; a
wording that drops a fact, names an id the user cannot know, leaks a withheld value or is not
JSON is refused and the template's stays, counted under its reason.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from typer.testing import CliRunner

from scaleenv_mcp.cli import tasks as tasks_cli
from scaleenv_mcp.domain.loader import DomainPackage, load_domain
from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task, TaskAction, UserSpec
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.drafts import TaskWording
from scaleenv_mcp.generator.roles import RolesFile, resolve_roles
from scaleenv_mcp.generator.synthesis.rewording import check_wording, reword_tasks, task_writer_asker
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.verifier.realism import internal_ids
from tests.support_llm_server import FakeLLM, Fault

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"
Answer = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def synthesised(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task]]:
    """Three template-worded tasks of the fixture library (seed 1), synthesised once for the module."""
    package = tmp_path_factory.mktemp("rewording") / "tiny_library"
    shutil.copytree(FIXTURE, package)
    anyio.run(lambda: synthesize_tasks(package, 3, 1, out=package / "template.jsonl", workers=1))
    return package, load_tasks(package / "template.jsonl")


def _reword(fake: FakeLLM, package: DomainPackage, tasks: list[Task]) -> tuple[list[Task], dict[str, int]]:
    roles = resolve_roles(RolesFile(), model="fake-model", base_url=fake.base_url, only=("task_writer",))

    async def run() -> tuple[list[Task], dict[str, int]]:
        async with task_writer_asker(roles, seed=0) as ask:
            return await reword_tasks(tasks, ask, package.manifest, package.seed)

    return anyio.run(run)


def test_accepted_wording_replaces_only_the_user_side(fake: FakeLLM, synthesised: tuple[Path, list[Task]]):
    path, tasks = synthesised
    reworded, counts = _reword(fake, load_domain(path), tasks)
    assert counts == {"accepted": 3}
    for before, after in zip(tasks, reworded, strict=True):
        assert after.user.opening == "Hi! I'd like some help with my pet's care, please."
        assert after.user.instruction != before.user.instruction
        assert {**after.user.known, **after.user.withheld} == {**before.user.known, **before.user.withheld}
        assert after.model_dump(exclude={"user"}) == before.model_dump(exclude={"user"})  # actions, gold, meta, ids


def _drop_fact(good: dict[str, Any], _: dict[str, Any]) -> dict[str, Any]:
    return {**good, "instruction": "You are a library member. Do what you came for, then say goodbye."}


def _leak(good: dict[str, Any], _: dict[str, Any]) -> dict[str, Any]:
    name, value = sorted(good["known"].items())[0]
    known = {k: v for k, v in good["known"].items() if k != name}
    return {**good, "opening": f"Hello, it is about {value}.", "known": known, "withheld": {name: value}}


def _changed(good: dict[str, Any], _: dict[str, Any]) -> dict[str, Any]:
    name = sorted(good["known"])[0]
    return {**good, "known": {**good["known"], name: "something else"}}


def _internal_id(hidden: list[str]) -> Answer:
    def answer(good: dict[str, Any], _: dict[str, Any]) -> dict[str, Any]:
        other = next(i for i in hidden if i not in good["known"].values())  # an id that is none of the facts
        return {**good, "opening": f"Hi, I'm calling about {other}."}

    return answer


@pytest.mark.parametrize("defect,reason", [("drop_fact", "wording_missing_fact"), ("leak", "wording_leak"),
                                           ("changed", "wording_facts"), ("internal_id", "wording_internal_id"),
                                           ("bad_json", "wording_unparsed")])
def test_refused_wording_keeps_the_template(fake: FakeLLM, synthesised: tuple[Path, list[Task]], defect: str,
                                            reason: str):
    path, tasks = synthesised
    package = load_domain(path)
    if defect == "bad_json":  # more broken answers than the client has repair round-trips
        fake.faults = [Fault(role="task_writer", kind="bad_json", times=100)]
    elif defect == "internal_id":
        fake.wording = _internal_id(sorted(internal_ids(package.manifest, package.seed)))
    else:
        fake.wording = {"drop_fact": _drop_fact, "leak": _leak, "changed": _changed}[defect]
    reworded, counts = _reword(fake, package, tasks)
    assert counts == {reason: 3}
    assert reworded == tasks  # the template wording, unchanged


def _task() -> Task:
    user = UserSpec(opening="Hi", instruction="Book it.", known={"pet_name": "Biscuit", "day": "2026-03-12"},
                    withheld={"reason": "vaccination booster"})
    return Task(id="t1", domain="tiny_library", difficulty="easy", user=user,
                actions=[TaskAction(tool="borrow_book", arguments={"day": "2026-03-12"})])


def _check(opening: str, instruction: str, known: dict[str, Any] | None = None,
           withheld: dict[str, Any] | None = None) -> str | None:
    manifest: DomainManifest = load_domain(FIXTURE).manifest
    wording = TaskWording(opening=opening, instruction=instruction,
                          known={"pet_name": "Biscuit", "day": "2026-03-12"} if known is None else known,
                          withheld={"reason": "vaccination booster"} if withheld is None else withheld)
    return check_wording(_task(), wording, manifest, load_domain(FIXTURE).seed)


def test_the_check_reads_facts_as_values_and_ids_as_ids():
    assert _check("Hello, a visit for Biscuit.", "You are Biscuit's owner; the day is 2026-03-12.") is None
    assert _check("Hello", "Book for biscuit on March 12, 2026.") is None  # another spelling of the same date
    assert _check("Hello", "Book for Biscuit on 12 March 2026.", known={"pet_name": "Biscuit", "day": "2026-03-12",
                                                                          "reason": "vaccination booster"},
                  withheld={}) == "wording_missing_fact"  # a known fact the instruction never states
    assert _check("Hello", "Book for Biscuit on March 13, 2026.") == "wording_missing_fact"
    assert _check("Biscuit needs a Vaccination Booster", "Biscuit, 2026-03-12.") == "wording_leak"
    assert _check("Hello", "Biscuit, 2026-03-12.", known={"pet_name": "Biscuit", "day": "2026-03-13"}) == "wording_facts"
    assert _check("Hello, I am MEM-00003", "Biscuit, 2026-03-12.") == "wording_internal_id"
    assert _check("  ", "Biscuit, 2026-03-12.") == "wording_empty"


def test_tasks_synth_model_rewords_end_to_end(fake: FakeLLM, synthesised: tuple[Path, list[Task]], tmp_path: Path):
    path, templates = synthesised
    out = tmp_path / "tasks.jsonl"
    done = CliRunner().invoke(tasks_cli.app, ["synth", str(path), "-n", "3", "--seed", "1", "--out", str(out),
                                              "--workers", "1", "--model", "fake-model", "--base-url", fake.base_url,
                                              "--json"])
    assert done.exit_code == 0, done.output[-2000:]
    assert json.loads(done.stdout)["wording"] == {"accepted": 3}
    written = load_tasks(out)
    assert [t.user.opening for t in written] == ["Hi! I'd like some help with my pet's care, please."] * 3
    assert [t.model_dump(exclude={"user"}) for t in written] == [t.model_dump(exclude={"user"}) for t in templates]
    assert len(fake.requests("task_writer", "200")) == 3
