"""The splitters users run as strategies (LangChain, chonkie, and the peers of chunking/peers/:
semchunk, semantic-text-splitter, LlamaIndex): exact spans, located or checked, an error naming
the document when a chunk is not in its text, the library version in the hash, a clean skip
without them."""
from __future__ import annotations

import pandas as pd
import pytest

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.chunking.registry import strategy_version
from finchunk_pipeline import select_parser
from finchunk_pipeline import DEFAULT_CORPUS

BASELINES = ["langchain_recursive", "chonkie_recursive"]
# the peers, with the parameters of the exactness test (characters, or LlamaIndex's tokens)
PEERS = {"semchunk": {"size": 300}, "text_splitter": {"size": 300}, "markdown_splitter": {"size": 300},
         "llamaindex_sentence": {"size": 64, "overlap": 12}, "llamaindex_markdown": {"size": 64, "overlap": 12},
         "unstructured_title": {"size": 300}}  # the extra 'unstructured': skipped without it


def _available(strategy):
    if not STRATEGIES[strategy].available():
        pytest.skip(f"optional library not installed ({STRATEGIES[strategy].requires})")


def _docs(n_per_type=1):
    docs = pd.read_parquet(DEFAULT_CORPUS / "documents.parquet").groupby("doc_type").head(n_per_type)
    for rec in docs.to_dict("records"):
        yield select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec), rec


@pytest.mark.parametrize("strategy", BASELINES)
def test_baseline_spans_are_exact_on_every_document_class(strategy):
    if not STRATEGIES[strategy].available():
        pytest.skip(f"optional extra 'baselines' not installed ({STRATEGIES[strategy].requires})")
    docs = pd.read_parquet(DEFAULT_CORPUS / "documents.parquet").groupby("doc_type").head(1)
    config = ChunkerConfig(name="b", strategy=strategy, params={"size": 300})
    for rec in docs.to_dict("records"):
        doc = select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec)
        chunks = chunk_document(config.chunker, doc, rec)
        assert len(chunks) > 1
        for c in chunks:
            assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
            assert len(c.source_text) <= 300
    assert "+" in strategy_version(strategy)  # the library version names the chunk set too


@pytest.mark.parametrize("strategy", sorted(PEERS))
def test_peer_spans_are_exact_on_every_document_class(strategy):
    """Every chunk's text is the view text of its span; the chunks cover every non-blank
    character of the document (overlaps aside, nothing dropped); character-sized peers stay
    within their size."""
    _available(strategy)
    assert STRATEGIES[strategy].family == "plain"
    config = ChunkerConfig(name="p", strategy=strategy, params=PEERS[strategy])
    for doc, rec in _docs():
        chunks = chunk_document(config.chunker, doc, rec)
        assert len(chunks) > 1, doc.doc_id
        covered = [False] * len(doc.view_text)
        for c in chunks:
            assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)
            if "size" in PEERS[strategy] and not strategy.startswith("llamaindex"):
                assert len(c.source_text) <= PEERS[strategy]["size"]
            for s, e in c.view_spans:
                covered[s:e] = [True] * (e - s)
        missed = [i for i, ch in enumerate(doc.view_text) if not covered[i] and not ch.isspace()]
        assert not missed, f"{strategy} on {doc.doc_id}: characters at {missed[:5]} in no chunk"


def test_located_spans_follow_a_cursor():
    """A repeated phrase is found where the splitter took it: from the previous chunk's end
    (no overlap) or from its start (overlap) — never an earlier occurrence."""
    from finchunk_pipeline.chunking.peers.spans import located
    from finchunk_pipeline import ParsedDocument

    doc = ParsedDocument.__new__(ParsedDocument)
    doc.doc_id, doc.view_text = "d1", "Total revenue 10. Notes. Total revenue 10. End."
    assert located(doc, ["Total revenue 10.", "Notes.", "Total revenue 10.", "End."], "x", False) == [
        (0, 17), (18, 24), (25, 42), (43, 47)]
    assert located(doc, ["Total revenue 10. Notes.", "Notes. Total revenue 10.", "Total revenue 10. End."],
                   "x", True) == [(0, 24), (18, 42), (25, 47)]
    # an overlap that repeats all of a short chunk: the next starts where it did (LlamaIndex on
    # a 10-K: "June 30," then "June 30, 2023 ...")
    assert located(doc, ["Total", "Total revenue 10.", "10. Notes."], "x", True) == [(0, 5), (0, 17), (14, 24)]


