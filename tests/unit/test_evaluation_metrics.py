"""Hand-made cases for every evaluation metric: budget delivery, precision / IoU, containment."""
import pandas as pd
import pytest

from finchunk_pipeline.evaluation.assembler import DeliveredChunk, deliver, span_prefix
from finchunk_pipeline.evaluation.budget import budget_curve, score_budgets
from finchunk_pipeline.evaluation.containment import (
    contains_answer,
    number_values,
    scorable,
)
from finchunk_pipeline.evaluation.precision import precision_iou
from finchunk_pipeline import evaluate_retriever


def test_span_prefix_reading_order():
    assert span_prefix([(10, 20), (50, 60)], 15) == [(10, 20), (50, 55)]
    assert span_prefix([(10, 20)], 0) == []


def test_budget_whole_chunks_then_cut_chunk_credits_span_prefix():
    ranked = [DeliveredChunk("d", [(0, 100)], 100), DeliveredChunk("d", [(200, 400)], 200)]
    merged, used, _ = deliver(ranked, budget=150)
    assert used == 150 and merged == {"d": [(0, 100), (200, 250)]}
    # the header comes first and covers no document characters
    ranked = [DeliveredChunk("d", [(200, 400)], 230, header_chars=30, text="H" * 30 + "x" * 200)]
    merged, used, text = deliver(ranked, budget=130)
    assert merged == {"d": [(200, 300)]} and used == 130 and len(text) == 130
    merged, _, _ = deliver(ranked, budget=20)
    assert merged == {"d": []}
    # body and raw spans differing (joiners): proportional mapping
    ranked = [DeliveredChunk("d", [(0, 50), (100, 150)], 102)]  # 100 raw chars + "\n\n"
    merged, _, _ = deliver(ranked, budget=51)
    assert merged == {"d": [(0, 50)]}


def test_budget_stops_at_the_first_chunk_that_does_not_fit_and_ranking_may_run_out():
    ranked = [DeliveredChunk("d", [(0, 100)], 100), DeliveredChunk("d", [(100, 400)], 300),
              DeliveredChunk("d", [(500, 510)], 10)]
    merged, used, _ = deliver(ranked, budget=200)
    assert merged == {"d": [(0, 200)]} and used == 200  # no skipping to the small third chunk
    _, used, _ = deliver(ranked, budget=3000)
    assert used == 410


def test_budget_recall_and_full_coverage():
    gold = [("d", 0, 100), ("d", 200, 300)]
    ranked = [DeliveredChunk("d", [(0, 100)], 100), DeliveredChunk("d", [(200, 300)], 100)]
    s = score_budgets("q", "text", gold, ranked, budgets=(100, 140, 150, 200))
    assert s.retrieved == {100: 1, 140: 1, 150: 2, 200: 2}  # 50 of 100 chars = 50% counts
    curve = budget_curve([s, score_budgets("u", "unanswerable", [], ranked, (100, 140, 150, 200))], (100, 140, 150, 200))
    assert [p["recall"] for p in curve] == [0.5, 0.5, 1.0, 1.0]
    assert [p["full_coverage"] for p in curve] == [0.0, 0.0, 1.0, 1.0]


def test_precision_and_iou():
    gold = [("d", 0, 100)]
    assert precision_iou({"d": [(0, 100)]}, gold) == (1.0, 1.0)
    p, iou = precision_iou({"d": [(50, 250)]}, gold)
    assert p == pytest.approx(50 / 200) and iou == pytest.approx(50 / 250)
    p, iou = precision_iou({"x": [(0, 100)]}, gold)
    assert (p, iou) == (0.0, 0.0)
    assert precision_iou({}, gold) == (0.0, 0.0)
    # overlapping gold passages are one set of characters
    p, iou = precision_iou({"d": [(0, 150)]}, [("d", 0, 100), ("d", 50, 150)])
    assert (p, iou) == (1.0, 1.0)


@pytest.mark.parametrize("token,values", [
    ("1,165.0", {1165.0}), ("1.165,0", {1165.0}), ("1,165", {1165.0, 1.165}), ("66", {66.0}),
    ("1 234 567", None), ("12,5", {12.5}), ("1,234,567", {1234567.0}), ("0,125", {0.125}),
])
def test_number_values(token, values):
    if values is None:  # plain spaces are not thousands separators
        return
    assert number_values(token) == values


