"""The admission gates over the in-memory transport: good tasks pass, each kind of bad task is caught."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from scaleenv_mcp.domain.task import GoldSpec, PersonaRef, Task, TaskAction, TaskMeta, UserSpec
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.verifier.perturb import changed_value
from scaleenv_mcp.verifier.verify import VerifyReport, verify_domain

pytestmark = pytest.mark.anyio


def _write(tasks: list[Task], path: Path) -> Path:
    path.write_text("".join(t.to_line() + "\n" for t in tasks))
    return path


def _verdict(report: VerifyReport, task_id: str):
    return next(v for v in report.verdicts if v.task_id == task_id)


async def test_synthesised_tasks_pass_every_gate(synthesized):
    package, tasks = synthesized
    report = await verify_domain(package, transport="memory", workers=1)
    assert (report.passed, report.failed, report.environment_errors) == (len(tasks), 0, 0)
    gates = {g.gate for v in report.verdicts for g in v.gates}
    assert gates == {"package_hash", "gold_replay", "gold_fingerprint", "grounding", "realism", "do_nothing", "distractor",
                     "argument", "determinism"}
    assert all(v.reward == 1.0 for v in report.verdicts)


async def test_tampered_actions_fail(synthesized, tmp_path: Path):
    package, tasks = synthesized
    task = tasks[0]
    writing = next(i for i, a in enumerate(task.actions) if a.tool in ("borrow_book", "return_book"))
    action = task.actions[writing]
    param = sorted(action.arguments)[0]
    tampered = task.model_copy(deep=True)
    tampered.actions[writing] = TaskAction(tool=action.tool, arguments={
        **action.arguments, param: changed_value(action.arguments[param], {})})
    report = await verify_domain(package, _write([tampered], tmp_path / "t.jsonl"), workers=1, determinism=False)
    assert report.failed == 1 and "gold_replay" in report.verdicts[0].failed_gates


async def test_tampered_gold_fails(synthesized, tmp_path: Path):
    package, tasks = synthesized
    task = next(t for t in tasks if t.gold and "loans" in t.gold.diff.tables and t.gold.diff.tables["loans"].added)
    assert task.gold is not None
    gold = task.gold.diff.model_dump()
    gold["tables"]["loans"]["added"][0]["due_on"] = "2031-01-01"  # a hard column the actions do not produce
    wrong_diff = task.model_copy(deep=True)
    assert wrong_diff.gold is not None
    wrong_diff.gold.diff = StateDiff.model_validate(gold)
    wrong_print = task.model_copy(deep=True, update={"id": task.id + "-fp"})
    assert wrong_print.gold is not None
    wrong_print.gold.fingerprint = "0" * 64
    report = await verify_domain(package, _write([wrong_diff, wrong_print], tmp_path / "t.jsonl"), workers=1,
                                 determinism=False)
    assert report.failed == 2
    diff_verdict = _verdict(report, task.id)
    assert "gold_replay" in diff_verdict.failed_gates
    assert "expected row was not created" in next(g.detail for g in diff_verdict.gates if g.gate == "gold_replay")
    assert _verdict(report, task.id + "-fp").failed_gates == ["gold_fingerprint"]


async def test_goal_already_met_in_the_start_state_fails(synthesized, tmp_path: Path):
    """Actions that change nothing: the gold replay scores 1, but so does doing nothing."""
    package, tasks = synthesized
    base = tasks[0]
    met = base.model_copy(deep=True, update={"id": "already-met"})
    met.actions = [TaskAction(tool="find_books", arguments={"text": "Dune"})]
    met.user.known = {"book_title": "Dune"}
    met.user.withheld = {}
    met.meta.grounding = [{"action": 0, "argument": "text", "source": "user", "fact": "book_title"}]
    assert met.gold is not None
    met.gold.diff = StateDiff()
    first = await verify_domain(package, _write([met], tmp_path / "a.jsonl"), workers=1, determinism=False)
    met.gold.fingerprint = first.verdicts[0].fingerprint or ""  # the start state, which the read leaves as it is
    report = await verify_domain(package, _write([met], tmp_path / "b.jsonl"), workers=1, determinism=False)
    verdict = report.verdicts[0]
    assert verdict.failed_gates == ["do_nothing"], verdict.gates
    assert "goal is met in the start state" in next(g.detail for g in verdict.gates if g.gate == "do_nothing")


async def test_ungrounded_argument_fails(synthesized, tmp_path: Path):
    package, tasks = synthesized
    task = tasks[0].model_copy(deep=True)
    fact = next(g["fact"] for g in task.meta.grounding if g["source"] == "user")
    task.user.known.pop(fact, None)
    task.user.withheld.pop(fact, None)
    report = await verify_domain(package, _write([task], tmp_path / "t.jsonl"), workers=1, determinism=False)
    assert report.verdicts[0].failed_gates == ["grounding"]


async def test_domain_changed_after_verification_fails(synthesized, tmp_path: Path):
    package, tasks = synthesized
    changed = tmp_path / "tiny_library"
    shutil.copytree(package, changed)
    tools = changed / "tools.py"
    tools.write_text(tools.read_text() + "\n# an edit after the tasks were verified\n")
    report = await verify_domain(changed, workers=1, determinism=False, sample=2)
    assert report.failed == 2
    assert all("package_hash" in v.failed_gates for v in report.verdicts)
    assert "domain changed after verification" in report.verdicts[0].gates[0].detail


async def test_determinism_gate_reports_a_different_end_state(synthesized):
    from scaleenv_mcp.verifier.determinism import verify_determinism

    package, tasks = synthesized
    expected = {t.id: t.gold.fingerprint for t in tasks[:2] if t.gold}
    expected[tasks[1].id] = "f" * 64
    found = await verify_determinism(package, tasks[:2], expected)
    assert found[tasks[0].id] is None
    assert "replay reached" in (found[tasks[1].id] or "")


async def test_determinism_gate_catches_a_tool_that_depends_on_hash_order(synthesized, tmp_path: Path):
    """The second replay's tools really run under the other hash seed: a loan note built from a set's
    iteration order (the order of str hashes) ends in another state there."""
    from scaleenv_mcp.verifier.determinism import other_hash_seed, replay_fingerprints, verify_determinism

    package, tasks = synthesized
    borrowing = [t for t in tasks if any(a.tool == "borrow_book" for a in t.actions)]
    assert borrowing, "the fixture's tasks should borrow a book"
    fickle = tmp_path / "tiny_library"
    shutil.copytree(package, fickle)
    tools = fickle / "tools.py"
    words = '{"amber", "birch", "cedar", "dune", "elm", "fern", "gale", "heath"}'
    tools.write_text(tools.read_text().replace("(loan_id, member_id, book_id, ctx.today, due, note),",
                                               f"(loan_id, member_id, book_id, ctx.today, due, ','.join({words})),"))
    seed = "3" if other_hash_seed() != "3" else "4"
    expected = await replay_fingerprints(fickle, borrowing, worker_env={"PYTHONHASHSEED": seed})
    assert await replay_fingerprints(fickle, borrowing, worker_env={"PYTHONHASHSEED": seed}) == expected  # same seed
    # validate=False: validation's own rerun under another seed refuses this package before any replay;
    # the gate is tested here on its own
    found = await verify_determinism(fickle, borrowing, expected, validate=False)
    assert all(f"PYTHONHASHSEED={other_hash_seed()} replay reached" in (found[t.id] or "") for t in borrowing), found
    # the package as shipped reaches the same states under any seed
    steady = await replay_fingerprints(package, borrowing, worker_env={"PYTHONHASHSEED": seed})
    assert set((await verify_determinism(package, borrowing, steady)).values()) == {None}


async def test_verify_rejects_tasks_a_careful_person_would_not_accept_naming_task_and_reason(synthesized, tmp_path: Path):
    package, tasks = synthesized
    task = next(t for t in tasks if any(a.tool == "borrow_book" for a in t.actions))
    member = next(a.arguments["member_id"] for a in task.actions if a.tool == "borrow_book")
    # an internal id in what the user is told, and a persona that is no principal of the domain
    named = task.model_copy(deep=True, update={"id": "named-id", "persona": PersonaRef(kind="member", id=member)})
    named.user.opening = f"Hi, I am member {member}."
    # a fact to tell that the gold never reads
    untold = task.model_copy(deep=True, update={"id": "untold", "communicate": ["the library closes at 19:30"]})
    report = await verify_domain(package, _write([named, untold], tmp_path / "t.jsonl"), workers=1, determinism=False)
    named_realism = next(g for g in _verdict(report, "named-id").gates if g.gate == "realism")
    assert not named_realism.passed
    assert f"opening names {member} (members.member_id)" in named_realism.detail
    assert "persona kind 'member' is not a principal of tiny_library" in named_realism.detail
    untold_realism = next(g for g in _verdict(report, "untold").gates if g.gate == "realism")
    assert not untold_realism.passed and "'the library closes at 19:30' is in no result the gold reads" in untold_realism.detail


async def test_an_information_task_passes_when_its_fact_is_read_and_doing_nothing_tells_nothing(synthesized, tmp_path: Path):
    package, tasks = synthesized
    question = Task(
        id="how-many-loans", domain="tiny_library", difficulty="easy",
        user=UserSpec(opening="How many books may I borrow at once? My member number is MEM-00002.",
                      instruction="You are Alan Turing. Ask how many books you may borrow at once.",
                      known={"member_id": "MEM-00002"}),
        actions=[TaskAction(tool="get_member", arguments={"member_id": "MEM-00002"})],
        gold=GoldSpec(diff=StateDiff(), fingerprint="0" * 64), verified=tasks[0].verified,
        communicate=["3"],  # the value the agent must tell (members.max_loans)
        meta=TaskMeta(grounding=[{"action": 0, "argument": "member_id", "source": "user", "fact": "member_id"}]))
    first = await verify_domain(package, _write([question], tmp_path / "t.jsonl"), workers=1, determinism=False)
    assert question.gold is not None
    question.gold.fingerprint = _verdict(first, "how-many-loans").fingerprint or ""  # the start state: nothing changes
    report = await verify_domain(package, _write([question], tmp_path / "t.jsonl"), workers=1, determinism=False)
    verdict = _verdict(report, "how-many-loans")
    assert verdict.passed, [(g.gate, g.detail) for g in verdict.gates if not g.passed]
    assert {g.gate for g in verdict.gates} >= {"gold_replay", "grounding", "realism", "do_nothing"}

    wrong = question.model_copy(deep=True, update={"communicate": ["4"]})  # not what the gold reads
    report = await verify_domain(package, _write([wrong], tmp_path / "w.jsonl"), workers=1, determinism=False)
    assert _verdict(report, "how-many-loans").failed_gates == ["realism"]
