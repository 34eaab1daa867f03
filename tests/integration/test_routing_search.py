"""The routed mode through the evaluation (hard filter, boost, no route), the routing accuracy,
the analyzer's inputs inside the evaluation, the report, and `finchunk search` routing."""
from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pytest

from finchunk_pipeline.storage.chunks import CHUNK_SCHEMA
from finchunk_pipeline import build_report, render_markdown
from finchunk_pipeline import evaluate_retriever
from finchunk_pipeline.index.bm25_retriever import BM25Retriever
from finchunk_pipeline.index.entries.bm25 import build_retriever as build_bm25
from finchunk_pipeline.routing import Catalog
from finchunk_pipeline.routing import search as routing_search
from finchunk_pipeline.routing.search import Router, fuse_boost, routing_summary
from finchunk_pipeline.storage.indexes import save_index
from finchunk_pipeline import Settings
from finchunk_pipeline import Workspace

# The documents say the same things in the same words: only the question's issuer tells them apart.
DOCS = [  # doc_id, issuer, ticker, doc_type, fiscal_year, title
    ("ar-north-2024", "Northwind Holdings plc", "NWH", "annual_report", 2024, "Northwind Holdings plc — Annual report 2024"),
    ("ar-calder-2024", "Calder Industries SE", "CALD", "annual_report", 2024, "Calder Industries SE — Annual report 2024"),
    ("ar-ash-2024", "Ashgrove Foods NV", "ASHF", "annual_report", 2024, "Ashgrove Foods NV — Annual report 2024"),
]
TEXTS = ["Revenue for the year was {n} million.", "The dividend per share was {d} cents."]
NUMS = {"ar-north-2024": (100, 5), "ar-calder-2024": (200, 6), "ar-ash-2024": (300, 7)}


def _chunks() -> pd.DataFrame:
    rows = []
    for doc_id, *_ in DOCS:
        n, d = NUMS[doc_id]
        pos = 0
        for i, t in enumerate(TEXTS):
            t = t.format(n=n, d=d)
            rows.append({"chunk_id": f"{doc_id}#c{i}", "chunk_set": "demo", "doc_id": doc_id, "kind": "text",
                         "spans": [{"start": pos, "end": pos + len(t)}], "view_spans": [{"start": pos, "end": pos + len(t)}],
                         "section_path": ["Report"], "parent_id": None, "source_text": t, "embedding_text": t,
                         "display_text": t, "n_tokens": 8, "over_limit": False, "block_ids": []})
            pos += len(t) + 2
    return pd.DataFrame(rows)


def _manifest() -> pd.DataFrame:
    return pd.DataFrame(DOCS, columns=["doc_id", "issuer", "ticker", "doc_type", "fiscal_year", "title"])


QUESTIONS = pd.DataFrame({
    "question_id": ["q-calder", "q-ash", "q-none", "q-boost"],
    "question": ["What was the revenue of Calder Industries SE for the year?",
                 "What was the revenue of ASHF for the year 2024?",
                 "What was the revenue for the year?",
                 "Ashgrove revenue for the year?"],      # one-word partial at a sentence start: a boost
    "question_type": ["table"] * 4,
    "doc_ids": [["ar-calder-2024"], ["ar-ash-2024"], ["ar-ash-2024"], ["ar-ash-2024"]],
    "gold_passages": [["calder-rev"], ["ash-rev"], ["ash-rev"], ["ash-rev"]],
    "answer": [None] * 4,
})


@pytest.fixture(scope="module")
def setup():
    chunks = _chunks()
    retriever = BM25Retriever.build(chunks["embedding_text"].tolist())
    rev = {d: len(TEXTS[0].format(n=NUMS[d][0], d=0)) for d in NUMS}
    passages = pd.DataFrame({"passage_id": ["calder-rev", "ash-rev"], "doc_id": ["ar-calder-2024", "ar-ash-2024"],
                             "start": [0, 0], "end": [rev["ar-calder-2024"], rev["ar-ash-2024"]]})
    return chunks, retriever, passages


def _recall1(summary) -> float:
    return summary["curve"][0]["recall"]


