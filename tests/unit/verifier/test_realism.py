"""What makes a task unacceptable to a careful reader, and the counts `tasks report` prints."""

from __future__ import annotations

from typing import Any

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import GoldSpec, PersonaRef, Task, TaskAction, UserSpec
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.verifier.realism import internal_ids, realism_report, task_problems

ACTING = {"argument": "acting_member_id", "kinds": ["member"]}


def _column(name: str, visible: bool = False) -> dict[str, Any]:
    return {"name": name, "type": "TEXT", "reward": "hard", "user_visible": visible}


def _tool(name: str, params: list[str], writes: list[str], **extra: Any) -> dict[str, Any]:
    return {"name": name, "description": name, "reads": ["members", "loans"], "writes": writes,
            "input_schema": {"type": "object", "properties": {p: {"type": "string"} for p in params}, "required": params},
            "output_schema": {"type": "object"}, **extra}


MANIFEST = DomainManifest.model_validate({
    "slug": "lending", "title": "Lending", "description": "d", "version": "1", "provenance": {"kind": "reference"},
    "clock": "2026-03-10T09:00:00", "policy": "p",
    "tables": [
        {"name": "members", "primary_key": ["member_id"],
         "columns": [_column("member_id"), _column("name", True), _column("email", True)]},
        {"name": "loans", "primary_key": ["loan_id"],
         "columns": [_column("loan_id"), _column("member_id"), _column("title", True)],
         "foreign_keys": [{"columns": ["member_id"], "table": "members", "references": ["member_id"]}]},
    ],
    "tools": [_tool("identify_member", ["email"], []),
              _tool("return_loan", ["acting_member_id", "loan_id"], ["loans"], acting=ACTING, permission="borrower")],
    "principals": [{"kind": "member", "table": "members", "key": "member_id",
                    "identify": [{"tool": "identify_member", "keys": ["email"]}]}],
})
SEED = {"members": [{"member_id": "MEM-00001", "name": "Ada Byron", "email": "ada@example.org"},
                    {"member_id": "MEM-00002", "name": "Alan Turing", "email": "alan@example.org"}],
        "loans": [{"loan_id": "LN-00001", "member_id": "MEM-00001", "title": "Dune"},
                  {"loan_id": "LN-00002", "member_id": "MEM-00002", "title": "Emma"}]}
GOLD = GoldSpec(diff=StateDiff(), fingerprint="0" * 64)


def _task(opening: str, actions: list[tuple[str, dict[str, Any]]], persona: str | None = "MEM-00001",
          communicate: list[str] | None = None) -> Task:
    return Task(id="t", domain="lending", difficulty="easy",
                user=UserSpec(opening=opening, instruction="You are Ada Byron.", known={"email": "ada@example.org"}),
                actions=[TaskAction(tool=t, arguments=a) for t, a in actions], gold=GOLD,
                persona=PersonaRef(kind="member", id=persona) if persona else None, communicate=communicate or [])


IDENTIFY = ("identify_member", {"email": "ada@example.org"})
RETURN = ("return_loan", {"acting_member_id": "MEM-00001", "loan_id": "LN-00001"})


def test_a_natural_task_of_its_persona_has_no_problems():
    assert task_problems(_task("Hi, I'd like to return Dune.", [IDENTIFY, RETURN]), MANIFEST, SEED) == []


def test_internal_ids_are_keys_and_references_no_person_knows():
    assert internal_ids(MANIFEST, SEED) == {"MEM-00001": "members.member_id", "MEM-00002": "members.member_id",
                                            "LN-00001": "loans.loan_id", "LN-00002": "loans.loan_id"}


def test_an_internal_id_in_the_user_text_is_named():
    problems = task_problems(_task("Return loan LN-00001, please.", [IDENTIFY, RETURN]), MANIFEST, SEED)
    assert problems == ["opening names LN-00001 (loans.loan_id)"]


def test_a_gold_write_for_someone_other_than_the_persona_is_named():
    problems = task_problems(_task("Return Dune.", [IDENTIFY, RETURN], persona="MEM-00002"), MANIFEST, SEED)
    assert problems == ["action 1 return_loan acts for MEM-00001, not for the persona MEM-00002"]


def test_gold_writes_for_two_people_are_incoherent_even_without_a_persona():
    other = ("return_loan", {"acting_member_id": "MEM-00002", "loan_id": "LN-00002"})
    problems = task_problems(_task("LN-00001", [RETURN, other], persona=None), MANIFEST, SEED)
    assert problems == ["gold writes act for 2 different principals: ['MEM-00001', 'MEM-00002']",
                        "opening names LN-00001 (loans.loan_id)"]  # a domain that serves people: no ids, persona or not


