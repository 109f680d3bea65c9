"""The generation report: what a run cost and the rates the paper left out.

The paper gives token totals but no pass rates, iteration caps or drop counts; we publish
them: tokens and calls per stage and role (live requests apart from responses replayed from
the store), first-try pass rate of the tools, repair rounds per tool, tools dropped with the
reason, tasks rejected per gate. Printed as a table, written as JSON to the workdir, and
printed as that same JSON by ``--json`` (STYLE: the CLI prints the model a caller gets).

``UsageLedger`` is the counter the LLM client writes into; each stage gets its own so the
stage's usage can be stored with its output and counted again when a restart reuses it.
(Task-set diversity is a different report: ``generator/diversity.py``.)
"""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["GenerationReport", "StageRecord", "TaskStats", "ToolOutcome", "UsageLedger", "UsageRow", "ValidationSummary"]


class UsageRow(BaseModel):
    stage: str
    role: str
    calls: int = Field(default=0, description="Requests sent over HTTP that got an answer, in this run.")
    stored_calls: int = Field(default=0, description="Responses replayed from the store instead of being requested.")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = Field(default=0, description="Requests retried after 429, 5xx, a timeout or a lost connection.")
    repairs: int = Field(default=0, description="Round-trips asking the model to fix unparseable or invalid output.")
    continuations: int = Field(default=0, description="Round-trips after a reply cut off at max_tokens.")
    fallbacks: int = Field(default=0, description="Requests re-sent in plain-JSON mode after json_schema was refused.")

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


_COUNTERS = ("calls", "stored_calls", "prompt_tokens", "completion_tokens", "retries", "repairs", "continuations",
             "fallbacks")


class UsageLedger:
    """Counts per (stage, role); cheap, in-process, not thread-safe (one event loop writes it)."""

    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], UsageRow] = {}

    def row(self, stage: str, role: str) -> UsageRow:
        key = (stage, role)
        if key not in self._rows:
            self._rows[key] = UsageRow(stage=stage, role=role)
        return self._rows[key]

    def add(self, stage: str, role: str, **counts: int) -> None:
        row = self.row(stage, role)
        for name, value in counts.items():
            setattr(row, name, getattr(row, name) + value)

    def merge(self, rows: list[UsageRow], *, replayed: bool = False) -> None:
        """Add rows (a stored stage's usage); ``replayed`` counts their calls as stored, not live."""
        for other in rows:
            counts = {name: getattr(other, name) for name in _COUNTERS}
            if replayed:
                counts["stored_calls"] += counts.pop("calls")
            self.add(other.stage, other.role, **counts)

    def rows(self) -> list[UsageRow]:
        return [self._rows[k] for k in sorted(self._rows)]


class StageRecord(BaseModel):
    """A stage's stored output with the usage that produced it."""

    output: dict = Field(description="The stage's pydantic output, dumped.")
    usage: list[UsageRow] = Field(default_factory=list)


class ToolOutcome(BaseModel):
    tool: str
    passed: bool
    first_try: bool = Field(description="Passed its own test cases before any debug round.")
    repair_rounds: int = Field(description="Debug rounds used (0 when it passed at once).")
    cases: int = 0
    dropped_reason: str | None = Field(default=None, description="Why the tool was dropped (the last report's gist).")


class TaskStats(BaseModel):
    status: str = Field(description="done, or skipped with the reason (e.g. task synthesis not available).")
    requested: int = 0
    kept: int = 0
    rejected: dict[str, int] = Field(default_factory=dict, description="Tasks rejected, per gate.")
    chain_code: dict[str, int] = Field(default_factory=dict, description="Seed chains the LLM wrote as code: used, "
                                       "refused (did not parse into a chain), failed (did not run; a sampled chain was used).")


class ValidationSummary(BaseModel):
    passed: bool
    servable: bool
    cases: int
    unexpected_failures: int
    findings: list[str] = Field(default_factory=list)
    mutation_score: float | None = None
    verified: str = Field(default="not run", description="Result of `verify` over the tasks, or why it did not run.")