@pytest.mark.parametrize("answer,text,expected", [
    ("1,165.0", "Revenue | 1 165,0 | 1,080.2", False),          # plain space splits: 1 and 165,0
    ("1,165.0", "Revenue | 1\u202f165,0 | 1,080.2", True),      # thin space thousands, decimal comma
    ("66.0", "Profit before tax was 66.0", True),
    ("66.0", "Profit before tax was 66", True),
    ("€39.7 million", "an impairment of EUR 39.7m was recorded", True),
    ("€39.7 million", "an impairment of €39.8 million", False),
    ("9.7%", "margin of 9.7 per cent", True),
    ("1,208.6", "total 1.208,6", True),
    ("(12.3)", "loss of -12.3", True),
    ("Walter Varga", "The CFO, WALTER  VARGA, said", True),
    ("Walter Varga", "Walter Vargas said", False),
    ("16 new sites", "we opened 16 sites", True),               # numbers decide numeric answers
])
def test_contains_answer(answer, text, expected):
    assert contains_answer(answer, text) is expected


def test_scorable_skips_computed_types_and_missing_answers():
    assert not scorable("calculation", "9.7%") and not scorable("point_in_time", "1")
    assert not scorable("text", None) and not scorable("text", float("nan")) and scorable("table", "66.0")


class _FixedRetriever:
    name = "fixed-order"

    def search_many(self, queries, k, allowed=None):
        out = []
        for i, _ in enumerate(queries):
            rows = [r for r in range(3) if allowed is None or allowed[i][r]]
            out.append([(r, 1.0) for r in rows[:k]])
        return out


def test_evaluate_retriever_end_to_end_summary():
    chunks = pd.DataFrame({
        "chunk_id": ["a#0", "a#1", "b#0"], "doc_id": ["a", "a", "b"],
        "spans": [[{"start": 0, "end": 100}], [{"start": 100, "end": 200}], [{"start": 0, "end": 100}]],
        "embedding_text": ["x" * 87 + " revenue 66.0", "y" * 100, "z" * 100],
        "source_text": ["x" * 87 + " revenue 66.0", "y" * 100, "z" * 100],
    })
    chunks.loc[0, "embedding_text"] = chunks.loc[0, "embedding_text"][:100]
    chunks.loc[0, "source_text"] = chunks.loc[0, "embedding_text"]
    passages = pd.DataFrame({"passage_id": ["p1", "p2"], "doc_id": ["a", "b"], "start": [0, 0], "end": [100, 100]})
    questions = pd.DataFrame({
        "question_id": ["q1", "q2", "q3"], "question": ["?", "?", "?"],
        "question_type": ["table", "footnote", "unanswerable"], "doc_ids": [["a"], ["b"], None],
        "gold_passages": [["p1"], ["p2"], None], "answer": ["66.0", "nope", None]})
    s = evaluate_retriever(_FixedRetriever(), chunks, passages, questions, "global").summary()
    assert s["curve"][0]["recall"] == 0.5 and s["curve"][2]["recall"] == 1.0
    b = {p["chars"]: p["recall"] for p in s["budget"]}
    assert b[500] == 1.0
    assert s["precision"]["k"] == 5 and s["precision"]["chars"] == 1500
    assert s["precision"]["value"] == pytest.approx((100 / 300 + 100 / 300) / 2)
    assert s["answer_containment"]["questions"] == 2 and s["answer_containment"]["value"] == 0.5
    assert s["slices"]["tables"]["questions"] == 1 and s["slices"]["footnotes"]["questions"] == 1
    f = evaluate_retriever(_FixedRetriever(), chunks, passages, questions, "filtered").summary()
    assert f["curve"][0]["recall"] == 1.0
    # a small-to-big policy: every retrieved chunk delivered as its expansion, in any mode
    e = evaluate_retriever(_FixedRetriever(), chunks, passages, questions, "global",
                           expander=lambda r: ([(0, 200)], "x" * 200) if r < 2 else ([(0, 100)], "x" * 100)).summary()
    assert e["curve"][0]["recall"] == 0.5 and e["curve"][0]["chars"] == 200
    # the second chunk's expansion is the same span: it adds nothing and costs nothing
    assert e["curve"][1]["chars"] == 200
    assert e["per_question"]["ids"] == ["q1", "q2"]
    assert e["per_question"]["recall"]["1500"] == [1.0, 1.0]
    with pytest.raises(ValueError):
        evaluate_retriever(_FixedRetriever(), chunks, passages, questions, "expanded")


