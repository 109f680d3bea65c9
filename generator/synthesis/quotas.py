"""How many tasks of each kind a synthesised set holds, and which candidates fill them.

Kinds succeed at different rates (a question almost always finds its answer, an errand of
four calls often fails), so keeping the first ``n`` that pass would fill a set with whatever
is easiest. Each kind the domain can build gets a share of the set instead, taken in
candidate order; candidates of a kind already full are not built at all. The choice depends
only on which candidate indices passed, so it is as deterministic as they are.
"""

from __future__ import annotations

from collections import Counter

from scaleenv_mcp.domain.task import Task

__all__ = ["KIND_SHARES", "kind_targets", "select_by_kind", "shortfall"]

#: Share of a set per kind (#21 asks at least 15% information and 10% refusal per domain).
KIND_SHARES = {"information": 0.2, "refusal": 0.12}


def kind_targets(n: int, kinds: set[str]) -> dict[str, int]:
    """Tasks wanted per kind: the shares of the kinds the domain builds, actions the rest."""
    targets = {kind: round(share * n) for kind, share in KIND_SHARES.items() if kind in kinds}
    targets["action"] = n - sum(targets.values())
    return targets


def select_by_kind(accepted: dict[int, Task], n: int, targets: dict[str, int]) -> list[int]:
    """Indices of the set: each kind up to its target in index order, then, if some kind fell
    short, the earliest of the rest (a short set beats a missing one); sorted, at most ``n``."""
    taken: Counter[str] = Counter()
    chosen: list[int] = []
    for index in sorted(accepted):
        kind = accepted[index].kind
        if taken[kind] < targets.get(kind, 0):
            taken[kind] += 1
            chosen.append(index)
    spare = [i for i in sorted(accepted) if i not in set(chosen)]
    return sorted(chosen + spare[:max(0, n - len(chosen))])


def shortfall(accepted: dict[int, Task], targets: dict[str, int]) -> dict[str, int]:
    """Tasks each kind still needs among those accepted (0 when it is full)."""
    have = Counter(t.kind for t in accepted.values())
    return {kind: max(0, target - have[kind]) for kind, target in targets.items()}
