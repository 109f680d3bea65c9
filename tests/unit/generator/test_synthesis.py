"""Task synthesis on the fixture domain: verified tasks, byte-identical output, its building blocks."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from scaleenv_mcp.domain.loader import load_domain
from scaleenv_mcp.domain.task_file import load_tasks
from scaleenv_mcp.generator.diversity import diversity_report
from scaleenv_mcp.generator.synthesis.start_state import DistractorBuilder
from scaleenv_mcp.generator.synthesis.values import schema_values
from scaleenv_mcp.generator.synthesis.world import World
from scaleenv_mcp.generator.tasks import synthesize_tasks
from scaleenv_mcp.state.start_states import build_start_state

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "domains" / "tiny_library"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    target = tmp_path / "tiny_library"
    shutil.copytree(FIXTURE, target)
    return target


def test_synth_writes_verified_grounded_tasks(package: Path):
    report = anyio.run(lambda: synthesize_tasks(package, 8, 2, workers=1))
    assert report.produced == 8 and report.candidates >= 8
    assert sum(report.rejected.values()) + report.passed == report.candidates and report.passed >= 8
    lines = (package / "tasks.jsonl").read_text().splitlines()
    tasks = load_tasks(package / "tasks.jsonl")
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) and all(t.id.startswith("tiny_library-2-") for t in tasks)
    assert lines == [t.to_line() for t in tasks]
    content_hash = load_domain(package).content_hash
    for task in tasks:
        assert task.verified is not None and task.verified.package_hash == content_hash and task.verified.result == "pass"
        assert task.gold is not None and not task.gold.diff.is_empty
        assert task.actions and task.meta.seed_chain and task.meta.seed_chain[-1] in ("borrow_book", "return_book")
        grounded = {(g["action"], g["argument"]) for g in task.meta.grounding}
        assert grounded == {(i, p) for i, a in enumerate(task.actions) for p in a.arguments}
        assert task.meta.expanded_size == len(task.meta.expanded_tools) >= 4  # min(20, the 4 tools that read or write)
        assert "tally" not in task.meta.expanded_tools
        assert task.meta.complexity > 0 and task.meta.synthesis_seed == 2
        assert task.user.opening and task.user.instruction and task.user.known
    assert report.tools_used_share == diversity_report(load_domain(package).manifest, tasks).tools_used_share


def test_same_seed_gives_byte_identical_files_under_other_hash_seeds(package: Path, tmp_path: Path):
    outputs = []
    for hash_seed, workers in (("1", "1"), ("4242", "2")):
        out = tmp_path / f"tasks-{hash_seed}.jsonl"
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-m", "scaleenv_mcp", "tasks", "synth", str(package), "-n", "6",
                               "--seed", "9", "--out", str(out), "--workers", workers, "--json"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        assert json.loads(done.stdout)["produced"] == 6
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0]


def test_distractors_are_valid_look_alikes():
    loaded = load_domain(FIXTURE)
    world = World(loaded.manifest, loaded.seed)
    builder = DistractorBuilder(loaded.manifest, loaded.schema_sql, loaded.seed, world)
    anchor = world.row("books", "BK-00001")
    assert anchor is not None
    ops = builder.build([("books", anchor)], 3, random.Random(0), with_parents=True)
    builder.close()
    assert [op.row["book_id"] for op in ops if op.row] == ["BK-00004", "BK-00005", "BK-00006"]
    for op in ops:  # real look-alikes: the same title, never a marker suffix ("Dune II", "Dune (old)")
        assert op.distractor and op.row and op.row["title"] == "Dune"
    build_start_state(loaded.schema_sql, loaded.seed, ops)  # every clone satisfies the schema's constraints
    loan = world.row("loans", "LN-00007")
    assert loan is not None
    loan_ops = DistractorBuilder(loaded.manifest, loaded.schema_sql, loaded.seed, world).build(
        [("loans", loan)], 1, random.Random(0), with_parents=True)
    assert {op.table for op in loan_ops} == {"loans", "members", "books"}  # the loan and one clone of each parent
    [clone] = [op.row for op in loan_ops if op.table == "loans" and op.row]
    moved = {c for c in ("borrowed_on", "due_on") if clone[c] != loan[c]}
    assert len(moved) == 1, "a look-alike a person can still tell apart: one date a few days away"


def test_world_neighbourhood_and_linked_values():
    loaded = load_domain(FIXTURE)
    world = World(loaded.manifest, loaded.seed)
    loan = world.row("loans", "LN-00007")
    assert loan is not None
    near = world.neighborhood([("loans", loan)])
    assert near.values["member_id"][0] == "MEM-00002" and near.values["book_id"][0] == "BK-00002"
    assert world.cooccurring("book_id", {"member_id": "MEM-00002"}) == ["BK-00002"]
    assert world.key_table("loan_id") == "loans" and world.key_table("text") is None


def test_schema_values_follow_the_declared_formats():
    rng = random.Random(3)
    clock = "2026-03-10T09:00:00"
    assert all(len(v) == 16 and v[10] == "T" for v in schema_values("at", {"type": "string",
                                                                              "description": "YYYY-MM-DDTHH:MM"}, clock, rng))
    assert all(len(v) == 5 for v in schema_values("t", {"type": "string", "description": "HH:MM, 24-hour"}, clock, rng))
    assert all(len(v) == 10 for v in schema_values("due_on", {"type": "string"}, clock, rng))
    assert all(0 <= v <= 100 for v in schema_values("pct", {"type": "integer", "minimum": 0, "maximum": 100}, clock, rng))
    assert schema_values("s", {"enum": ["a", "b"]}, clock, rng)[0] in ("a", "b")
    assert schema_values("pin", {"type": "string", "pattern": "^[0-9]{4,8}$"}, clock, rng)[0].isdigit()


def test_tasks_report_command(package: Path):
    from typer.testing import CliRunner

    from scaleenv_mcp.cli.app import app

    anyio.run(lambda: synthesize_tasks(package, 4, 1, workers=1))
    result = CliRunner().invoke(app, ["tasks", "report", str(package), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["tasks"] == 4 and report["tools_total"] == 6 and {"repeat_text", "tally"} <= set(report["unused_tools"])
    assert sum(report["difficulty"].values()) == 4 and report["splits"].get("test", 0) == 1  # round(0.2 * 4)


def test_the_user_profile_is_the_person_the_facts_name():
    from scaleenv_mcp.generator.synthesis.templates import person_profile

    world = World(load_domain(FIXTURE).manifest, load_domain(FIXTURE).seed)
    assert person_profile(world, {"member_id": "MEM-00001"}) == "Ada Byron (ada@example.org)"
    assert person_profile(world, {"loan_id": "LN-00007"}) == "Alan Turing (alan@example.org)"  # through the loan's member
    assert person_profile(world, {"book_id": "BK-00001", "text": "Dune"}) is None


def test_only_ids_flow_and_each_list_they_come_from_needs_a_name():
    """An id out of a list of lists is picked by a field at every level (the Dune of the Central
    branch); a title never flows from a result into a call: the user says what a row should hold."""
    from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Observation

    loaded = load_domain(FIXTURE)
    resolver = ArgumentResolver(loaded.manifest, World(loaded.manifest, loaded.seed), random.Random(0))
    branches = {"items": [{"name": "Central", "books": [{"book_id": "BK-00001", "title": "Dune"},
                                                        {"book_id": "BK-00003", "title": "Emma"}]},
                          {"name": "Harbour", "books": [{"book_id": "BK-00007", "title": "Dune"}]}]}
    assert resolver.selector(branches, "items[0].books[0].book_id", "book_id") == {
        "title": ("book_title", "Dune"), "items[].name": ("item_name", "Central")}
    twins = {"items": [{"name": "Central", "books": [{"book_id": "BK-00001"}]}, {"name": "Central", "books": []}]}
    assert resolver.selector(twins, "items[0].books[0].book_id", "book_id") is None
    borrow = loaded.manifest.tool("borrow_book")
    seen = [Observation(index=0, tool="find_books", result={"items": [{"book_id": "BK-00001", "member_id": "MEM-00001"}]})]
    assert [c.value for c in resolver.from_results(borrow, "book_id", seen, None)] == ["BK-00001"]
    find = loaded.manifest.tool("find_books")
    titled = [Observation(index=0, tool="find_books", result={"items": [{"book_id": "BK-00001", "text": "Dune"}]})]
    assert resolver.from_results(find, "text", titled, None) == []


def test_a_reference_a_write_takes_from_another_row_comes_with_its_name():
    """Borrowing the book a loan is of is fair only when the user names that book: the id is a
    reference in the loan, not the loan's own id, so the book's title becomes a fact."""
    from scaleenv_mcp.generator.synthesis.arguments import ArgumentResolver, Observation

    loaded = load_domain(FIXTURE)
    world = World(loaded.manifest, loaded.seed)
    resolver = ArgumentResolver(loaded.manifest, world, random.Random(0))
    borrow = loaded.manifest.tool("borrow_book")
    loans = [Observation(index=0, tool="get_member", result={"loan_id": "LN-00007", "book_id": "BK-00002"})]
    (picked,) = resolver.from_results(borrow, "book_id", loans, None)
    assert picked.names == {"title": ("book_title", world.row("books", "BK-00002")["title"])}
    own = [Observation(index=0, tool="find_books", result={"book_id": "BK-00002", "title": "x"})]
    assert resolver.from_results(borrow, "book_id", own, None)[0].names == {}
    find = loaded.manifest.tool("get_member")  # a read takes what it likes: nothing is scored on it
    assert resolver.from_results(find, "member_id", [Observation(index=0, tool="x", result={
        "loan_id": "LN-00007", "member_id": "MEM-00002"})], None)[0].names == {}
