"""``scaleenv tasks report``: how varied a domain's tasks are.

Distinct tool sequences, chain-length, chains-per-task and difficulty histograms, the share
of the domain's tools some task uses (the shipped domains aim at two thirds or more), unique
openings, splits, expansion sizes and patched start states. Read-only: it never runs a tool.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.domain.manifest import DomainManifest
from scaleenv_mcp.domain.task import Task
from scaleenv_mcp.verifier.realism import RealismReport, realism_report

__all__ = ["DiversityReport", "diversity_report"]

TOOLS_USED_TARGET = 2 / 3


class DiversityReport(BaseModel):
    domain: str
    tasks: int
    distinct_tool_sequences: int
    chain_length: dict[str, int] = Field(description="Actions per task -> tasks.")
    difficulty: dict[str, int]
    splits: dict[str, int]
    tools_total: int
    tools_used: int
    tools_used_share: float
    tools_used_target: float = round(TOOLS_USED_TARGET, 4)
    unused_tools: list[str]
    end_tools: dict[str, int] = Field(description="Last tool of each seed chain -> tasks.")
    unique_openings: int
    mean_distractors: float
    mean_expanded_size: float
    mean_complexity: float
    chains: dict[str, int] = Field(default_factory=dict, description="Chains per task (C1..Cn) -> tasks.")
    patched_tasks: int = Field(default=0, description="Tasks whose start state synthesis patched so a tool of H answers.")
    realism: RealismReport | None = Field(default=None, description="What a careful reader checks (scaleenv_mcp.verifier.realism).")


def diversity_report(manifest: DomainManifest, tasks: list[Task],
                     seed: dict[str, list[dict[str, Any]]] | None = None) -> DiversityReport:
    """Diversity counts; with the package's ``seed``, also the realism counts."""
    sequences = {tuple(a.tool for a in t.actions) for t in tasks}
    used = {a.tool for t in tasks for a in t.actions}
    names = sorted(t.name for t in manifest.tools)
    count = len(tasks) or 1
    return DiversityReport(
        domain=manifest.slug, tasks=len(tasks), distinct_tool_sequences=len(sequences),
        chain_length={str(k): v for k, v in sorted(Counter(len(t.actions) for t in tasks).items())},
        difficulty={k: v for k, v in sorted(Counter(t.difficulty for t in tasks).items())},
        splits={k: v for k, v in sorted(Counter(t.split for t in tasks).items())},
        tools_total=len(names), tools_used=len(used & set(names)),
        tools_used_share=round(len(used & set(names)) / len(names), 4) if names else 0.0,
        unused_tools=[n for n in names if n not in used],
        end_tools={k: v for k, v in sorted(Counter(t.meta.seed_chain[-1] for t in tasks if t.meta.seed_chain).items())},
        unique_openings=len({t.user.opening for t in tasks}),
        mean_distractors=round(sum(t.meta.distractors for t in tasks) / count, 3),
        mean_expanded_size=round(sum(t.meta.expanded_size for t in tasks) / count, 3),
        mean_complexity=round(sum(t.meta.complexity for t in tasks) / count, 4),
        chains={str(k): v for k, v in sorted(Counter(len(t.meta.chains) or 1 for t in tasks).items())},
        patched_tasks=sum(1 for t in tasks if t.meta.patched_tools),
        realism=realism_report(manifest, tasks, seed) if seed is not None else None)
