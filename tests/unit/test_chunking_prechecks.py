"""The cheap pre-checks of structure chunking's speed work (issue 16) against what they stand
for, on generated text: a range without a cite's first character cites nothing in any part of
it, and spans without the word "note" hold no note reference by number."""
import random

from finchunk_pipeline.chunking.note_links import NOTE_REF, may_refer
from finchunk_pipeline.parse.footnotes import cited_marks, may_cite

TOKENS = ["Note", "note", "NOTES", "nOtEs", "Nota", "notes", "6", "12", "see", "(refer", "to", "Note\n4", "no te",
          "¹", "²³", "[^1]", "[^a]:", "<sup>2</sup>", "<sup>(a)</sup>", "[", "<", "x", "é", "K", "ſ", "İ", "\n", " "]


def _text(rng):
    return "".join(rng.choice(TOKENS) + rng.choice([" ", "", "\n", "\t"]) for _ in range(rng.randint(0, 30)))


def test_may_cite_is_false_only_without_cites_in_any_part():
    rng = random.Random(11)
    for _ in range(3000):
        text = _text(rng)
        s = rng.randint(0, len(text))
        e = rng.randint(s, len(text))
        if not may_cite(text, s, e):
            for a in range(s, e + 1):
                assert cited_marks(text[a:e]) == [] and cited_marks(text[s:a]) == [], (text, s, e)


def test_may_refer_is_false_only_without_note_references():
    rng = random.Random(12)
    for _ in range(3000):
        text = _text(rng)
        cuts = sorted(rng.randint(0, len(text)) for _ in range(2 * rng.randint(1, 3)))
        spans = list(zip(cuts[::2], cuts[1::2]))
        if not may_refer(text, spans):
            assert NOTE_REF.search("\n".join(text[s:e] for s, e in spans)) is None, (text, spans)


def test_has_deleted_space_matches_the_regex():
    from finchunk_pipeline.models.tokens import _DELETED_SPACE, has_deleted_space

    rng = random.Random(13)
    alphabet = "ab \n\t\x0b\x0c\x1b\x1c\x1d\x1e\x1f\x20\x84\x85\x86\xa0é"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
        assert has_deleted_space(text) == (_DELETED_SPACE.search(text) is not None), repr(text)


def test_count_capped_is_exact_up_to_the_cap():
    from finchunk_pipeline import token_counter

    counter = token_counter()
    rng = random.Random(14)
    words = ["revenue", "EBITDA", "1,234.5", "(12)", "unbelievably", "\x00", "\u0301", "", "$", "—", "x\x0by", "é"]
    for _ in range(2000):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))
        cap = rng.randint(0, 40)
        exact = counter.count_many([text])[0]
        got = counter.count_capped([text], [cap])[0]
        assert got == exact if exact <= cap or cap == 0 else got > cap, (text, cap, exact, got)
