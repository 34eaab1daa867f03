"""Sentence groups tested on demand (issue 16) against their plain definition: split the range
into sentences, then pack them greedily up to max_chars — on generated text heavy in
parentheses, abbreviations and blank lines, where the lazy test must reconstruct the boundary
before a candidate."""
import random

from finchunk_pipeline.chunking.sentence import split_sentences
from finchunk_pipeline.chunking.sentence_groups import sentence_groups
from tests.unit.test_sentence_fast import PUNCT, SPACES, WORDS

EXTRA = ["(", ")", "(in millions)", "Note (3", "x)", "((", "))", "Sentence", "Ends", "The"]


def plain_groups(text, start, end, max_chars, language):
    groups = []
    for s, e in split_sentences(text, start, end, language=language):
        if groups and e - groups[-1][0] <= max_chars:
            groups[-1] = (groups[-1][0], e)
        else:
            groups.append((s, e))
    return groups


def _text(rng):
    words = WORDS + EXTRA * rng.randint(0, 3)
    out = []
    for _ in range(rng.randint(0, 80)):
        out += [rng.choice(words), rng.choice(PUNCT + [". ", ". ", "."] * 3), rng.choice(SPACES)]
    return "".join(out)


def test_sentence_groups_match_packing_the_sentences():
    rng = random.Random(16)
    for _ in range(3000):
        text = _text(rng)
        start = rng.randint(0, len(text) // 4)
        end = rng.randint(start, len(text))
        for language in ("en", "es"):
            for max_chars in (1, rng.randint(5, 60), rng.randint(60, 400)):
                want = plain_groups(text, start, end, max_chars, language)
                assert sentence_groups(text, start, end, max_chars, language) == want, (text, start, end, max_chars)
