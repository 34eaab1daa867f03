"""Every strategy keeps exact spans on every document class of the default corpus; config
errors name the parameter; transcripts keep speakers labelled; row groups repeat context."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from finchunk_pipeline import parse_chunker_configs
from finchunk_pipeline.chunking.context import build_chunks
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.chunking.sentence import split_sentences
from finchunk_pipeline import token_counter
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import Block, BlockKind, ParsedDocument
from finchunk_pipeline.types.offsets import OffsetMap
from finchunk_pipeline import select_parser

from tests.pins import fake_embed

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "default" / "documents.parquet"


_fake_embed = fake_embed  # the deterministic stand-in the pins use (tests/pins.py)


@pytest.fixture(scope="module")
def corpus_docs():
    d = pd.read_parquet(CORPUS)
    docs = []
    # one document per (doc_type, format): every document class present
    for _, g in d.groupby(["doc_type", "format"]):
        rec = g.iloc[0].to_dict()
        spec = select_parser(rec["doc_type"], rec["format"])
        docs.append((spec.fn(rec["doc_id"], rec["text"], rec), rec))
    return docs


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_spans_exact_on_every_document_class(name, corpus_docs, monkeypatch):
    import finchunk_pipeline.chunking.semantic as semantic

    if not STRATEGIES[name].available():
        pytest.skip(f"{name} needs the optional module {STRATEGIES[name].requires!r}")

    monkeypatch.setattr(semantic, "embed", _fake_embed)
    counter = token_counter()
    for doc, meta in corpus_docs:
        pieces = STRATEGIES[name].pieces(doc, {}, meta)
        chunks = build_chunks(doc, meta, pieces, chunk_set=name, header=True,
                              context_fields=("title", "period", "section", "speaker"), counter=counter)
        assert chunks, (name, doc.doc_id)
        for c in chunks:
            view_src = SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
            assert view_src == c.source_text, (name, doc.doc_id, c.chunk_id)
            assert list(c.spans) == [doc.raw_span(s, e) for s, e in c.view_spans]
            if doc.offsets.is_identity:
                assert SPAN_JOINER.join(meta["text"][s:e] for s, e in c.spans) == c.source_text
            assert c.embedding_text.endswith(c.source_text)  # context never overwrites the source
        if name == "packed":
            assert not any(c.over_limit for c in chunks), doc.doc_id


def test_sentence_splitter_financial_abbreviations():
    t = ("The U.S. Treasury bought No. 5 notes for $1.2 million. Acme Inc. reported growth of 3.5% "
         "in Jan. 2024. Mr. J. Smith left. Revenue was $ 37.3 million . the company grew .")
    got = [t[s:e] for s, e in split_sentences(t)]
    assert got == ["The U.S. Treasury bought No. 5 notes for $1.2 million.",
                   "Acme Inc. reported growth of 3.5% in Jan. 2024.", "Mr. J. Smith left.",
                   "Revenue was $ 37.3 million .", "the company grew ."]


def _table_md(n_rows: int) -> str:
    rows = "\n".join(f"| Segment {i}{'¹' if i == 7 else ''} | {100 + i}.0 | {90 + i}.5 |" for i in range(n_rows))
    return ("# Report\n\n## Segments\n\nRevenue by segment (in € millions):\n\n"
            "| Segment | 2024 | 2023 |\n|---|---|---|\n" + rows +
            "\n\n¹ Segment 7 includes an acquisition.\n\nClosing paragraph about segments.\n")


def test_row_groups_repeat_caption_header_and_cited_notes():
    text = _table_md(40)
    doc = markdown.parse("t1", text)
    pieces = STRATEGIES["structure"].pieces(doc, {"table_max_chars": 300}, {})
    chunks = build_chunks(doc, {}, pieces, chunk_set="s", header=False, context_fields=())
    groups = [c for c in chunks if c.kind == "table_rows"]
    assert len(groups) > 3
    rows_seen = []
    for c in groups:
        assert "Revenue by segment (in € millions):" in c.source_text
        assert "| Segment | 2024 | 2023 |" in c.source_text
        assert len(c.source_text) <= 300
        assert SPAN_JOINER.join(text[s:e] for s, e in c.spans) == c.source_text
        rows_seen += [ln for ln in c.source_text.splitlines() if ln.startswith("| Segment ") and "2024" not in ln]
        if "Segment 7¹" in c.source_text:
            assert "¹ Segment 7 includes an acquisition." in c.source_text
        else:
            assert "acquisition" not in c.source_text
    assert len(rows_seen) == 40  # every row once, none lost


def test_packed_row_groups_and_no_chunk_over_budget():
    text = _table_md(60)
    doc = markdown.parse("t2", text)
    counter = token_counter()
    pieces = STRATEGIES["packed"].pieces(doc, {"budget": 120}, {"title": "Report"})
    chunks = build_chunks(doc, {"title": "Report"}, pieces, chunk_set="p", header=True,
                          context_fields=("title", "section"), counter=counter)
    assert any(c.kind == "table_rows" for c in chunks)
    assert max(c.n_tokens for c in chunks) <= 120
    for c in chunks:
        if c.kind == "table_rows":
            assert "| Segment | 2024 | 2023 |" in c.source_text


def _turn(doc_id, seq, start, text, section, **attrs):
    return Block(doc_id, f"{doc_id}#b{seq:05d}", seq, BlockKind.TURN, start, start + len(text), start,
                 start + len(text), text, section, None, attrs)


def _transcript_doc():
    parts = [
        ("heading", "Questions and Answers", {}),
        ("turn", "Ann Lee -- Analyst, Big Bank: How big was the charge, and will it recur?",
         {"speaker": "Ann Lee", "role": "analyst", "firm": "Big Bank"}),
        ("turn", "Bob Roe -- Chief Financial Officer: The charge was $26.9 million.\n\n" +
         "\n\n".join(f"Paragraph {i} of a long answer about severance, leases and savings of about $69.9 million "
                     f"that will continue to matter for the next several quarters." for i in range(8)),
         {"speaker": "Bob Roe", "role": "executive", "title": "Chief Financial Officer"}),
        ("turn", "Ann Lee -- Analyst, Big Bank: Sorry, just to clarify, was that pre-tax —",
         {"speaker": "Ann Lee", "role": "analyst", "firm": "Big Bank"}),
        ("turn", "Bob Roe -- Chief Financial Officer: Yes, pre-tax.",
         {"speaker": "Bob Roe", "role": "executive", "title": "Chief Financial Officer"}),
    ]
    text, blocks, pos = "", [], 0
    for seq, (kind, body, attrs) in enumerate(parts):
        if text:
            text += "\n\n"
        start = len(text)
        text += body
        sec = ("Questions and Answers",)
        if kind == "heading":
            blocks.append(Block("call", f"call#b{seq:05d}", seq, BlockKind.HEADING, start, len(text), start,
                                len(text), body, sec, None, {"level": 2}))
        else:
            blocks.append(_turn("call", seq, start, body, sec, **attrs))
    return ParsedDocument("call", "x", "transcript", "0", text, OffsetMap.identity(len(text)), blocks), text


def test_transcript_keeps_questions_labelled_and_speakers_in_context():
    doc, text = _transcript_doc()
    meta = {"title": "Acme Q3 2024 Earnings Call", "doc_type": "earnings_call"}
    for name in ("transcript", "auto"):
        pieces = STRATEGIES[name].pieces(doc, {"max_chars": 400} if name == "transcript" else {"transcript_max_chars": 400}, meta)
        chunks = build_chunks(doc, meta, pieces, chunk_set=name, header=False, context_fields=())
        assert len(chunks) > 2
        for c in chunks:
            assert SPAN_JOINER.join(text[s:e] for s, e in c.spans) == c.source_text
            if "Ann Lee" in c.source_text or "clarify" in c.source_text or "will it recur" in c.source_text:
                # analyst words are present: the analyst's label and role travel with them
                assert "Ann Lee -- Analyst, Big Bank:" in c.source_text
                assert "analyst" in c.kind
            if "analyst" not in c.kind:
                assert "Analyst" not in c.source_text
            if not c.source_text.startswith(("Ann Lee --", "Bob Roe --", "Questions")):
                # a continuation piece: event and speaker in the embedding context
                assert "Acme Q3 2024 Earnings Call" in c.embedding_text and "Bob Roe" in c.embedding_text
        first = chunks[0]
        assert "will it recur" in first.source_text and "$26.9 million" in first.source_text  # Q + A together
        # the interruption is preserved, in order, with its label
        assert any("just to clarify" in c.source_text and "Yes, pre-tax." in c.source_text for c in chunks)


@pytest.mark.parametrize("entry,param", [
    ({"name": "x", "strategy": "sentence", "params": {"n": 0}}, "params.n: expected an integer > 0, got 0"),
    ({"name": "x", "strategy": "sentence", "params": {"n": 3, "overlap": 3}}, "params.overlap: expected >= 0 and < n (3), got 3"),
    ({"name": "x", "strategy": "paragraph", "params": {"min_chars": 900, "max_chars": 500}}, "params.min_chars: expected between 0 and max_chars (500), got 900"),
    ({"name": "x", "strategy": "semantic", "params": {"percentile": 150.0}}, "params.percentile: expected a number > 0 and < 100, got 150.0"),
    ({"name": "x", "strategy": "fixed_tokens", "params": {"size": "big"}}, "params.size: expected an integer > 0, got 'big'"),
    ({"name": "x", "strategy": "packed", "params": {"budget": 100000}}, "params.budget: expected at most the model limit 256, got 100000"),
    ({"name": "x", "strategy": "structure", "params": {"table_max_chars": -1}}, "params.table_max_chars: expected an integer >= 0, got -1"),
    ({"name": "x", "strategy": "transcript", "params": {"max_len": 5}}, "params: unknown parameter 'max_len' for strategy 'transcript'"),
    ({"name": "x", "strategy": "auto", "params": {"table_max_chars": 0}}, "params.table_max_chars: expected an integer > 0, got 0"),
])
def test_config_errors_name_the_parameter(entry, param):
    with pytest.raises(ValueError) as err:
        parse_chunker_configs({"chunk_sets": [entry]})
    assert param in str(err.value)
