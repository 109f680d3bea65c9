"""The acting contract: what `scaleenv validate` demands of a domain that declares principals."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from scaleenv_mcp.domain.cases import ToolCase
from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.procedural.contract import check_contract

OBJECT = {"type": "object", "properties": {}}


def _column(name: str, visible: bool = False) -> dict[str, Any]:
    return {"name": name, "type": "TEXT", "reward": "hard", "user_visible": visible}


def _tool(name: str, params: list[str], writes: list[str], raises: list[str], **extra: Any) -> dict[str, Any]:
    return {
        "name": name, "description": f"{name} for tests", "reads": ["members", "loans"], "writes": writes,
        "input_schema": {"type": "object", "properties": {p: {"type": "string"} for p in params},
                         "required": params, "additionalProperties": False},
        "output_schema": OBJECT, "raises": [{"code": c, "when": f"{c} case"} for c in raises], **extra,
    }


MANIFEST: dict[str, Any] = {
    "slug": "lending", "title": "Lending", "description": "A lending desk.", "version": "1",
    "provenance": {"kind": "reference"}, "clock": "2026-03-10T09:00:00", "policy": "Act for one member.",
    "tables": [
        {"name": "members", "primary_key": ["member_id"],
         "columns": [_column("member_id"), _column("name", True), _column("email", True)]},
        {"name": "loans", "primary_key": ["loan_id"],
         "columns": [_column("loan_id"), _column("member_id"), _column("title", True)],
         "foreign_keys": [{"columns": ["member_id"], "table": "members", "references": ["member_id"]}]},
    ],
    "tools": [
        _tool("identify_member", ["email"], [], ["not_found"]),
        _tool("return_loan", ["acting_member_id", "loan_id"], ["loans"], ["not_found", "permission_denied"],
              acting={"argument": "acting_member_id", "kinds": ["member"]},
              permission="only the member who borrowed may return a loan"),
    ],
    "principals": [{"kind": "member", "table": "members", "key": "member_id",
                    "identify": [{"tool": "identify_member", "keys": ["email"]}]}],
    "policy_rules": [{"id": "one_return", "text": "Return at most one loan per request.", "tools": ["return_loan"]}],
}

CASES = [
    {"name": "identify by email", "tool": "identify_member", "arguments": {"email": "a@b.c"},
     "expect": {"outcome": "success"}},
    {"name": "return by a stranger", "tool": "return_loan",
     "arguments": {"acting_member_id": "MEM-2", "loan_id": "LN-1"},
     "expect": {"outcome": "rejection", "error": "permission_denied"}},
]


def _check(manifest: dict[str, Any], cases: list[dict[str, Any]] = CASES):
    return check_contract(DomainManifest.model_validate(manifest), [ToolCase.model_validate(c) for c in cases])


def _edited(**changes: Any) -> dict[str, Any]:
    manifest = copy.deepcopy(MANIFEST)
    manifest.update(changes)
    return manifest


def test_a_domain_that_keeps_the_contract_has_no_findings_and_is_counted():
    summary, findings = _check(MANIFEST)
    assert findings == []
    assert (summary.acts_for_someone, summary.principals, summary.identification_paths) == (True, 1, 1)
    assert (summary.writing_tools, summary.writing_tools_with_permission, summary.permission_cases) == (1, 1, 1)
    assert (summary.policy_rules, summary.user_visible_columns) == (1, 3)


def test_a_domain_without_principals_is_not_held_to_it():
    summary, findings = _check(_edited(principals=[], tools=[_tool("identify_member", ["email"], [], []),
                                                            _tool("return_loan", ["loan_id"], ["loans"], [])]))
    assert findings == [] and not summary.acts_for_someone


def test_a_writing_tool_without_actor_or_permission_is_named():
    manifest = _edited()
    manifest["tools"][1] = _tool("return_loan", ["loan_id"], ["loans"], ["not_found"])
    reasons = {f.reason for f in _check(manifest)[1] if f.tool == "return_loan"}
    assert "writes state but names no acting principal (acting)" in reasons
    assert "writes state but has no permission rule (permission)" in reasons


def test_an_acting_tool_needs_permission_denied_declared_and_a_wrong_principal_case():
    manifest = _edited()
    manifest["tools"][1]["raises"] = [{"code": "not_found", "when": "no loan"}]
    reasons = {f.reason for f in _check(manifest, CASES[:1])[1]}
    assert "acts for someone but declares no permission_denied error" in reasons
    assert "no case in which a wrong principal gets permission_denied" in reasons


def test_identification_must_use_user_visible_keys_and_have_a_working_case():
    manifest = _edited()
    manifest["tools"][0] = _tool("identify_member", ["email", "member_id"], [], ["not_found"])
    manifest["principals"][0]["identify"] = [{"tool": "identify_member", "keys": ["member_id"]}]
    reasons = {f.reason for f in _check(manifest, CASES[1:])[1]}
    assert "identifies member by 'member_id', which is no user-visible column of the tables it reads" in reasons
    assert "no success case identifies a member by member_id alone" in reasons


def test_a_case_that_passes_an_internal_id_does_not_prove_identification():
    manifest = _edited()
    manifest["tools"][0] = _tool("identify_member", ["email", "member_id"], [], ["not_found"])
    cases = [{**CASES[0], "arguments": {"email": "a@b.c", "member_id": "MEM-1"}}, CASES[1]]
    assert [f.reason for f in _check(manifest, cases)[1]] == ["no success case identifies a member by email alone"]


def test_internal_ids_cannot_be_user_visible():
    manifest = _edited()
    manifest["tables"][0]["columns"][0]["user_visible"] = True
    manifest["tables"][1]["columns"][1]["user_visible"] = True
    reasons = [f.reason for f in _check(manifest)[1]]
    assert "members.member_id is the internal key of member principals and must not be user-visible" in reasons
    assert not any("loans.member_id" in r for r in reasons)  # it references a visible column now
    manifest["tables"][0]["columns"][0]["user_visible"] = False
    assert "loans.member_id is user-visible but references members.member_id, an internal id" in [
        f.reason for f in _check(manifest)[1]]


@pytest.mark.parametrize(("edit", "message"), [
    (lambda m: m["tools"][1].update(acting={"argument": "who", "kinds": ["member"]}), "is not an input"),
    (lambda m: m["tools"][1].update(acting={"argument": "loan_id", "kinds": ["clerk"]}), "not a declared principal"),
    (lambda m: m["tools"][1]["input_schema"].update(required=["loan_id"]), "must be required"),
    (lambda m: m["policy_rules"][0].update(tools=["renew_loan"]), "names unknown tool 'renew_loan'"),
    (lambda m: m["principals"][0].update(key="email_address"), "has no column 'email_address'"),
    (lambda m: m["principals"][0]["identify"][0].update(keys=["phone"]), "has no argument(s) ['phone']"),
    (lambda m: m["tools"][0].update(questions=[{"text": "When is {title} due?", "answer": "due_on",
                                                "asked_by": ["clerk"]}]), "is asked by 'clerk'"),
    (lambda m: m["tools"][1].update(intents_by_kind={"clerk": ["Return it."]}), "intents for 'clerk'"),
])
def test_the_manifest_refuses_references_that_do_not_resolve(edit: Any, message: str):
    manifest = _edited()
    edit(manifest)
    with pytest.raises(ValidationError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        DomainManifest.model_validate(manifest)


def test_policy_only_rules_follow_the_policy_in_what_the_agent_reads():
    text = DomainManifest.model_validate(MANIFEST).agent_policy
    assert text.startswith("Act for one member.")
    assert "do not check for you" in text and "- Return at most one loan per request." in text


def test_a_principal_kind_has_phrasings_of_its_own_beside_the_shared_ones():
    manifest = _edited()
    manifest["tools"][1].update(intents=["I'd like to return a loan."],
                                intents_by_kind={"member": ["I'm done with {loan_title}; here it is back."]})
    tool = DomainManifest.model_validate(manifest).tool("return_loan")
    assert tool.phrasings("member") == ["I'd like to return a loan.", "I'm done with {loan_title}; here it is back."]
    assert tool.phrasings(None) == tool.phrasings("clerk") == ["I'd like to return a loan."]
