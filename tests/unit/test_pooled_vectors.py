"""Pooled dense vectors (index/pooled_vectors.py): units cut from the document alone, each
chunk's vector the overlap-weighted mean of its units plus its context prefix."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from finchunk_pipeline.index.documents import document_texts, runs
from finchunk_pipeline.index.pooled_vectors import (UNIT_CHARS, check_vectors, document_units, line_units, plan,
                                                    pooled_vectors, prefix_of)
from finchunk_pipeline.models.embed import EmbedStats
from finchunk_pipeline.types.chunks import SPAN_JOINER
from tests.pins import fake_embed

pytestmark = pytest.mark.unit

SENTENCE = "Net revenue increased 12% to $4.2 billion, driven by volume in the Americas segment. "
VIEW = ("# Results of operations\n\n"
        + SENTENCE * 9 + "\n\n"
        + "| | 2024 | 2023 |\n| Revenue | 4,200 | 3,750 |\n| Cost of sales | 2,100 | 1,990 |\n"
        + "| Gross profit | 2,100 | 1,760 |\n| Operating income | 1,050 | 870 |\n\n"
        + "Dividends of $0.52 per share were declared. The Board approved a buyback.\n")


def chunk_frame(view: str, cuts: list[tuple[int, int]], header: str = "", doc_id: str = "d") -> pd.DataFrame:
    """Chunks of one document at the view ranges ``cuts`` (one span each)."""
    src = [view[s:e] for s, e in cuts]
    return pd.DataFrame({"chunk_id": [f"{doc_id}#c{i}" for i in range(len(cuts))], "doc_id": doc_id,
                         "source_text": src, "view_spans": [[{"start": s, "end": e}] for s, e in cuts],
                         "embedding_text": [f"{header}\n\n{t}" if header else t for t in src]})


def windows(view: str, size: int, overlap: int = 0) -> list[tuple[int, int]]:
    step = size - overlap
    return [(s, min(s + size, len(view))) for s in range(0, len(view), step) if view[s:s + size].strip()]


class StandIn:
    """The Embedder's ``embed`` over a bag-of-words model: records what it was asked."""

    def __init__(self):
        self.asked: list[list[str]] = []
        self.namespaces: list[str] = []

    def embed(self, texts, progress=None, namespace=""):
        self.asked.append(list(texts))
        self.namespaces.append(namespace)
        return fake_embed(list(texts)), EmbedStats(texts=len(texts))


def test_line_units_cover_the_line_in_order_within_the_limit_at_sentence_ends():
    line = SENTENCE * 9
    units = line_units(line)
    assert units[0][0] == 0 and units[-1][1] == len(line)
    assert all(a[1] == b[0] for a, b in zip(units, units[1:]))               # contiguous, in order
    assert all(e - s <= UNIT_CHARS for s, e in units)
    assert all(line[s:e].endswith(". ") for s, e in units[:-1])              # cut where a sentence ends
    assert line_units("short line") == [(0, 10)]
    word_run = "word " * 200                                                 # no sentence end: cut at a space
    assert all(word_run[e - 1] == " " for _, e in line_units(word_run)[:-1])
    assert line_units("x" * 700) == [(0, 300), (300, 600), (600, 700)]       # no space either: by characters


def test_units_merge_a_paragraphs_lines_never_cross_a_blank_line_and_point_at_the_view():
    u = document_units([(0, VIEW)])
    assert len(u.texts) == len(u.starts) == len(u.ends)
    for s, e, t in zip(u.starts, u.ends, u.texts):
        assert VIEW[s:e].strip() == t and t                                   # exact view offsets
        assert "\n\n" not in VIEW[s:e]                                        # never across a blank line
        assert e - s <= UNIT_CHARS
    table = [t for t in u.texts if t.startswith("| | 2024")]
    assert table and "| Revenue | 4,200 | 3,750 |" in table[0]                # rows merged with their header row
    # the same text at another offset: the same units, shifted
    v = document_units([(100, VIEW)])
    assert v.texts == u.texts and list(v.starts - 100) == list(u.starts)


def test_runs_are_the_covered_ranges_and_document_texts_joins_them():
    chunks = chunk_frame(VIEW, [(0, 40), (30, 90), (120, 200)])
    assert runs(chunks) == {"d": [(0, VIEW[0:90]), (120, VIEW[120:200])]}
    assert document_texts(chunks) == {"d": VIEW[0:90] + SPAN_JOINER + VIEW[120:200]}


