"""Search delivers what the evaluation scores: a chunk set declaring ``expand`` answers with
each hit's bounded parent (the evaluation's own delivery), each parent once; ``--units`` with
the matched chunks."""
from __future__ import annotations

import json

import pytest

from finchunk_pipeline import Settings, Workspace
from finchunk_pipeline.builders.evaluation import document_reader
from finchunk_pipeline.builders.search import open_searcher, resolve_chunk_set
from finchunk_pipeline.chunking.expand import expand_chunk
from finchunk_pipeline.cli import main
from finchunk_pipeline.corpus import load_corpus
from finchunk_pipeline.types.chunks import spans_of

CHUNKERS = """
chunk_sets:
  - name: evidence
    strategy: structure
    params: {max_chars: 300, table_max_chars: 150, link_notes_chars: 0}
    header: true
    context_fields: [title, period, section]
    expand: 800
    dense: false
"""
QUERY = "revenue by segment"


def built(chunkers_yaml: str, tmp_path, corpus, monkeypatch, capsys) -> tuple[list[str], Workspace]:
    """``finchunk run`` (BM25) of the chunk sets of ``chunkers_yaml`` on ``corpus``: the CLI's
    store options and the workspace."""
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text(chunkers_yaml)
    store = ["--corpus", str(corpus), "--data", str(tmp_path / "store"), "--chunkers", str(chunkers)]
    assert main(["run", *store, "--out", str(tmp_path / "out"), "--retrievers", "bm25"]) == 0
    capsys.readouterr()
    return store, Workspace(Settings().with_paths(str(corpus), str(tmp_path / "store"), str(chunkers)))


def test_a_chunk_set_with_expand_is_searched_as_its_parents(tmp_path, default_corpus_copy, monkeypatch, capsys):
    store, ws = built(CHUNKERS, tmp_path, default_corpus_copy, monkeypatch, capsys)

    units = open_searcher("evidence", "bm25", ws, units=True).search(QUERY, 40)
    parents = open_searcher("evidence", "bm25", ws).search(QUERY, 5)
    assert len(parents) == 5 and [h.rank for h in parents] == [1, 2, 3, 4, 5]
    assert all(h.extra.get("delivery") is None for h in units)

    # each parent: the expansion of the best-ranked chunk not yet delivered, its header first
    chunks = ws.chunks.read(resolve_chunk_set(ws, "evidence"))
    by_id = chunks.set_index("chunk_id")
    read = document_reader(ws.manifest_path, ws.blocks)
    delivered, expected = set(), []
    for u in units:
        row = by_id.loc[u.chunk_id]
        spans, text = expand_chunk({"view_spans": row["view_spans"]}, read(u.doc_id), 800)
        key = (u.doc_id, tuple(map(tuple, spans)))
        if key not in delivered:
            delivered.add(key)
            header = row["embedding_text"][:len(row["embedding_text"]) - len(row["source_text"])]
            expected.append((u.chunk_id, [tuple(s) for s in spans], header + text))
    assert [(h.chunk_id, h.spans, h.display_text) for h in parents] == expected[:5]
    for h in parents:
        matched = [tuple(s) for s in h.extra["matched"]["spans"]]
        assert matched == spans_of(by_id.loc[h.chunk_id, "spans"])
        assert all(any(ps <= s and e <= pe for ps, pe in h.spans) for s, e in matched)  # the match is inside
        assert len(h.display_text) > len(h.extra["matched"]["text"])
    assert len({(h.doc_id, tuple(h.spans)) for h in parents}) == 5   # each parent once

    # the CLI: parents by default, with what matched; --units the chunks
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "-k", "2", *store]) == 0
    out = capsys.readouterr().out
    assert out.count("parent of the match") == 2
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "-k", "2",
                 "--units", "--json", *store]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["chunk_id"] for h in hits] == [u.chunk_id for u in units[:2]] and "matched" not in hits[0]


BUDGET_CHUNKERS = CHUNKERS + """
  - {name: plain-h, strategy: fixed, params: {size: 400, overlap: 100}, header: true, dense: false}
"""


