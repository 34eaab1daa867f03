"""Paragraph chunking's long blocks, sentences read on demand (issue 16), against the plain
definition: every sentence of split_sentences given to ``add`` in turn (the first with the
headings above it) — on generated documents of short and long paragraphs under random
min_chars / max_chars, compared piece by piece after normalization (what build_chunks reads)."""
import random

from finchunk_pipeline.chunking.context import normalize_spans
from finchunk_pipeline.chunking.paragraph import _ParagraphWalk
from finchunk_pipeline.chunking.sentence import split_sentences
from finchunk_pipeline import Block, BlockKind, ParsedDocument
from tests.unit.test_sentence_groups import _text


class _PlainWalk(_ParagraphWalk):
    def add_sentences(self, b, lead, lead_ids):
        for i, (s, e) in enumerate(split_sentences(self.doc.view_text, b.vstart, b.vend)):
            self.add((lead if i == 0 else []) + [(s, e)], (lead_ids if i == 0 else []) + [b.block_id], b.section_path)


def _doc(rng):
    parts, blocks, pos, sec = [], [], 0, ("A",)
    for i in range(rng.randint(1, 8)):
        if rng.random() < 0.3:
            sec = (rng.choice("ABC"),)
            kind, text = BlockKind.HEADING, "Heading " + sec[0]
        else:
            kind, text = BlockKind.PARAGRAPH, _text(rng) or "x."
        blocks.append(Block("d", f"b{i}", i, kind, pos, pos + len(text), pos, pos + len(text), text, sec))
        parts.append(text + "\n\n")
        pos += len(text) + 2
    return ParsedDocument("d", "", "markdown", "1", "".join(parts), None, blocks)


def _pieces(walk_cls, doc, lo, hi):
    return [(normalize_spans(doc.view_text, p.view_spans), p.kind, p.section_path, p.block_ids)
            for p in walk_cls(doc, lo, hi).pieces()]


def test_long_paragraphs_match_adding_each_sentence():
    rng = random.Random(17)
    for _ in range(1500):
        doc = _doc(rng)
        hi = rng.choice([1, rng.randint(5, 80), rng.randint(80, 400)])
        lo = rng.randint(0, hi)
        assert _pieces(_ParagraphWalk, doc, lo, hi) == _pieces(_PlainWalk, doc, lo, hi), (doc.view_text, lo, hi)
