"""The C accelerator of by-word counting (chunking/_wordcount.c) and the pure-Python code it
replaces (the fallback, FINCHUNK_PURE_PYTHON=1), both against the plain definitions: a count
is the tokenizer's own count of the whole text (``count_exact``); a capped count is that,
except when the text has more words than its cap and its first ``cap`` words (after the
characters BertNormalizer deletes are deleted, words as ``str.split()`` makes them) already
pass the cap: then the special tokens plus those words' tokens. Random Unicode texts of
every width (UCS1/UCS2/UCS4 strings), with every character ``str.split()`` splits on."""
from __future__ import annotations

import random
import sys

import pytest

import finchunk_pipeline.models.tokens as tokens
from finchunk_pipeline.models.tokens import TokenCounter

SPACES = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]  # what str.split() splits on
DELETED = ["\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f", "\x85"]  # split on, deleted by BertNormalizer
WORDS = ["revenue", "Operating", "2024", "$1,234.5", "(1)", "U.S.", "10-K", "naïve", "ß", "é" * 12, "x" * 25,
         "Σ", "文", "文" * 12, "ǅ", "İ", "\u0301", "\u200b", "\x00", "\ufffd", "𝔘", "😀", "𝔘" * 6, "a" * 19,
         "a" * 20, "[CLS]", "—", "’", "ﬁ", "İstanbul", "ÿ", "Ā", "\uffff", "\U0010fffd", "\x7f", "\x80", "\xad"]
C_BUILT = tokens._wordcount is not None
needs_c = pytest.mark.skipif(not C_BUILT, reason="the C extension is not built (setup.py build_ext --inplace)")
MODES = [pytest.param(True, marks=needs_c, id="c"), pytest.param(False, id="python")]


def random_texts(n: int, seed: int) -> list[str]:
    """Texts of 0-40 pieces: words, every whitespace character, deleted characters; a third
    pure ASCII / Latin-1 (UCS1), the rest as they come (UCS2 / UCS4 when a piece needs it)."""
    rng = random.Random(seed)
    out = ["", " ", "\x85", "\x0b\x1c", "a\x0bb", "\x85a\x1fb\x1c", "\u3000", "文\u2028文"]
    for _ in range(n):
        narrow = rng.random() < 0.3
        words = [w for w in WORDS if not narrow or max(w) <= "\xff"]
        spaces = [s for s in SPACES if not narrow or s <= "\xff"]
        parts = []
        for _ in range(rng.randint(0, 40)):
            r = rng.random()
            parts.append(rng.choice(words) if r < 0.55 else rng.choice(spaces) * rng.randint(1, 3) if r < 0.85
                         else rng.choice(DELETED))
        out.append("".join(parts) if rng.random() < 0.6 else " ".join(parts))
    return out


def plain_capped(counter: TokenCounter, text: str, cap: int, exact: int) -> int:
    words = tokens._DELETED_SPACE.sub("", text).split()
    if cap > 0 and len(words) > cap:
        n = counter.special + sum(counter.count_exact(w) - counter.special for w in words[:cap])
        if n > cap:
            return n
    return exact


@pytest.fixture(scope="module")
def texts_and_exact():
    c = TokenCounter(accelerate=False)
    texts = random_texts(1500, 7)
    kinds = {max(t) <= "\xff" if t else True for t in texts} | {max(t) > "\uffff" for t in texts if t}
    assert kinds == {True, False}  # UCS1 and wider; UCS4 too:
    assert any(t and max(t) > "\uffff" for t in texts) and any(t and "\xff" < max(t) <= "\uffff" for t in texts)
    return texts, [c.count_exact(t) for t in texts]


@pytest.mark.parametrize("accelerate", MODES)
def test_counts_equal_the_tokenizer(accelerate, texts_and_exact):
    texts, exact = texts_and_exact
    c = TokenCounter(accelerate=accelerate)
    assert (c._table is not None) == accelerate
    assert c.count_many(texts) == exact  # learning as it goes
    assert c.count_many(texts) == exact  # every word known
    assert [c.count(t) for t in texts[:200]] == exact[:200]


@pytest.mark.parametrize("accelerate", MODES)
def test_capped_counts_equal_the_plain_definition(accelerate, texts_and_exact):
    texts, exact = texts_and_exact
    rng = random.Random(11)
    caps = [rng.choice([0, 1, 2, 3, 4, 6, 10, 25, 10_000, -1]) for _ in texts]
    c = TokenCounter(accelerate=accelerate)
    want = [plain_capped(c, t, cap, n) for t, cap, n in zip(texts, caps, exact)]
    assert sum(w != n for w, n in zip(want, exact)) > 100  # the cap does cut many of them
    assert c.count_capped(texts, caps) == want  # learning as it goes
    assert c.count_capped(texts, caps) == want
    assert TokenCounter(accelerate=accelerate).count_capped(texts[::-1], caps[::-1]) == want[::-1]


