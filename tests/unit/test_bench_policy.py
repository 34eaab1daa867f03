"""bench/bench_policy.py: the leave-one-dev-set-out vote that counts only differences outside the noise."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_policy as bench  # noqa: E402

pytestmark = pytest.mark.unit


def test_a_pair_counts_only_when_its_interval_excludes_zero():
    qs = [f"q{i}" for i in range(60)]
    recalls = {
        "strong": {q: 1.0 for q in qs},                                  # ahead of both, on every question
        "a": {q: 0.5 if i % 2 else 0.0 for i, q in enumerate(qs)},       # a and b: the same mean,
        "b": {q: 0.0 if i % 2 else 0.5 for i, q in enumerate(qs)},       # opposite questions: noise
        "a-bit-better": {q: (0.5 if i % 2 else 0.0) + (0.5 if i == 0 else 0.0) for i, q in enumerate(qs)},
    }
    wins = bench.significant_wins(recalls, sorted(recalls) + ["not stored here"])
    assert wins["strong"] == 3                         # beats each of the other three
    assert wins["a"] == wins["b"] == wins["a-bit-better"] == -1   # lose to strong, tie among themselves
    assert "not stored here" not in wins
    # by mean recall alone "a-bit-better" would rank above a and b: one question apart
    means = {n: sum(r.values()) / len(r) for n, r in recalls.items()}
    assert means["a-bit-better"] > means["a"] == means["b"]
