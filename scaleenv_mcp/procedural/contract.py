"""The acting contract: a domain acts for someone, and says who, how to find them and what they may do.

A domain opts in by declaring ``principals`` in its manifest (every shipped domain does).
From then on ``scaleenv validate`` holds it to the contract of docs/authoring-domains.md:

- every writing tool names its acting principal (``acting``) and a one-line ``permission``
  rule, declares ``permission_denied`` and has a case in which a wrong principal gets it (a
  read that acts for someone declares it when it has another party to refuse);
- every principal kind has an identification path on natural keys: a read-only tool whose
  key arguments are user-visible columns, with a success case that uses no internal id;
- no internal id is user-visible: a principal's key is not, and neither is a column that
  references a column that is not.

This module reads the manifest and tests.json only; it never runs tool code. The cases it
requires are run by the case runner like any other, so "a wrong principal is refused and
nothing is written" is proven by the same matching as every rejection case.
"""

from __future__ import annotations

from scaleenv_mcp.domain.cases import CaseOutcome, ToolCase
from scaleenv_mcp.domain.manifest import DomainManifest, ToolSpec
from scaleenv_mcp.procedural.report import ContractSummary, Finding

__all__ = ["check_contract"]

PERMISSION_DENIED = "permission_denied"


def check_contract(manifest: DomainManifest, cases: list[ToolCase]) -> tuple[ContractSummary, list[Finding]]:
    """Count the contract's parts and name every place a declaring domain falls short of it."""
    summary = ContractSummary(
        acts_for_someone=bool(manifest.principals),
        principals=len(manifest.principals),
        identification_paths=sum(len(p.identify) for p in manifest.principals),
        acting_tools=sum(1 for t in manifest.tools if t.acting),
        writing_tools=sum(1 for t in manifest.tools if t.is_writing),
        writing_tools_with_permission=sum(1 for t in manifest.tools if t.is_writing and t.acting and t.permission),
        permission_cases=sum(1 for c in cases if _is_permission_case(c)),
        policy_rules=len(manifest.policy_rules),
        user_visible_columns=sum(1 for t in manifest.tables for c in t.columns if c.user_visible),
    )
    if not manifest.principals:
        return summary, []
    findings = [*_acting_findings(manifest, cases), *_identification_findings(manifest, cases),
                *_visibility_findings(manifest)]
    return summary, findings


def _is_permission_case(case: ToolCase) -> bool:
    return case.expect.outcome is CaseOutcome.rejection and case.expect.error == PERMISSION_DENIED


def _finding(reason: str, tool: str | None = None, file: str = "domain.json") -> Finding:
    return Finding(check="contract", file=file, tool=tool, reason=reason)


def _acting_findings(manifest: DomainManifest, cases: list[ToolCase]) -> list[Finding]:
    findings = []
    for tool in manifest.tools:
        if tool.is_writing and tool.acting is None:
            findings.append(_finding("writes state but names no acting principal (acting)", tool.name))
        if tool.is_writing and not tool.permission:
            findings.append(_finding("writes state but has no permission rule (permission)", tool.name))
        if tool.acting is None or not tool.is_writing:
            continue  # a read for someone may have no other party to refuse (my own loans)
        if not any(e.code == PERMISSION_DENIED for e in tool.raises):
            findings.append(_finding("acts for someone but declares no permission_denied error", tool.name))
        if not any(c.tool == tool.name and _is_permission_case(c) for c in cases):
            findings.append(_finding("no case in which a wrong principal gets permission_denied", tool.name,
                                     "tests.json"))
    return findings


def _identification_findings(manifest: DomainManifest, cases: list[ToolCase]) -> list[Finding]:
    findings = []
    for principal in manifest.principals:
        for path in principal.identify:
            tool = manifest.tool(path.tool)
            if tool.is_writing:
                findings.append(_finding(f"identifies {principal.kind} but writes state", tool.name))
            visible = _visible_columns(manifest, tool, principal.table)
            for key in path.keys:
                if key not in visible:
                    findings.append(_finding(f"identifies {principal.kind} by {key!r}, which is no user-visible "
                                             "column of the tables it reads", tool.name))
            internal = manifest.internal_id_columns() & set(tool.parameters)
            working = [c for c in cases if c.tool == tool.name and c.expect.outcome is CaseOutcome.success
                       and set(path.keys) <= set(c.arguments) and not internal & set(c.arguments)]
            if not working:
                findings.append(_finding(f"no success case identifies a {principal.kind} by "
                                         f"{', '.join(path.keys)} alone", tool.name, "tests.json"))
    return findings


def _visible_columns(manifest: DomainManifest, tool: ToolSpec, table: str) -> set[str]:
    names = {table, *tool.reads}
    return {c.name for t in manifest.tables if t.name in names for c in t.columns if c.user_visible}


def _visibility_findings(manifest: DomainManifest) -> list[Finding]:
    findings = []
    for principal in manifest.principals:
        if manifest.table(principal.table).column(principal.key).user_visible:
            findings.append(_finding(f"{principal.table}.{principal.key} is the internal key of {principal.kind} "
                                     "principals and must not be user-visible"))
    for table in manifest.tables:
        for key in table.foreign_keys:
            target = manifest.table(key.table)
            for column, referenced in zip(key.columns, key.references):
                if table.column(column).user_visible and not target.column(referenced).user_visible:
                    findings.append(_finding(f"{table.name}.{column} is user-visible but references "
                                             f"{key.table}.{referenced}, an internal id"))
    return findings
