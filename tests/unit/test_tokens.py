"""Token counts by word equal the tokenizer's own counts (and token offsets its offsets):
on every chunk text of the default corpus, on random Unicode text with every kind of
whitespace and control character, and for a tokenizer that is not word-additive."""
from __future__ import annotations

import random

import pyarrow.parquet as pq
import pytest

from finchunk_pipeline import chunk_document
from finchunk_pipeline import ChunkerConfig
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import token_counter
from finchunk_pipeline.models.tokens import TokenCounter, word_start_flags, _word_additive
from finchunk_pipeline import select_parser
from finchunk_pipeline import DEFAULT_CORPUS

WEIRD = ["\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2009", "\u2028", "\u3000", "\u200b", "\ufffd", "\x00",
         "\t", "\r", "\n", "\u0301", "İ", "ı", "ß", "ﬁ", "Σ", "ǅ", "文", "𝔘", "[CLS]", "[MASK]", "x" * 101,
         "(1)", "$1,234.5", "—", "’", "“", "naïve", "U.S.", "10-K"]


def _random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = ["revenue", "Operating", "income", "2024", "€", "million", ",", ".", " ", "  "]
    out = []
    for _ in range(n):
        parts = [rng.choice(WEIRD if rng.random() < 0.4 else words) for _ in range(rng.randint(0, 25))]
        out.append("".join(parts) if rng.random() < 0.5 else " ".join(parts))
    return out


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    c = TokenCounter()
    assert c.by_word, "the packaged MiniLM tokenizer is BERT-style: counted by word"
    return c


def test_counts_equal_the_tokenizer_on_random_unicode(counter):
    texts = _random_texts(3000, 1)
    got = counter.count_many(texts)
    assert got == [counter.count_exact(t) for t in texts]
    assert counter.count_many(texts) == got  # from the word cache now


def test_counts_equal_the_tokenizer_on_every_default_corpus_chunk(counter):
    meta_fields = ("doc_id", "title", "doc_type", "issuer", "fiscal_year", "period_end")
    texts = []
    for rec in pq.read_table(DEFAULT_CORPUS / "documents.parquet").to_pylist():
        doc = select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec)
        meta = {k: rec.get(k) for k in meta_fields}
        for name in ("structure", "fixed", "transcript"):
            config = ChunkerConfig(name=name, strategy=name, header=True)
            texts += [c.embedding_text for c in chunk_document(config.chunker, doc, meta)]
        texts.append(doc.view_text)
    assert len(texts) > 500
    assert counter.count_many(texts) == [counter.count_exact(t) for t in texts]


def test_offsets_equal_the_tokenizer(counter):
    texts = _random_texts(1500, 2) + [pq.read_table(DEFAULT_CORPUS / "documents.parquet").column("text")[0].as_py()]
    for t in texts:
        assert counter.offsets(t) == word_start_flags(t, counter._tok.encode(t, add_special_tokens=False)), repr(t)


def test_token_spans_read_one_by_one_are_the_offsets(counter, monkeypatch):
    """``token_spans`` (what token windows read: a token made only when indexed) against the
    tokenizer's offsets, token by token (words of no tokens among them), and the windows
    over it against the windows over the plain list."""
    import finchunk_pipeline.chunking.fixed_tokens as fixed_tokens
    from finchunk_pipeline.models.tokens import _DELETED_SPACE, WordTokens

    texts = _random_texts(1500, 3) + ["a \u200b b", "\x00 \u0301", "x " * 300]
    for t in texts:
        expected = word_start_flags(t, counter._tok.encode(t, add_special_tokens=False))
        spans = counter.token_spans(t)
        assert len(spans) == len(expected) and [spans[i] for i in range(len(spans))] == expected, repr(t)
        with pytest.raises(IndexError):
            spans[len(spans)]
    text = " ".join(t for t in _random_texts(300, 4) if not _DELETED_SPACE.search(t))
    assert isinstance(counter.token_spans(text), WordTokens)
    windows = {(size, overlap): fixed_tokens.token_windows(text, 0, len(text), size, overlap)
               for size, overlap in ((8, 0), (37, 5), (200, 40))}
    plain = word_start_flags(text, counter._tok.encode(text, add_special_tokens=False))
    monkeypatch.setattr(fixed_tokens, "token_offsets", lambda text, model_path=None: plain)
    for (size, overlap), got in windows.items():
        assert got == fixed_tokens.token_windows(text, 0, len(text), size, overlap)


def test_word_cache_is_bounded(counter, monkeypatch):
    import finchunk_pipeline.models.tokens as tokens

    c = TokenCounter()
    monkeypatch.setattr(tokens, "WORD_CACHE_MAX", 50)
    texts = [" ".join(f"w{i}x{j}" for j in range(20)) for i in range(10)]
    assert c.count_many(texts) == [c.count_exact(t) for t in texts]
    assert c.cached_words() <= 50


def test_a_tokenizer_that_is_not_word_additive_is_counted_whole():
    spec = {"normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece"}, "post_processor": {"type": "TemplateProcessing"}, "added_tokens": []}
    assert _word_additive(spec)
    assert not _word_additive({**spec, "pre_tokenizer": {"type": "Metaspace"}})  # SentencePiece-style
    assert not _word_additive({**spec, "model": {"type": "BPE"}})
    assert not _word_additive({**spec, "added_tokens": [{"content": "new york"}]})
    c = TokenCounter()
    c.by_word = False  # the whole-text path gives the same counts
    texts = _random_texts(200, 3)
    assert c.count_many(texts) == [c.count_exact(t) for t in texts]


def test_packed_chunks_identical_with_whole_text_counting(monkeypatch):
    """The packer's shortcuts for additive counts (kept unit counts, no re-count of joined
    groups) give the chunks counting every text whole gives."""
    recs = [r for r in pq.read_table(DEFAULT_CORPUS / "documents.parquet").to_pylist()][:12]
    docs = [(select_parser(r["doc_type"], r["format"]).fn(r["doc_id"], r["text"], r), {"title": r["title"]})
            for r in recs]
    config = ChunkerConfig(name="packed", strategy="packed", params={"budget": 120}, header=True)

    def spans():
        return [[(c.view_spans, c.n_tokens) for c in chunk_document(config.chunker, d, m, counter=token_counter())]
                for d, m in docs]

    fast = spans()
    c = token_counter()
    monkeypatch.setattr(c, "by_word", False)
    assert STRATEGIES["packed"].available()
    assert spans() == fast