def test_assembler_sends_repeated_evidence_and_shared_headers_once():
    head = "ACME 10-K > Balance sheet"
    row1 = DeliveredChunk("d", [(0, 50), (100, 140)], len(head) + 2 + 92, len(head) + 2,
                          text="", header=head + "\n\n")          # table header (0..50) + a row
    row2 = DeliveredChunk("d", [(0, 50), (140, 180)], len(head) + 2 + 92, len(head) + 2,
                          text="", header=head + "\n\n")          # same table header + the next row
    merged, used, _ = deliver([row1, row2], budget=10_000)
    assert merged["d"] == [(0, 50), (100, 180)]
    # row1: header 27 + 90 raw chars at ratio 92/90; row2: only its 40 new characters
    assert used == 27 + 92 + round(40 * 92 / 90)
    # v1 would have charged 2 x 119 = 238
    assert used < 2 * (len(head) + 2 + 92)
    # a chunk entirely inside what was delivered costs nothing and does not stop the delivery
    dup = DeliveredChunk("d", [(100, 140)], 40)
    far = DeliveredChunk("d", [(500, 520)], 20)
    merged, used2, _ = deliver([row1, dup, far], budget=10_000)
    assert (500, 520) in merged["d"] and used2 == 27 + 92 + 20


def test_assembler_cut_pays_the_new_header_first():
    a = DeliveredChunk("d", [(0, 100)], 100)
    b = DeliveredChunk("e", [(0, 100)], 120, header_chars=20, header="H" * 20)
    merged, used, _ = deliver([a, b], budget=150)
    assert used == 150 and merged["e"] == [(0, 30)]   # 50 left: 20 header + 30 characters of e


def test_parse_budgets():
    from finchunk_pipeline.evaluation.budget import DEFAULT_BUDGETS, parse_budgets

    assert parse_budgets("") == DEFAULT_BUDGETS and max(DEFAULT_BUDGETS) >= 8000
    assert parse_budgets("5000, 2000") == (1500, 2000, 5000)   # the report budget is always there
    with pytest.raises(ValueError, match="whole number"):
        parse_budgets("2k")
    with pytest.raises(ValueError, match="> 0"):
        parse_budgets("0")


