"""The sentence splitter's speed work (issue 16) against the plain definition it replaced, on
generated text: boundaries found by one regex that also reads the next character, and the
abbreviation test skipped when the character before the period cannot end a word."""
import random
import re

from finchunk_pipeline.chunking.sentence import _ABBREVIATIONS, _OPENERS, ABBREVIATIONS, split_sentences

_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_BLANK_LINE = re.compile(r"\n\s*\n")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.&]*)\.$")
_WORD_BEFORE_UNICODE = re.compile(r"((?<![^\W\d_])[^\W\d_][^\W\d_.&]*(?:\.[^\W\d_]+)*)\.$")


def _is_abbreviation(text, dot, language):
    m = (_WORD_BEFORE if language == "en" else _WORD_BEFORE_UNICODE).search(text, max(0, dot - 20), dot + 1)
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    return word in _ABBREVIATIONS.get(language, ABBREVIATIONS) or len(word) == 1 or ("." in word and len(word) <= 6)


def plain_split(text, start, end, language, min_chars=1):
    """split_sentences as first written (one regex pass per concern, a loop per whitespace run)."""
    openers = "\"'“‘([$€£" + _OPENERS.get(language, "")
    cuts = [m.start() for m in _BLANK_LINE.finditer(text, start, end)]
    pos = start
    for m in _BOUNDARY.finditer(text, start, end):
        b = m.end()
        punct = text[m.start()]
        after = b
        while after < end and text[after].isspace():
            after += 1
        if after >= end:
            continue
        nxt = text[after]
        if punct == ".":
            free = m.start() > start and text[m.start() - 1] == " "
            if not free:
                if _is_abbreviation(text, m.start() + len(m.group(0).rstrip("\"'”’)]")) - 1, language):
                    continue
                if not (nxt.isupper() or nxt.isdigit() or nxt in openers):
                    continue
        elif nxt.islower():
            continue
        if text.count("(", pos, m.start()) > text.count(")", pos, m.start()):
            continue
        cuts.append(b)
        pos = b
    out, prev = [], start
    for c in sorted(set(c for c in cuts if start < c < end)) + [end]:
        s, e = prev, c
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            if out and (e - s) < min_chars and out[-1][1] <= s:
                out[-1] = (out[-1][0], e)
            else:
                out.append((s, e))
        prev = c
    return out


WORDS = ["Revenue", "rose", "the", "U.S", "Inc", "No", "approx", "e.g", "J", "año", "Sr", "Dña", "núm", "S.A",
         "1.2", "3.5%", "$1", "(a)", "(see", "note)", "AT&T", "&", "x", "Ébano", "über", "2024", "¿Qué", "¡Sí",
         "«cita»", "“Quote”", "'q'", "é", "ß", "ŉ", "ǅ", "Ⅻ", "²", "_a", "a_b", "١٢"]
PUNCT = ["", "", "", ".", ".", ". ", "!", "?", "?!", "...", ".\"", ".)", ".”", ".’]", " .", ",", ";"]
SPACES = [" ", " ", " ", "  ", "\n", "\n\n", "\n \n", "\t", "\xa0", "\u2009", "\x0b", "\x85"]


def _text(rng):
    out = []
    for _ in range(rng.randint(0, 40)):
        out += [rng.choice(WORDS), rng.choice(PUNCT), rng.choice(SPACES)]
    return "".join(out)


def test_split_sentences_matches_the_plain_definition():
    rng = random.Random(7)
    for _ in range(4000):
        text = _text(rng)
        start = rng.randint(0, len(text) // 3)
        end = rng.randint(start, len(text))
        for language in ("en", "es", "de"):
            for min_chars in (1, 30):
                want = plain_split(text, start, end, language, min_chars)
                assert split_sentences(text, start, end, min_chars, language) == want, (text, start, end, language)


def test_is_abbreviation_matches_the_regex_at_every_period():
    from finchunk_pipeline.chunking.sentence import _is_abbreviation as fast

    rng = random.Random(8)
    for _ in range(3000):
        text = _text(rng)
        for dot in (i for i, c in enumerate(text) if c == "."):
            for language in ("en", "es"):
                assert fast(text, dot, language) == _is_abbreviation(text, dot, language), (text, dot)