class GenerationReport(BaseModel):
    keyword: str
    slug: str
    status: str = Field(description="complete | failed: <reason>")
    out: str | None = Field(default=None, description="Where the package was written (only when complete).")
    workdir: str
    models: dict[str, str] = Field(default_factory=dict, description="Role -> model.")
    usage: list[UsageRow] = Field(default_factory=list)
    tools: list[ToolOutcome] = Field(default_factory=list)
    first_try_pass_rate: float | None = None
    tools_dropped: list[str] = Field(default_factory=list)
    tables: int = 0
    seed_rows: int = 0
    db_repair_rounds: int = 0
    graph_edges: dict[str, int] = Field(default_factory=dict)
    llm_edges_added: int = 0
    tasks: TaskStats = Field(default_factory=lambda: TaskStats(status="not reached"))
    validation: ValidationSummary | None = None
    retries_used: int = 0
    retry_budget: int = 0
    warnings: list[str] = Field(default_factory=list, description="What the endpoint made us work around, and "
                                "the roles-file setting that avoids it.")

    def finish_tools(self, outcomes: list[ToolOutcome]) -> None:
        self.tools = sorted(outcomes, key=lambda o: o.tool)
        self.tools_dropped = [o.tool for o in self.tools if not o.passed]
        self.first_try_pass_rate = round(sum(o.first_try for o in outcomes) / len(outcomes), 4) if outcomes else None

    @property
    def total_tokens(self) -> int:
        return sum(r.tokens for r in self.usage)

    def print(self) -> None:
        """Rich tables for people (``--json`` prints the model instead)."""
        from rich.console import Console
        from rich.table import Table

        console = Console()
        usage = Table(title=f"{self.slug}: LLM usage by stage and role", title_justify="left")
        for column in ("stage", "role", "calls", "stored", "prompt tok", "completion tok", "retries", "repairs"):
            usage.add_column(column)
        for r in self.usage:
            usage.add_row(r.stage, r.role, str(r.calls), str(r.stored_calls), str(r.prompt_tokens),
                          str(r.completion_tokens), str(r.retries), str(r.repairs + r.continuations))
        console.print(usage)
        tools = Table(title="tools", title_justify="left")
        for column in ("tool", "passed", "first try", "repair rounds", "cases", "dropped because"):
            tools.add_column(column)
        for o in self.tools:
            tools.add_row(o.tool, "yes" if o.passed else "no", "yes" if o.first_try else "no", str(o.repair_rounds),
                          str(o.cases), o.dropped_reason or "")
        console.print(tools)
        rate = "n/a" if self.first_try_pass_rate is None else f"{self.first_try_pass_rate:.0%}"
        rejected = ", ".join(f"{k} {v}" for k, v in sorted(self.tasks.rejected.items())) or "none"
        console.print(f"first-try pass rate {rate}; dropped {len(self.tools_dropped)}; tables {self.tables}, "
                      f"seed rows {self.seed_rows} (db repair rounds {self.db_repair_rounds}); "
                      f"LLM-judged edges {self.llm_edges_added}; tokens {self.total_tokens}; "
                      f"retries {self.retries_used}/{self.retry_budget}", highlight=False)
        written = ", ".join(f"{k} {v}" for k, v in sorted(self.tasks.chain_code.items())) or "none"
        console.print(f"tasks: {self.tasks.status}, kept {self.tasks.kept}/{self.tasks.requested}, "
                      f"rejected: {rejected}; LLM-written seed chains: {written}", highlight=False)
        if self.validation:
            v = self.validation
            score = "n/a" if v.mutation_score is None else f"{v.mutation_score:.0%}"
            console.print(f"validation: {'PASSED' if v.passed else 'FAILED'} ({v.cases} cases, "
                          f"{v.unexpected_failures} unexpected, mutation score {score}); verify: {v.verified}",
                          highlight=False)
        for warning in self.warnings:
            console.print(f"[yellow]warning:[/] {warning}", highlight=False)
        colour = "green" if self.status == "complete" else "red"
        console.print(f"[{colour}]{self.status}[/]" + (f": {self.out}" if self.out else ""), highlight=False)