@pytest.mark.parametrize("strategy", ["llamaindex_sentence", "llamaindex_markdown"])
def test_a_chunk_the_view_does_not_hold_names_the_document(strategy, monkeypatch):
    """LlamaIndex reports no offsets: a chunk whose text is not in the view (here: its
    whitespace changed) cannot be located — an error naming the document, never a guess."""
    _available(strategy)
    doc, rec = next(_docs())
    real = type(STRATEGIES[strategy]).chunk_texts

    def altered(self, text, size, overlap):
        texts = real(self, text, size, overlap)
        return texts[:1] + [" ".join(texts[1].split()) + "  changed"] + texts[2:]

    monkeypatch.setattr(type(STRATEGIES[strategy]), "chunk_texts", altered)
    config = ChunkerConfig(name="p", strategy=strategy, params=PEERS[strategy])
    with pytest.raises(ValueError, match=rf"{doc.doc_id}: LlamaIndex {strategy} returned a chunk that is not in"):
        chunk_document(config.chunker, doc, rec)


@pytest.mark.parametrize("strategy", ["semchunk", "text_splitter"])
def test_an_offset_that_does_not_match_names_the_document(strategy, monkeypatch):
    """A library that reports offsets is checked: a wrong offset is an error naming the document."""
    _available(strategy)
    from finchunk_pipeline.chunking.peers import semchunk_splitter, text_splitter

    doc, rec = next(_docs())
    if strategy == "semchunk":
        monkeypatch.setattr(semchunk_splitter, "_chunker", lambda size: lambda text, offsets, overlap: (
            [text[:50], text[50:100]], [(0, 50), (49, 99)]))
    else:
        class Shifted:
            def chunk_indices(self, text):
                return [(0, text[:50]), (49, text[50:100])]
        monkeypatch.setattr(text_splitter, "_splitter", lambda kind, size, overlap: Shifted())
    config = ChunkerConfig(name="p", strategy=strategy, params=PEERS[strategy])
    with pytest.raises(ValueError, match=rf"{doc.doc_id}: .* start index does not match"):
        chunk_document(config.chunker, doc, rec)


@pytest.mark.parametrize("strategy", sorted(PEERS) + BASELINES)
def test_the_library_version_is_in_the_chunk_set_hash(strategy, monkeypatch):
    """Upgrading the library is a new chunk-set version (its output may change)."""
    import importlib.metadata

    s = STRATEGIES[strategy]
    dist = getattr(s, "requires_dist", None) or s.requires.replace("_", "-")
    config = ChunkerConfig(name="p", strategy=strategy, params={})
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda d: "1.0.0" if d == dist else real(d))
    before = (strategy_version(strategy), config.chunking_hash)
    monkeypatch.setattr(importlib.metadata, "version", lambda d: "1.0.1" if d == dist else real(d))
    after = (strategy_version(strategy), config.chunking_hash)
    assert before[0].endswith(f"+{dist}-1.0.0") and after[0].endswith(f"+{dist}-1.0.1")
    assert before[1] != after[1]


def test_a_peer_whose_package_is_missing_is_unavailable(monkeypatch):
    """A dotted module whose parent package is missing (llama_index.core) is 'not installed',
    not an import error."""
    monkeypatch.setattr(type(STRATEGIES["llamaindex_sentence"]), "requires", "no_such_package_here.core")
    assert STRATEGIES["llamaindex_sentence"].available() is False
    doc, rec = next(_docs())
    with pytest.raises(ImportError, match="no_such_package_here.core.*baselines"):
        chunk_document(ChunkerConfig(name="p", strategy="llamaindex_sentence").chunker, doc, rec)


def test_unstructured_chunks_span_whole_blocks_or_located_pieces():
    """chunk_by_title's chunks are whole elements (our top-level blocks) or pieces of one; its
    text differs from the view's in whitespace only (line breaks written as spaces), and the
    chunk's text is the view's own."""
    _available("unstructured_title")
    config = ChunkerConfig(name="u", strategy="unstructured_title", params={"size": 300})
    for doc, rec in _docs():
        tops = {b.block_id for b in doc.blocks if b.parent_id is None}
        for c in chunk_document(config.chunker, doc, rec):
            assert c.block_ids and set(c.block_ids) <= tops
            assert c.source_text == SPAN_JOINER.join(doc.view_text[s:e] for s, e in c.view_spans)


def test_located_words_tolerate_rewritten_whitespace_only():
    from finchunk_pipeline.chunking.peers.spans import located_words
    from finchunk_pipeline import ParsedDocument

    doc = ParsedDocument.__new__(ParsedDocument)
    doc.doc_id, doc.view_text = "d2", "Risks:\n- currency\n- energy prices\n\nOutlook"
    assert located_words(doc, "- currency - energy prices", "x", 0, len(doc.view_text)) == (7, 33)
    with pytest.raises(ValueError, match="d2: x returned a chunk that is not in the document's text"):
        located_words(doc, "- currency - energy costs", "x", 0, len(doc.view_text))
