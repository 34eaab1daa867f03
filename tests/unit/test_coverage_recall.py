"""Coverage and recall arithmetic on hand-made cases (corpus-format scoring rule)."""
from __future__ import annotations

import pytest

from finchunk_pipeline.evaluation.coverage import coverage_fraction, covered, is_retrieved, merge_spans
from finchunk_pipeline.evaluation.recall import RankedChunk, by_type, curve, score_question


def test_merge_spans_unions_overlaps_and_touching():
    assert merge_spans([(10, 20), (0, 5), (15, 30), (30, 31), (40, 40)]) == [(0, 5), (10, 31)]


def test_covered_counts_overlap_once():
    merged = merge_spans([(0, 10), (5, 15), (20, 30)])
    assert covered(0, 30, merged) == 25
    assert covered(12, 22, merged) == 5
    assert covered(30, 40, merged) == 0


def test_fifty_percent_rule_is_inclusive():
    assert is_retrieved(0, 10, [(5, 10)])          # exactly 50%
    assert not is_retrieved(0, 10, [(6, 10)])      # 40%
    assert coverage_fraction(0, 10, [(0, 3), (7, 10)]) == pytest.approx(0.6)


def test_two_chunks_together_retrieve_a_passage_neither_does_alone():
    gold = [("d", 0, 100)]
    ranked = [RankedChunk("d", [(0, 30)], 30), RankedChunk("d", [(20, 60)], 40), RankedChunk("e", [(0, 100)], 100)]
    s = score_question("q", "text", gold, ranked, 3)
    assert s.retrieved == [0, 1, 1]        # 30% at k=1, 60% at k=2 (overlap counted once)
    assert s.chars == [30, 60, 160]       # the overlap (20..30) is delivered once (budget rule v2)


def test_other_document_spans_do_not_count():
    s = score_question("q", "text", [("d", 0, 10)], [RankedChunk("e", [(0, 10)], 10)], 1)
    assert s.retrieved == [0]


def test_multi_span_chunk_covers_a_far_footnote():
    gold = [("d", 0, 10), ("d", 500, 520)]
    s = score_question("q", "table_and_note", gold, [RankedChunk("d", [(0, 10), (500, 520)], 30)], 1)
    assert s.retrieved == [2] and s.full(1)


def test_curve_averages_and_leaves_out_unanswerable():
    a = score_question("a", "text", [("d", 0, 10), ("d", 20, 30)], [RankedChunk("d", [(0, 10)], 10)], 2)
    b = score_question("b", "table", [("d", 20, 30)], [RankedChunk("d", [(50, 60)], 10), RankedChunk("d", [(20, 30)], 10)], 2)
    u = score_question("u", "unanswerable", [], [RankedChunk("d", [(0, 10)], 10)], 2)
    c = curve([a, b, u], 2)
    assert c[0] == {"k": 1, "recall": pytest.approx(0.25), "full_coverage": 0.0, "chars": 10}
    assert c[1] == {"k": 2, "recall": pytest.approx(0.75), "full_coverage": 0.5, "chars": 15}
    bt = by_type([a, b, u], 2)
    assert set(bt) == {"text", "table"} and bt["table"]["recall"] == 1.0 and bt["text"]["recall"] == 0.5


def test_fewer_chunks_than_k_keeps_last_values():
    s = score_question("q", "text", [("d", 0, 10)], [RankedChunk("d", [(0, 10)], 10)], 3)
    assert s.retrieved == [1, 1, 1] and s.chars == [10, 10, 10]