@pytest.mark.parametrize("accelerate", MODES)
def test_learn_texts_then_count(accelerate, texts_and_exact):
    texts, exact = texts_and_exact
    c = TokenCounter(accelerate=accelerate)
    c.learn_texts(texts)
    n = c.cached_words()
    assert c.count_many(texts) == exact and c.cached_words() == n  # nothing left to learn


@pytest.mark.parametrize("accelerate", MODES)
def test_word_cache_is_bounded(accelerate, monkeypatch, texts_and_exact):
    texts, exact = texts_and_exact
    monkeypatch.setattr(tokens, "WORD_CACHE_MAX", 40)
    c = TokenCounter(accelerate=accelerate)
    longest = max(len(set(tokens._DELETED_SPACE.sub("", t).split())) for t in texts)
    got = []
    for k in range(0, len(texts), 50):
        got += c.count_many(texts[k:k + 50])
        assert c.cached_words() <= max(40, longest)
    assert got == exact
    many = " ".join(f"w{i}" for i in range(100))  # one text of more distinct words than the bound
    assert c.count_many([many, many]) == [c.count_exact(many)] * 2


def test_the_switch_forces_the_fallback(monkeypatch):
    monkeypatch.setenv("FINCHUNK_PURE_PYTHON", "1")
    assert not tokens.accelerated() and TokenCounter()._table is None
    monkeypatch.setenv("FINCHUNK_PURE_PYTHON", "0")
    assert tokens.accelerated() == C_BUILT and (TokenCounter()._table is not None) == C_BUILT


@needs_c
def test_the_table_splits_like_str_split():
    """The C split and look-up directly: every word of a text known with a distinct count, so
    a word split wrongly (a space missed, or a character taken for one) changes the sum."""
    rng = random.Random(5)
    for seed in range(300):
        texts = random_texts(20, seed)
        table = tokens._wordcount.WordTable()
        words = list(dict.fromkeys(w for t in texts for w in tokens._DELETED_SPACE.sub("", t).split()))
        weight = {w: rng.randint(1, 10**6) for w in words}
        out, missing = table.counts(texts, 3, None, 0)
        first = [w for w in dict.fromkeys(tokens._DELETED_SPACE.sub("", texts[len(out)]).split())] if missing else []
        assert missing is None or missing == first  # the first text with words it does not know: all of them
        table.add(list(weight), list(weight.values()))
        assert len(table) == len(words)
        out, missing = table.counts(texts, 3, None, 0)
        assert missing is None
        assert out == [3 + sum(weight[w] for w in tokens._DELETED_SPACE.sub("", t).split()) for t in texts]
        assert table.missing(texts) == []
        assert all(table.get(w) == weight[w] for w in words)


@needs_c
def test_the_table_by_itself():
    table = tokens._wordcount.WordTable()
    words = [f"w{i}" for i in range(5000)] + ["é" * k for k in range(1, 30)] + ["文" * k for k in range(1, 15)] \
        + ["𝔘" * k for k in range(1, 9)]
    table.add(words, list(range(len(words))))  # grows past its first 1,024 slots, keys inline and not
    assert len(table) == len(words) and [table.get(w) for w in words] == list(range(len(words)))
    assert table.get("w5000") is None and table.get("") is None
    table.add(["w1"], [7])
    assert table.get("w1") == 7 and len(table) == len(words)
    # the same code points read from a narrow and a wide string are the same word
    assert table.counts(["w1 éé", "w1 éé \u3000𝔘", "文 w1"], 0, None, 0) == ([7 + 5001, 7 + 5001 + 5043, 5029 + 7], None)
    text = "w1 new\x85er new"
    assert table.counts([text], 0, [1], 0) == ([7], None)  # capped: passes its cap after w1
    assert table.counts([text, "w1"], 0, [2, 0], 0) == ([], ["newer"])  # unknown among the first 2
    assert table.counts([text], 0, [3], 0) == ([], ["newer", "new"])
    assert table.counts(["w1", text, "w2"], 1, None, 1) == ([], ["newer", "new"])  # from start=1
    table.clear()
    assert len(table) == 0 and table.get("w1") is None
    with pytest.raises(TypeError):
        table.counts([b"bytes"], 0, None, 0)
    with pytest.raises(ValueError):
        table.counts(["a"], 0, [1, 2], 0)
