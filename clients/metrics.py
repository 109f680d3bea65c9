"""Avg@k, Pass@k and Pass^k with unbiased estimators and Wilson score intervals.

Per task with n scored trials of which c succeeded (reward 1):
  Pass@k = 1 - C(n-c, k) / C(n, k)   (at least one of k trials succeeds)
  Pass^k = C(c, k) / C(n, k)         (all k trials succeed: consistency, tau-bench's pass^k)
  Avg@k  = mean reward over the trials.
A group's value is the mean over its tasks; its 95% interval is the Wilson score interval
for that mean as a rate over n tasks (trials of one task are not independent, so n counts
tasks). Exact in form for 0/1 values; for per-task values in [0, 1] it is conservative, as
such a value's variance is at most p(1 - p). Unlike a bootstrap it stays honest on small
samples: 14 of 14 tasks passing gives [0.78, 1.00], not [1.00, 1.00]. Infrastructure failures are not trials: a task left with fewer than k scored
trials is excluded from Pass@k/Pass^k and counted in ``tasks_short``, never scored 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from math import comb, sqrt

from pydantic import BaseModel, ConfigDict, Field

from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus

__all__ = ["INTERVAL", "Estimate", "GroupMetrics", "avg", "pass_at_k", "pass_hat_k", "summarise", "wilson_interval"]

SUCCESS = 1.0 - 1e-9


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased probability that at least one of k trials (drawn from n, c correct) succeeds."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased probability that all k trials (drawn from n, c correct) succeed."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")


def avg(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


INTERVAL = "95% Wilson score interval over tasks"
_Z95 = 1.959963984540054


def wilson_interval(values: Sequence[float], z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval of the mean of ``values`` (each in [0, 1], one per task) as a rate over n."""
    n = len(values)
    if not n:
        return (0.0, 0.0)
    p = sum(values) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class Estimate(BaseModel):
    value: float
    ci_low: float = Field(description="95% Wilson score interval over tasks, low end.")
    ci_high: float
    tasks: int = Field(description="Tasks the estimate averages over.")


class GroupMetrics(BaseModel):
    """One domain, or all of them."""

    model_config = ConfigDict(populate_by_name=True)

    k: int
    tasks: int
    episodes: int = Field(description="Scored episodes (infrastructure failures excluded).")
    infra_failures: int
    tasks_short: int = Field(description="Tasks with fewer than k scored trials (left out of pass@k and pass^k).")
    avg_at_k: Estimate = Field(alias="avg@k")
    pass_at_k: Estimate = Field(alias="pass@k")
    pass_hat_k: Estimate = Field(alias="pass^k")
    pass_hat_curve: dict[int, float] = Field(description="pass^j for j = 1..k (how consistency decays).")
    table_match: dict[str, float] = Field(description="Mean per-table match fraction over scored episodes.")
    mean_table_match: float | None = Field(description="Mean over tables and episodes; a dense diagnostic.")


def _estimate(values: list[float]) -> Estimate:
    low, high = wilson_interval(values)
    return Estimate(value=round(avg(values), 6), ci_low=round(low, 6), ci_high=round(high, 6), tasks=len(values))


def _group(records: list[EpisodeRecord], k: int) -> GroupMetrics:
    by_task: dict[str, list[float]] = defaultdict(list)
    tasks = {f"{r.domain}/{r.task_id}" for r in records}
    scored = [r for r in records if r.status is EpisodeStatus.completed and r.reward is not None]
    for record in scored:
        by_task[f"{record.domain}/{record.task_id}"].append(record.reward)  # type: ignore[arg-type]
    counts = {t: (len(v), sum(1 for x in v if x >= SUCCESS)) for t, v in sorted(by_task.items())}
    full = {t: nc for t, nc in counts.items() if nc[0] >= k}
    tables: dict[str, list[float]] = defaultdict(list)
    for record in scored:
        for table, fraction in record.table_match.items():
            tables[table].append(fraction)
    per_episode = [avg(list(r.table_match.values())) for r in scored if r.table_match]
    return GroupMetrics(
        k=k, tasks=len(tasks), episodes=len(scored), infra_failures=len(records) - len(scored),
        tasks_short=len(tasks) - len(full),
        avg_at_k=_estimate([avg(v) for _, v in sorted(by_task.items())]),
        pass_at_k=_estimate([pass_at_k(n, c, k) for n, c in full.values()]),
        pass_hat_k=_estimate([pass_hat_k(n, c, k) for n, c in full.values()]),
        pass_hat_curve={j: round(avg([pass_hat_k(n, c, j) for n, c in counts.values() if n >= j]), 6)
                        for j in range(1, k + 1)},
        table_match={t: round(avg(v), 6) for t, v in sorted(tables.items())},
        mean_table_match=round(avg(per_episode), 6) if per_episode else None,
    )


def summarise(records: list[EpisodeRecord], k: int) -> tuple[GroupMetrics, dict[str, GroupMetrics]]:
    """Overall and per-domain metrics of a run's episode records."""
    ordered = sorted(records, key=lambda r: r.key)
    domains = sorted({r.domain for r in ordered})
    per_domain = {d: _group([r for r in ordered if r.domain == d], k) for d in domains}
    return _group(ordered, k), per_domain
