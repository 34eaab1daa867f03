"""Every strategy's chunks are exact on real documents, and no strategy loses text.
(Exactness on every synthetic document class, with headers: test_chunking_strategies.py.)

For Markdown and plain text the view is the raw text, so the raw text at the spans joined
by SPAN_JOINER is the source text. For HTML the source is the parser's clean view at the
view spans, and each raw span is the view span mapped back into the raw HTML.
"""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import select_parser
from finchunk_pipeline import DEFAULT_CORPUS


SLOW = {"semantic"}  # loads the embedding model: covered in its own test module


def _docs(folder, per_type=2):
    docs = pd.read_parquet(folder / "documents.parquet")
    return docs.groupby("doc_type", group_keys=False).head(per_type).to_dict("records")


def _skip_unavailable(strategy):
    if not STRATEGIES[strategy].available():
        pytest.skip(f"{strategy} needs the optional module {STRATEGIES[strategy].requires!r}")


def _check(config, rec):
    spec = select_parser(rec["doc_type"], rec["format"])
    doc = spec.fn(rec["doc_id"], rec["text"], rec)
    chunks = chunk_document(config.chunker, doc, rec)
    assert chunks, f"{config.name} made no chunks for {rec['doc_id']}"
    raw = rec["text"]
    for c in chunks:
        assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
        assert c.spans == [doc.raw_span(s, e) for s, e in c.view_spans]
        assert all(0 <= s < e <= len(raw) for s, e in c.spans)
        if doc.offsets.is_identity:
            assert c.source_text == SPAN_JOINER.join(raw[s:e] for s, e in c.spans)
        assert c.embedding_text.endswith(c.source_text), "context must never overwrite the source"
        if config.header:
            assert len(c.embedding_text) > len(c.source_text)


def test_structure_keeps_table_with_header_and_footnotes():
    from finchunk_pipeline.parse.markdown import parse

    text = ("# X plc — Annual report 2024\n\n## Key figures\n\n| € m | 2024 |\n|---|---|\n| Revenue¹ | 10 |\n\n"
            "Other paragraph.\n\n## Notes\n\n¹ Revenue excludes disposals.\n")
    doc = parse("x", text, {})
    config = ChunkerConfig(name="s", strategy="structure", header=True)
    chunks = chunk_document(config.chunker, doc, {"title": "X plc — Annual report 2024"})
    table = next(c for c in chunks if c.kind == "table")
    assert "| € m | 2024 |" in table.source_text and "Revenue¹ | 10" in table.source_text
    assert "¹ Revenue excludes disposals." in table.source_text  # the far footnote, as a second span
    assert len(table.spans) == 2
    assert table.embedding_text.startswith("X plc — Annual report 2024 > Key figures\n\n")


def test_fixed_and_recursive_respect_sizes():
    from finchunk_pipeline.parse.markdown import parse

    rec = _docs(DEFAULT_CORPUS, 1)[0]
    doc = parse(rec["doc_id"], rec["text"], rec)
    fixed = chunk_document(ChunkerConfig("f", "fixed", {"size": 500, "overlap": 50}).chunker, doc, rec)
    assert max(len(c.source_text) for c in fixed) <= 500
    # windows overlap by 50 characters before whitespace trimming
    assert fixed[1].view_spans[0][0] <= fixed[0].view_spans[-1][1]
    rec_chunks = chunk_document(ChunkerConfig("r", "recursive", {"size": 500}).chunker, doc, rec)
    assert max(len(c.source_text) for c in rec_chunks) <= 500


def _check_complete(config, rec):
    """Nothing is lost: every non-space character of every leaf block is in some chunk."""
    import numpy as np

    spec = select_parser(rec["doc_type"], rec["format"])
    doc = spec.fn(rec["doc_id"], rec["text"], rec)
    covered = np.zeros(len(doc.view_text) + 1, dtype=bool)
    for c in chunk_document(config.chunker, doc, rec):
        for s, e in c.view_spans:
            covered[s:e] = True
    for b in doc.blocks:
        if b.kind == "table" or b.attrs.get("furniture"):
            continue  # a table is its rows; page furniture may be dropped
        missing = [i for i in range(b.vstart, b.vend) if not covered[i] and not doc.view_text[i].isspace()]
        assert not missing, f"{config.name} lost {len(missing)} chars of {b.kind} {b.block_id}: {b.text[:80]!r}"


@pytest.mark.parametrize("strategy", sorted(set(STRATEGIES) - SLOW))
def test_no_strategy_loses_text(strategy):
    _skip_unavailable(strategy)
    config = ChunkerConfig(name=f"t-{strategy}", strategy=strategy)
    for rec in _docs(DEFAULT_CORPUS, per_type=3):
        _check_complete(config, rec)