def test_routed_mode_filters_boosts_or_leaves_alone(setup):
    chunks, retriever, passages = setup
    router = Router(Catalog.from_frame(_manifest()), chunks["doc_id"].tolist())
    per_q = {}
    for mode in ("global", "filtered", "routed"):
        ev = evaluate_retriever(retriever, chunks, passages, QUESTIONS, mode,
                                router=router if mode == "routed" else None)
        per_q[mode] = {s.question_id: s.recall(1) for s in ev.scores}
    # all revenue chunks tie globally: the first document's comes first
    assert per_q["global"] == {"q-calder": 0.0, "q-ash": 0.0, "q-none": 0.0, "q-boost": 0.0}
    assert per_q["filtered"] == {"q-calder": 1.0, "q-ash": 1.0, "q-none": 1.0, "q-boost": 1.0}
    # named by name and by ticker: filtered; named by no one: global, unchanged; boosted: fused
    assert per_q["routed"] == {"q-calder": 1.0, "q-ash": 1.0, "q-none": 0.0, "q-boost": 1.0}
    actions = [r.action for r in router.last_routes]
    assert actions == ["filter", "filter", "none", "boost"]
    s = routing_summary(router.last_routes, QUESTIONS["question_id"].tolist(), QUESTIONS["doc_ids"].tolist())
    assert (s["filter"], s["boost"], s["none"], s["accuracy"], s["accuracy_routed"], s["misses"]) == (2, 1, 1, 1.0, 1.0, [])
    with pytest.raises(ValueError, match="needs a router"):
        evaluate_retriever(retriever, chunks, passages, QUESTIONS, "routed")


def test_unrouted_questions_rank_exactly_as_global(setup):
    chunks, retriever, _ = setup
    router = Router(Catalog.from_frame(_manifest()), chunks["doc_id"].tolist())
    qs = ["What was the revenue for the year?", "dividend per share cents"]
    assert router.search_many(retriever, qs, 6) == retriever.search_many(qs, 6)


def test_preferred_documents_rank_first_without_a_filter():
    """Two reports of one issuer saying the same things: a question without a period gets
    the latest report's chunks first, and the older report still follows."""
    docs = pd.DataFrame([("ar-2023", "Northwind Holdings plc", "annual_report", 2023),
                         ("ar-2024", "Northwind Holdings plc", "annual_report", 2024),
                         ("ar-calder", "Calder Industries SE", "annual_report", 2024)],
                        columns=["doc_id", "issuer", "doc_type", "fiscal_year"])
    texts = ["Revenue for the year was 100 million.", "Revenue for the year was 100 million.",
             "Revenue for the year was 100 million."]
    doc_rows = ["ar-2023", "ar-2024", "ar-calder"]
    retriever = BM25Retriever.build(texts)
    router = Router(Catalog.from_frame(docs), doc_rows)
    [hits] = router.search_many(retriever, ["What was the revenue of Northwind Holdings plc?"], 3)
    assert [doc_rows[r] for r, _ in hits] == ["ar-2024", "ar-2023"]
    assert router.last_routes[0].preferred == ("ar-2024",)
    [plain] = retriever.search_many(["What was the revenue of Northwind Holdings plc?"], 3)
    assert doc_rows[plain[0][0]] == "ar-2023"     # without routing the tie goes to the first row


def test_boost_keeps_strong_global_hits():
    routed = [(4, 9.0), (5, 8.0)]
    global_ = [(1, 20.0), (4, 9.0), (2, 3.0)]
    fused = fuse_boost(routed, global_, 4)
    assert [r for r, _ in fused] == [4, 1, 5, 2]   # in both lists first; the global best before a routed-only one
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)


def test_the_analyzer_sees_question_texts_and_metadata_only(setup, monkeypatch):
    """Every call into the analyzer during a routed evaluation gets (str, Catalog); the
    questions' labels can be anything without changing a route or a ranking."""
    chunks, retriever, passages = setup
    calls = []
    real = routing_search.analyze

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(routing_search, "analyze", spy)
    monkeypatch.setattr(routing_search, "_SHARED", {})   # routes other tests left in the process cache
    catalog = Catalog.from_frame(_manifest())
    honest = Router(catalog, chunks["doc_id"].tolist())
    evaluate_retriever(retriever, chunks, passages, QUESTIONS, "routed", router=honest)
    lying = QUESTIONS.assign(doc_ids=[["ar-north-2024"]] * 4, gold_passages=[["calder-rev"]] * 4, answer="100")
    liar = Router(catalog, chunks["doc_id"].tolist())
    ranked_liar = liar.search_many(retriever, lying["question"].tolist(), 10)
    assert ranked_liar == honest.search_many(retriever, QUESTIONS["question"].tolist(), 10)
    assert liar.last_routes == honest.last_routes
    assert len(calls) == len(QUESTIONS)          # once per question: routers share routes by metadata hash
    for args, kwargs in calls:
        assert kwargs == {} and len(args) == 2
        assert isinstance(args[0], str) and args[0] in set(QUESTIONS["question"])
        assert isinstance(args[1], Catalog) and set(args[1].docs) == {d[0] for d in DOCS}
    # the labels only change the score of the routes
    s = routing_summary(liar.last_routes, lying["question_id"].tolist(), lying["doc_ids"].tolist())
    assert s["accuracy"] == 0.25 and s["misses"] == ["q-calder", "q-ash", "q-boost"]