def test_score_budgets_in_one_pass_equals_delivering_each_budget():
    """score_budgets walks the ranking once for every budget; it must deliver exactly what the
    assembler delivers budget by budget (overlaps, shared headers, zero-ratio chunks, repeats)."""
    import random

    from finchunk_pipeline.evaluation.assembler import retrieved_count

    rng = random.Random(7)
    budgets = (1, 50, 120, 500, 777, 1500, 3000, 8000)
    for _ in range(400):
        ranked = []
        for _ in range(rng.randint(0, 25)):
            doc = rng.choice("abc")
            spans = sorted((s, s + rng.randint(1, 400)) for s in rng.sample(range(0, 3000, 7), rng.randint(1, 3)))
            header = rng.choice(["", "", "Title > Notes", "Title > Revenue"])
            hc = len(header) + 2 if header else rng.choice([0, 0, 9])
            body = sum(e - s for s, e in spans)
            n_chars = hc + rng.choice([body, body // 2, 0, body * 3 // 2])
            ranked.append(DeliveredChunk(doc, spans, n_chars, hc, "x" * n_chars, header))
        gold = [(rng.choice("abc"), s, s + rng.randint(20, 300)) for s in rng.sample(range(0, 3000, 11), 3)]
        got = score_budgets("q", "t", gold, ranked, budgets)
        for b in budgets:
            merged, used, _ = deliver(ranked, budget=b)
            assert (got.retrieved[b], got.chars[b]) == (retrieved_count(gold, merged), used), b


def test_a_budget_spent_exactly_delivers_nothing_more_not_even_free_chunks():
    ranked = [DeliveredChunk("a", [(0, 100)], 100),            # costs exactly the budget
              DeliveredChunk("a", [(500, 600)], 0),            # adds evidence at no cost (ratio 0)
              DeliveredChunk("a", [(900, 950)], 50)]
    gold = [("a", 500, 600)]
    assert deliver(ranked, budget=100)[0] == {"a": [(0, 100)]}
    got = score_budgets("q", "t", gold, ranked, (100, 150))
    assert (got.retrieved, got.chars) == ({100: 0, 150: 1}, {100: 100, 150: 150})


def test_recall_at_k_equals_delivering_the_top_k_afresh():
    """score_question updates only the passages of the document a chunk added to; it must
    equal delivering the top k from scratch at every k."""
    import random

    from finchunk_pipeline.evaluation.assembler import retrieved_count
    from finchunk_pipeline.evaluation.recall import score_question

    rng = random.Random(11)
    for _ in range(300):
        ranked = [DeliveredChunk(rng.choice("ab"), sorted((s, s + rng.randint(1, 300))
                                                            for s in rng.sample(range(0, 2000, 7), 2)),
                                 rng.randint(0, 400)) for _ in range(rng.randint(0, 15))]
        gold = [(rng.choice("ab"), s, s + rng.randint(10, 250)) for s in rng.sample(range(0, 2000, 13), 3)]
        got = score_question("q", "t", gold, ranked, 20)
        for k in range(1, 21):
            merged, used, _ = deliver(ranked, k=k)
            assert (got.retrieved[k - 1], got.chars[k - 1]) == (retrieved_count(gold, merged), used), k


def _plain_deliver(ranked, budget=None, k=None):
    """The budget rule as first written (assembler.py's docstring), every union by merge_spans
    of everything so far and every chunk's ratio and header read afresh: the reference the
    assembler's shortcuts (chunk values computed once, unions of merged lists) must equal."""
    from finchunk_pipeline.evaluation.assembler import span_prefix, subtract
    from finchunk_pipeline.evaluation.coverage import merge_spans

    by_doc, sent, used = {}, set(), 0
    for i, c in enumerate(ranked):
        if (k is not None and i >= k) or (budget is not None and used >= budget):
            break
        have = by_doc.get(c.doc_id, [])
        new = subtract(merge_spans(c.spans), have)
        if not new:
            continue
        ratio = max(0, c.n_chars - c.header_chars) / (sum(e - s for s, e in c.spans) or 1)
        key = (c.doc_id, c.header or f"#{c.header_chars}") if c.header_chars else None
        head = c.header_chars if key is not None and key not in sent else 0
        new_len = sum(e - s for s, e in new)
        cost = head + round(new_len * ratio)
        if budget is None or used + cost <= budget:
            by_doc[c.doc_id] = merge_spans(have + new)
            used += cost
            if key is not None:
                sent.add(key)
            continue
        body = max(0, budget - used - head)
        take = int(body / ratio) if ratio > 0 else new_len
        by_doc[c.doc_id] = merge_spans(have + span_prefix(new, take))
        used = budget
        break
    return by_doc, used


def test_union_of_merged_lists_equals_merging_everything():
    import random

    from finchunk_pipeline.evaluation.assembler import span_prefix, subtract
    from finchunk_pipeline.evaluation.coverage import merge_spans, union_merged

    rng = random.Random(5)
    for _ in range(2000):
        a = merge_spans((s, s + rng.randint(0, 60)) for s in rng.sample(range(0, 600), rng.randint(0, 8)))
        b = merge_spans((s, s + rng.randint(0, 60)) for s in rng.sample(range(0, 600), rng.randint(0, 8)))
        for part in (b, subtract(b, a), span_prefix(subtract(b, a), rng.randint(0, 200))):
            got = union_merged(a, part)
            assert got == merge_spans(a + part) and got is not a and got is not part


def test_the_assembler_equals_the_plain_rule_with_chunks_shared_between_rankings():
    """Chunks are made once per row and shared by every ranking that holds them (retrieval.py),
    so what the assembler reads of a chunk is computed once; it must deliver exactly what the
    plain rule delivers: repeated chunks, unsorted and overlapping spans, numpy integers,
    shared headers, zero-ratio chunks, and the same chunk objects read by many rankings."""
    import random

    import numpy as np

    from finchunk_pipeline.evaluation.assembler import retrieved_count
    from finchunk_pipeline.evaluation.recall import score_question

    rng = random.Random(13)
    budgets = (1, 50, 120, 500, 777, 1500, 3000)
    for _ in range(60):
        pool = []
        for _ in range(30):
            doc = rng.choice("abc")
            spans = [(s, s + rng.randint(1, 300)) for s in rng.sample(range(0, 2500, 7), rng.randint(1, 3))]
            if rng.random() < 0.3:
                spans = [tuple(np.int64(x) for x in sp) for sp in spans]
            header = rng.choice(["", "", "T > Notes", "T > Revenue"])
            hc = len(header) + 2 if header else rng.choice([0, 0, 9])
            body = sum(int(e) - int(s) for s, e in spans)
            n_chars = hc + rng.choice([body, body // 2, 0, body * 3 // 2])
            pool.append(DeliveredChunk(doc, spans, n_chars, hc, "x" * n_chars, header))
        for _ in range(8):  # rankings over the same chunk objects
            ranked = [rng.choice(pool) for _ in range(rng.randint(0, 20))]
            gold = [(rng.choice("abc"), s, s + rng.randint(20, 300)) for s in rng.sample(range(0, 2500, 11), 3)]
            got_b = score_budgets("q", "t", gold, ranked, budgets)
            got_k = score_question("q", "t", gold, ranked, 20)
            for b in budgets:
                merged, used = _plain_deliver(ranked, budget=b)
                assert deliver(ranked, budget=b)[:2] == (merged, used), b
                assert (got_b.retrieved[b], got_b.chars[b]) == (retrieved_count(gold, merged), used), b
            for k in range(1, 21):
                merged, used = _plain_deliver(ranked, k=k)
                assert deliver(ranked, k=k)[:2] == (merged, used), k
                assert (got_k.retrieved[k - 1], got_k.chars[k - 1]) == (retrieved_count(gold, merged), used), k
