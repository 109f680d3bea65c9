"""The pass@k / pass^k estimators against hand-computed values, and how a run is summarised."""

from __future__ import annotations

from fractions import Fraction

import pytest

from scaleenv_mcp.clients.metrics import pass_at_k, pass_hat_k, summarise, wilson_interval
from scaleenv_mcp.clients.models import EpisodeRecord, EpisodeStatus, InfraKind, InfraRecord


@pytest.mark.parametrize(("n", "c", "k", "at", "hat"), [
    (5, 2, 2, Fraction(7, 10), Fraction(1, 10)),     # 1 - C(3,2)/C(5,2) = 1 - 3/10; C(2,2)/C(5,2) = 1/10
    (4, 3, 2, Fraction(1), Fraction(1, 2)),          # C(1,2) = 0; C(3,2)/C(4,2) = 3/6
    (10, 5, 3, Fraction(11, 12), Fraction(1, 12)),   # 1 - C(5,3)/C(10,3) = 1 - 10/120; 10/120
    (4, 4, 4, Fraction(1), Fraction(1)),
    (3, 0, 1, Fraction(0), Fraction(0)),
    (8, 3, 1, Fraction(3, 8), Fraction(3, 8)),       # k = 1: both are c/n
    (8, 7, 8, Fraction(1), Fraction(0)),             # k = n: pass^n needs every trial
])
def test_estimators_match_hand_computed_values(n: int, c: int, k: int, at: Fraction, hat: Fraction):
    assert pass_at_k(n, c, k) == pytest.approx(float(at))
    assert pass_hat_k(n, c, k) == pytest.approx(float(hat))


@pytest.mark.parametrize(("n", "c", "k"), [(3, 4, 1), (3, 1, 4), (3, 1, 0), (2, -1, 1)])
def test_estimators_refuse_impossible_counts(n: int, c: int, k: int):
    with pytest.raises(ValueError):
        pass_at_k(n, c, k)
    with pytest.raises(ValueError):
        pass_hat_k(n, c, k)


def _record(domain: str, task: str, trial: int, reward: float | None) -> EpisodeRecord:
    base = dict(key=f"{domain}/{task}#{trial}", domain=domain, task_id=task, trial=trial, seed=trial)
    if reward is None:
        return EpisodeRecord(**base, status=EpisodeStatus.infra_failure,
                             infra=InfraRecord(kind=InfraKind.llm, message="500"))
    return EpisodeRecord(**base, status=EpisodeStatus.completed, reward=reward,
                         table_match={"loans": reward, "books": 1.0})


def test_summary_counts_infrastructure_failures_apart_and_never_as_zero():
    records = ([_record("lib", "a", i, r) for i, r in enumerate([1, 1, 0])]
               + [_record("lib", "b", i, 1.0) for i in range(3)]
               + [_record("zoo", "c", 0, 0.0), _record("zoo", "c", 1, 0.0), _record("zoo", "c", 2, None)])
    overall, domains = summarise(records, k=3)
    assert (overall.tasks, overall.episodes, overall.infra_failures, overall.tasks_short) == (3, 8, 1, 1)
    assert overall.avg_at_k.value == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert overall.pass_at_k.value == pytest.approx(1.0) and overall.pass_at_k.tasks == 2  # task c is short
    assert overall.pass_hat_k.value == pytest.approx(0.5)  # a: C(2,3)=0, b: 1
    assert overall.pass_hat_curve[1] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert overall.pass_hat_curve[2] == pytest.approx((1 / 3 + 1 + 0) / 3)  # a: C(2,2)/C(3,2); c: n=2, c=0
    assert set(domains) == {"lib", "zoo"}
    assert domains["zoo"].infra_failures == 1 and domains["zoo"].pass_hat_k.tasks == 0
    assert domains["lib"].table_match == {"books": 1.0, "loans": pytest.approx(5 / 6)}
    dumped = overall.model_dump(by_alias=True)
    assert {"avg@k", "pass@k", "pass^k"} <= set(dumped)


def test_wilson_interval_is_honest_for_small_samples():
    low, high = wilson_interval([1.0] * 14)  # 14 of 14 passing: not certainty
    assert (round(low, 2), high) == (0.78, 1.0)
    values = [0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.25, 1.0]
    low, high = wilson_interval(values)
    assert 0.0 <= low < sum(values) / len(values) < high <= 1.0
    # hand-computed: 5 of 10, z = 1.96 -> [0.2366, 0.7634]
    assert [round(x, 4) for x in wilson_interval([1.0] * 5 + [0.0] * 5)] == [0.2366, 0.7634]
    assert wilson_interval([]) == (0.0, 0.0)