def test_report_shows_routed_mode_and_routing_accuracy(setup):
    chunks, retriever, passages = setup
    router = Router(Catalog.from_frame(_manifest()), chunks["doc_id"].tolist())
    base = {"name": "demo", "strategy": "fixed", "header": False, "chunks": 6, "mean_chars": 35.0, "duplication": 1.0}
    entries = []
    for mode in ("global", "routed"):
        s = evaluate_retriever(retriever, chunks, passages, QUESTIONS, mode, router=router).summary()
        if mode == "routed":
            s["routing"] = routing_summary(router.last_routes, QUESTIONS["question_id"].tolist(),
                                           QUESTIONS["doc_ids"].tolist())
        entries.append({**base, **s})
    report = build_report("demo", 4, entries)
    assert [e["mode"] for e in report["chunk_sets"]] == ["global", "routed"]
    md = render_markdown(report)
    assert "## Recall (%) at context budgets — routed mode" in md
    assert "the route kept the question's documents for **100.0%** of 4 questions" in md
    assert "2 filtered, 1 boosted; 1 named no issuer" in md


# --- finchunk search ------------------------------------------------------------------------------

VERSION = "demo-0000abcd"


@pytest.fixture()
def ws(tmp_path):
    settings = Settings(corpus_dir=tmp_path / "corpus", data_root=tmp_path / "data",
                        out_dir=tmp_path / "out", chunkers_file=tmp_path / "missing.yaml")
    w = Workspace(settings)
    w.chunks.write(VERSION, pa.Table.from_pandas(_chunks(), schema=CHUNK_SCHEMA, preserve_index=False),
                   {"inputs": "x", "chunks": 6})
    w.manifest_path.parent.mkdir(parents=True, exist_ok=True)
    _manifest().to_parquet(w.manifest_path)
    save_index(build_bm25(w.chunks.read(VERSION)), w.index_dir(VERSION) / "bm25")
    return w


def _cli(ws, *extra):
    from finchunk_pipeline.cli import main

    return main(["search", "What was the revenue of Calder Industries for the year?", "--chunk-set", VERSION,
                 "--retriever", "bm25", "-k", "2", "--corpus", str(ws.settings.corpus_dir),
                 "--data", str(ws.settings.data_root), *extra])


def test_search_cli_routes_by_default_and_prints_the_route(ws, capsys):
    assert _cli(ws) == 0
    out = capsys.readouterr().out
    assert out.startswith("route: filter (confidence 1.00) → 1 of 3 documents: ar-calder-2024")
    assert "'Calder Industries' → Calder Industries SE (short name, confidence 1.00)" in out
    assert "ar-calder-2024#c0" in out and "ar-north-2024" not in out.split("\n", 2)[-1]
    assert _cli(ws, "--no-route") == 0
    out = capsys.readouterr().out
    assert out.startswith("route: off (--no-route)") and "ar-north-2024#c0" in out


def test_search_cli_json_keeps_stdout_a_list_and_routes_within_filters(ws, capsys):
    assert _cli(ws, "--json") == 0
    cap = capsys.readouterr()
    hits = json.loads(cap.out)
    assert [h["doc_id"] for h in hits] == ["ar-calder-2024", "ar-calder-2024"]
    route = json.loads(cap.err)["route"]
    assert route["action"] == "filter" and route["doc_ids"] == ["ar-calder-2024"]
    assert route["mentions"][0]["text"] == "Calder Industries"
    # explicit filters hold; the route is inferred among the documents they allow
    assert _cli(ws, "--json", "--issuer", "Northwind") == 0
    cap = capsys.readouterr()
    assert {h["doc_id"] for h in json.loads(cap.out)} == {"ar-north-2024"}
    assert json.loads(cap.err)["route"]["action"] == "none"


def test_search_api_route_off_by_default(ws):
    from finchunk_pipeline.builders.search import search, search_with_route

    plain = search("What was the revenue of Calder Industries for the year?", VERSION, 1, "bm25", None, ws)
    assert plain[0].doc_id == "ar-north-2024"
    hits, route = search_with_route("What was the revenue of Calder Industries for the year?", VERSION, 1, "bm25",
                                    None, ws)
    assert hits[0].doc_id == "ar-calder-2024" and route.doc_ids == ("ar-calder-2024",)
    many, routes = search_with_route(["Ashgrove Foods revenue?", "revenue?"], VERSION, 1, "bm25", None, ws)
    assert [h[0].doc_id for h in many] == ["ar-ash-2024", "ar-north-2024"] and [r.action for r in routes] == ["filter", "none"]
    ws.manifest_path.unlink()
    with pytest.raises(ValueError, match="routing needs"):
        search_with_route("revenue?", VERSION, 1, "bm25", None, ws)
    assert len(search("revenue?", VERSION, 1, "bm25", None, ws)) == 1   # no route: no manifest needed