def test_weights_are_the_characters_shared_with_each_unit_plus_the_prefix():
    cuts = [(0, 150), (150, len(VIEW))]
    chunks = chunk_frame(VIEW, cuts, header="Acme 10-K 2024 > Results")
    p = plan(chunks, {"d": VIEW})
    units = document_units([(0, VIEW)])
    w = p.weights.toarray()
    for row, (s, e) in enumerate(cuts):
        expected = sum(max(0, min(e, ue) - max(s, us)) for us, ue in zip(units.starts, units.ends))
        covered = VIEW[s:e]
        head = p.texts.index("Acme 10-K 2024 > Results")  # (identical units share a column)
        assert w[row, head] == len("Acme 10-K 2024 > Results")
        assert w[row].sum() - w[row, head] == expected
        assert len(covered.strip()) - covered.count("\n") - 2 <= expected <= len(covered)
    assert prefix_of("H\n\nbody", "body") == "H" and prefix_of("body", "body") == ""


def test_every_chunk_set_of_a_document_asks_for_the_same_units():
    """The point of pooling: units come from the document, so a second chunk set embeds nothing new."""
    a = plan(chunk_frame(VIEW, windows(VIEW, 500, 50)), {"d": VIEW})
    b = plan(chunk_frame(VIEW, windows(VIEW, 200)), {"d": VIEW})
    c = plan(chunk_frame(VIEW, windows(VIEW, 1000, 200), header="Acme > Results"), {"d": VIEW})
    assert set(a.texts) == set(b.texts) == set(c.texts) - {"Acme > Results"}
    # without the views, units come from the ranges a set covers (the same here: no text dropped)
    assert set(plan(chunk_frame(VIEW, windows(VIEW, 500, 50))).texts) == set(a.texts)


def test_a_chunk_that_is_one_unit_gets_that_units_vector_and_long_chunks_lose_nothing():
    units = document_units([(0, VIEW)])
    k = next(i for i, t in enumerate(units.texts) if t.startswith("Dividends"))
    s, e = int(units.starts[k]), int(units.ends[k])
    long = (0, len(VIEW))  # past the model's window: every unit counts
    chunks = chunk_frame(VIEW, [(s, e), long])
    model = StandIn()
    vectors, _ = pooled_vectors(chunks, model, views={"d": VIEW})
    assert model.namespaces == ["units"]
    np.testing.assert_allclose(vectors[0], fake_embed([units.texts[k]])[0], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    tail = fake_embed([units.texts[-1]])[0]
    assert float(vectors[1] @ tail) > 0.1  # the end of a long chunk is in its vector
    # a whitespace-only chunk with no prefix is embedded as it is, never a zero vector
    blank = chunk_frame("   \n\n   ", [(0, 8)])
    v, _ = pooled_vectors(blank, StandIn(), views={"d": "   \n\n   "})
    assert v.shape == (1, 64)


def test_the_setting_is_checked_by_name():
    assert check_vectors(None) == check_vectors("") == "chunk" and check_vectors(" Pooled ") == "pooled"
    with pytest.raises(ValueError, match="FINCHUNK_DENSE_VECTORS='late'.*chunk, pooled"):
        check_vectors("late")


def test_a_chunk_over_the_models_limit_is_embedded_as_it_is_in_the_chunk_texts_cache():
    """Pooled, a chunk of many units blurs into their average; one past the model's limit keeps
    the vector the model gives it (the same text and cache as dense_vectors: chunk)."""
    chunks = chunk_frame(VIEW, [(0, 150), (0, len(VIEW))]).assign(over_limit=[False, True])
    p = plan(chunks, {"d": VIEW})
    w = p.weights.toarray()
    whole = p.texts.index(VIEW)
    assert p.whole == {whole} and w[1].nonzero()[0].tolist() == [whole] and w[0, whole] == 0
    model = StandIn()
    vectors, stats = pooled_vectors(chunks, model, views={"d": VIEW})
    assert model.namespaces == ["units", ""] and model.asked[1] == [VIEW]
    np.testing.assert_allclose(vectors[1], fake_embed([VIEW])[0], atol=1e-6)
    assert stats.texts == len(p.texts)
