"""The validation report: what ``scaleenv validate`` prints and ``--json`` returns.

Written for two readers: a person fixing a domain, and the generator's debug agent, which
gets the failing case, the traceback and the expected-versus-actual diff verbatim.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.procedural.seed_shape import SeedShape

__all__ = ["CaseKind", "CaseRecord", "ContractSummary", "Finding", "ToolRow", "ValidationReport"]


class CaseKind(str, Enum):
    success = "success"
    anticipated_rejection = "anticipated_rejection"
    unexpected_failure = "unexpected_failure"
    skipped = "skipped"  # not run: its tool already ran away, tools.py did not load, or the run's budget ran out


class CaseRecord(BaseModel):
    name: str
    tool: str
    kind: CaseKind
    problems: list[str] = Field(default_factory=list, description="Why the case is an unexpected failure.")
    traceback: str | None = None
    expected_changes: dict[str, Any] | None = None
    actual_changes: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: str | None = Field(default=None, description="code: message of a raised tool error")
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)
    fingerprint: str | None = None
    runaway: str | None = Field(
        default=None, description="Set on the case that ran away (wall-time or memory budget, a dead worker, endless "
        "recursion): why. Its tool's remaining cases are skipped.")


class Finding(BaseModel):
    """A problem outside the cases: policy, conformance, coverage, database, determinism."""

    check: str = Field(description="policy | load | conformance | coverage | contract | database | determinism | budget")
    file: str = "tools.py"
    line: int | None = None
    tool: str | None = None
    reason: str


class ContractSummary(BaseModel):
    """What the acting contract found, counted for the report and docs/domain-quality.md."""

    acts_for_someone: bool = Field(description="The manifest declares principals (the contract applies).")
    principals: int = 0
    identification_paths: int = 0
    acting_tools: int = Field(default=0, description="Tools that take an acting principal.")
    writing_tools: int = 0
    writing_tools_with_permission: int = Field(default=0, description="Writing tools with acting and permission.")
    permission_cases: int = Field(default=0, description="Cases in which a wrong principal gets permission_denied.")
    policy_rules: int = Field(default=0, description="Policy-only rules (written, deliberately not enforced).")
    user_visible_columns: int = 0


class ToolRow(BaseModel):
    tool: str
    cases: int = 0
    success: int = 0
    anticipated_rejection: int = 0
    unexpected_failure: int = 0
    skipped: int = 0
    stopped_by: str | None = Field(default=None, description="The case that ran away and why; the rest were skipped.")
    mutants: int = 0
    killed: int = 0
    survivors: list[str] = Field(default_factory=list)


class ValidationReport(BaseModel):
    domain: str
    package_hash: str | None = None
    policy_version: str
    validator_version: str
    findings: list[Finding] = Field(default_factory=list)
    tools: list[ToolRow] = Field(default_factory=list)
    failures: list[CaseRecord] = Field(default_factory=list)
    skipped: list[CaseRecord] = Field(
        default_factory=list, description="Cases not run, each saying why (its tool ran away first, tools.py did not "
        "load, the run's budget ran out).")
    cases: int = 0
    unexpected_failures: int = 0
    budget: float | None = Field(default=None, description="The whole run's budget, seconds.")
    halted: str | None = Field(
        default=None, description="Why validation stopped before running every case (tools.py did not load, the "
        "budget ran out, or the serving gate stopped at the first runaway tool).")
    mutants: int = 0
    killed: int = 0
    mutation_score: float | None = None
    mutation_threshold: float = 0.6
    contract: ContractSummary | None = Field(
        default=None, description="The acting contract's counts (principals, permission rules and cases, policy rules).")
    seed: SeedShape | None = Field(
        default=None, description="The seed's shape: status frequencies, repeated free text, marker suffixes "
        "(advice: problems here do not stop serving).")
    observed: dict[str, dict[str, list[str]]] = Field(
        default_factory=dict, description="Per tool, the tables its cases were seen to read and write "
        "({tool: {reads, writes}}): what `scaleenv graph --observed REPORT` adds to the manifest's state edges.")

    @property
    def servable(self) -> bool:
        """No findings, no unexpected failure, no case left unrun: what the host requires before serving."""
        return not self.findings and not self.unexpected_failures and not self.skipped

    @property
    def runaway(self) -> str | None:
        """One line naming what ran away (tools first, else why the run halted); None when nothing did.

        The serving gate shows it as "rejected: ..." and the CLI prints it with the verdict.
        """
        stopped = [f"{r.tool} ({r.stopped_by})" for r in self.tools if r.stopped_by]
        if stopped:
            return f"runaway tool {', '.join(stopped)}"
        return self.halted

    @property
    def passed(self) -> bool:
        """Servable, and the mutation score (when measured) reaches the threshold."""
        return self.servable and (self.mutation_score is None or self.mutation_score >= self.mutation_threshold)