def test_a_context_budget_is_filled_as_the_evaluation_fills_it(tmp_path, default_corpus_copy, monkeypatch, capsys):
    """``budget=N`` returns the hits the evaluation delivers in N characters: parents bounded to
    a third of N, a header charged once, evidence delivered twice charged once, the last hit
    cut at the budget — the same spans, hit by hit, as the assembler of the evaluation over
    the same ranking (evaluation/assembler.py) — and, for every question of the corpus, the
    recall the stored evaluation reports at that budget."""
    from finchunk_pipeline.evaluation.assembler import deliver, retrieved_count, subtract
    from finchunk_pipeline.evaluation.coverage import union_merged
    from finchunk_pipeline.evaluation.expander import parent_bound, parent_expander
    from finchunk_pipeline.evaluation.retrieval import delivery, gold_spans

    store, ws = built(BUDGET_CHUNKERS, tmp_path, default_corpus_copy, monkeypatch, capsys)
    chunks = ws.chunks.read(resolve_chunk_set(ws, "evidence"))
    # the evaluation's own delivery, built here, not asked of the searcher
    own = parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), 800)
    evaluation_delivery = {"evidence": lambda b: delivery(chunks, own.at(b)),
                           "plain-h": lambda b: delivery(ws.chunks.read(resolve_chunk_set(ws, "plain-h")))}

    for name, budget in (("evidence", 1_500), ("evidence", 700), ("plain-h", 1_000)):
        searcher = open_searcher(name, "bm25", ws)
        hits = searcher.search(QUERY, None, budget=budget)
        # the evaluation's assembler over the same ranking and the evaluation's delivery at this budget
        ranked = searcher.retriever.search_many([QUERY], 500)[0]
        at = evaluation_delivery[name](budget)
        by_doc, used, _ = deliver([at(row) for row, _ in ranked], budget=budget)
        assert used == budget == sum(h.extra["chars"] for h in hits)
        got: dict[str, list] = {}
        for h in hits:
            got[h.doc_id] = union_merged(got.get(h.doc_id, []), sorted(h.spans))
        assert got == by_doc
        assert [h.extra["cut"] for h in hits] == [False] * (len(hits) - 1) + [True]
        assert all(len(h.display_text) <= h.extra["chars"] for h in hits if h.extra["cut"])
        if name == "evidence":   # parents of at most a third of the budget
            assert all(sum(e - s for s, e in h.spans) <= parent_bound(800, budget) for h in hits)
            assert all(h.extra["delivery"] == "parent" for h in hits)
        else:
            assert all("delivery" not in h.extra for h in hits)
    # every question of the corpus: the recall of what search delivers at 1,500 is the recall
    # the stored evaluation reports for it (BM25, global)
    corpus = load_corpus(default_corpus_copy)
    gold = gold_spans(corpus.passages)
    stored = json.loads((ws.evaluation_dir(resolve_chunk_set(ws, "evidence")) / "evaluation.json").read_text())
    entry = next(e for e in stored["entries"] if e["retriever"] == "bm25" and e["mode"] == "global")
    evaluated = dict(zip(entry["per_question"]["ids"], entry["per_question"]["recall"]["1500"]))
    searcher = open_searcher("evidence", "bm25", ws)
    searched = {}
    for q in corpus.questions.to_dict("records"):
        if q["question_id"] in evaluated:
            merged: dict[str, list] = {}
            for h in searcher.search(q["question"], None, budget=1_500):
                merged[h.doc_id] = union_merged(merged.get(h.doc_id, []), sorted(h.spans))
            g = [gold[p] for p in q["gold_passages"]]
            searched[q["question_id"]] = retrieved_count(g, merged) / len(g)
    assert len(searched) > 50 and searched == pytest.approx(evaluated)

    # a header is sent once: a later chunk under a header already sent pays for its body only,
    # and its text leaves the header out ("net debt": several of its hits share a section)
    searcher = open_searcher("plain-h", "bm25", ws)
    at = searcher._deliver_at(20_000)
    rows = {c: i for i, c in enumerate(searcher.chunks["chunk_id"])}
    sent, again = set(), 0
    have: dict[str, list] = {}
    for h in searcher.search("net debt", None, budget=20_000)[:-1]:
        d = at(rows[h.chunk_id])
        new = sum(e - s for s, e in subtract(d.merged, have.get(h.doc_id, [])))   # Markdown: ratio 1
        have[h.doc_id] = union_merged(have.get(h.doc_id, []), d.merged)
        if d.header_key in sent:
            again += 1
            assert h.extra["chars"] == new and not h.display_text.startswith(d.header)
        else:
            assert h.extra["chars"] == len(d.header) + new and h.display_text.startswith(d.header)
        sent.add(d.header_key)
    assert again > 0

    # k still caps; the CLI and its JSON say what each hit cost
    assert len(open_searcher("evidence", "bm25", ws).search(QUERY, 2, budget=100_000)) == 2
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "--budget", "1500",
                 "--json", *store]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert sum(h["chars"] for h in cli) == 1_500 and cli[-1]["cut"] is True
    assert main(["search", QUERY, "--chunk-set", "evidence", "--retriever", "bm25", "--no-route", "--budget", "1500",
                 *store]) == 0
    assert "1,500 of 1,500 characters" in capsys.readouterr().out
