"""The benches' votes rank candidates within a cell the same way: rank 1 = the highest score,
and tied candidates share their mean rank (as the Friedman test ranks), so no candidate's rank
depends on the order the names come in. bench_policy votes over evidence-aware policies,
bench_parent_share over parent shares; each dev set then votes with its cells' mean rank."""
from __future__ import annotations

from typing import Hashable, Mapping, TypeVar

from scipy.stats import rankdata

K = TypeVar("K", bound=Hashable)


def cell_ranks(scores: Mapping[K, float]) -> dict[K, float]:
    """{candidate: its rank in one cell} from {candidate: score}, higher score first."""
    names = list(scores)
    return {n: float(r) for n, r in zip(names, rankdata([-scores[n] for n in names], method="average"))}