def test_a_communicate_fact_must_be_in_a_gold_result():
    task = _task("When is Dune due?", [IDENTIFY], communicate=["2026-03-24"])
    assert task_problems(task, MANIFEST, SEED, [{"due_on": "2026-03-24"}]) == []
    assert task_problems(task, MANIFEST, SEED, [{"due_on": "2026-03-25"}]) == [
        "communicate fact '2026-03-24' is in no result the gold reads"]


def test_the_report_counts_what_a_reviewer_looks_at():
    tasks = [_task("Return Dune.", [IDENTIFY, RETURN]), _task("Return LN-00001", [RETURN], persona=None),
             _task("When is Dune due?", [IDENTIFY], communicate=["2026-03-24"]),
             _task("Renew Dune.", [IDENTIFY], communicate=["2026-03-01"]).model_copy(update={"kind": "refusal"})]
    tasks[1].user.known = {"acting_member_id": "MEM-00001", "loan_id": "LN-00001"}
    report = realism_report(MANIFEST, tasks, SEED)
    assert (report.tasks, report.user_text_with_internal_ids, report.openings_with_internal_ids) == (4, 1, 1)
    # a refusal that tells its reason is a refusal, not an information task
    assert (report.one_call_all_stated, report.without_read, report.information_tasks, report.refusal_tasks) == (3, 1, 1, 1)
    assert report.mean_gold_length == round(5 / 4, 3) and report.single_principal == 4


def test_a_gold_write_on_a_row_a_policy_only_rule_forbids_is_named():
    data = MANIFEST.model_dump(mode="json")
    data["policy_rules"] = [{"id": "no_emma_returns", "text": "Emma goes back through the post room only.",
                             "tools": ["return_loan"],
                             "violation": {"tool": "return_loan", "argument": "loan_id", "table": "loans",
                                           "where": [{"column": "title", "op": "=", "value": "Emma"}]}}]
    manifest = DomainManifest.model_validate(data)
    emma = ("return_loan", {"acting_member_id": "MEM-00001", "loan_id": "LN-00002"})
    assert task_problems(_task("Return Emma.", [IDENTIFY, emma], persona=None), manifest, SEED) == [
        "action 1 return_loan breaks the policy rule no_emma_returns (LN-00002)"]
    assert task_problems(_task("Return Dune.", [IDENTIFY, RETURN]), manifest, SEED) == []
    refusal = _task("Return Emma.", [IDENTIFY], persona=None).model_copy(update={"kind": "refusal"})
    assert task_problems(refusal, manifest, SEED) == []  # a refusal's gold does not make the call


def test_targets_are_shares_of_the_tasks_and_say_which_are_missed():
    from scaleenv_mcp.verifier.realism import RealismReport

    report = RealismReport(domain="d", tasks=100, user_text_with_internal_ids=1, openings_with_internal_ids=0,
                           single_principal=100, one_call_all_stated=5, mean_gold_length=3.9, without_read=0,
                           information_tasks=15, refusal_tasks=9, with_communicate=15).measure_targets()
    met = {name: check.met for name, check in report.targets.items()}
    assert met == {"internal_id_share": False, "single_principal_share": True, "information_share": True,
                   "refusal_share": False, "one_call_all_stated_share": True, "mean_gold_length": False}
    assert report.targets["refusal_share"].value == 0.09 and report.targets["mean_gold_length"].value == 3.9


def test_start_rows_apply_every_setup_operation():
    """The start state a check reads is the seed with the task's inserts, updates and deletes."""
    from scaleenv_mcp.state.model import RowOp
    from scaleenv_mcp.verifier.realism import start_rows

    seed = {"loans": [{"loan_id": "LN-1", "title": "Dune"}, {"loan_id": "LN-2", "title": "Emma"}]}
    task = Task(id="t", domain="lending", difficulty="easy", user=UserSpec(opening="Hi", instruction="x"), actions=[],
                setup=[RowOp(op="insert", table="loans", row={"loan_id": "LN-3", "title": "Ulysses"}),
                       RowOp(op="update", table="loans", key={"loan_id": "LN-1"}, values={"title": "Dune Messiah"}),
                       RowOp(op="delete", table="loans", key={"loan_id": "LN-2"})])
    assert start_rows(seed, task) == {"loans": [{"loan_id": "LN-1", "title": "Dune Messiah"},
                                                {"loan_id": "LN-3", "title": "Ulysses"}]}
    assert seed["loans"][0]["title"] == "Dune"  # the seed itself is left as it was
