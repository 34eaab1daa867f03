"""Rule 1 of the query analyzer: the runs of question words that name an issuer or a
document title of the catalog, each with a confidence, overlaps resolved.

See ``analyzer.py`` for the rules in order; ``CONFIDENCE`` gives each way of naming an
issuer its confidence (by rule and by how the question writes it).
"""
from __future__ import annotations

from dataclasses import dataclass

from .catalog import COMMON_ACRONYMS, LEGAL_SUFFIXES, STOPWORDS, Catalog, tokenize

AMBIGUOUS = 0.6       # confidence multiplier when one alias names several issuers

CONFIDENCE = {
    "name_multi": 1.0, "name_multi_lower": 0.9,
    "name_single": 0.9, "name_single_sentence_start": 0.6,
    "ticker": 0.9, "ticker_short": 0.7,            # two-letter tickers
    "ampersand": 0.85,
    "abbreviation": 0.8, "abbreviation_leading": 0.7,   # AMEX: all words; JPM of "JPMorgan Chase": leading words
    "partial_multi": 0.85, "partial_multi_lower": 0.7,
    "partial_single_caps": 0.85, "partial_single": 0.7, "partial_single_sentence_start": 0.5,
    "title": 0.85, "title_lower": 0.7,
}
_LOWER_OK = STOPWORDS | {w for suffix in LEGAL_SUFFIXES for w in suffix}   # "Northwind Holdings plc"


@dataclass
class Cand:
    """A run of question words [start, end) read as naming ``issuers`` (or, ``is_title``,
    the documents ``doc_ids`` by their title) by ``rule``, written as ``form``."""

    start: int
    end: int
    text: str
    rule: str
    issuers: frozenset[str]
    doc_ids: frozenset[str]
    form: str
    confidence: float
    is_title: bool = False

    @property
    def length(self) -> int:
        return self.end - self.start


def _sentence_start(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'“‘([")
    return not before or before[-1] in ".?!:;\n"


def _letters(s: str) -> str:
    return "".join(c for c in s if c.isalpha())


def _proper(s: str) -> bool:
    """Every word that is not a stop word nor a legal suffix starts with a capital (or is a number)."""
    for tok, a, _ in tokenize(s):
        ch = s[a]
        if tok in _LOWER_OK or ch.isdigit() or ch == "&":
            continue
        if not ch.isupper():
            return False
    return True


def _all_caps(s: str) -> bool:
    letters = _letters(s)
    return len(letters) >= 2 and letters.isupper()


def _confidence(rule: str, key_len: int, orig: str, form: str, text: str, start: int) -> float | None:
    """Confidence of an alias match as written, or None when the writing rules it out."""
    sentence_start = _sentence_start(text, start)
    first_upper = bool(_letters(orig)) and _letters(orig)[0].isupper()
    has_digit = any(c.isdigit() for c in orig)
    if rule in ("name", "short_name"):
        if key_len >= 2:
            return CONFIDENCE["name_multi"] if _proper(orig) else CONFIDENCE["name_multi_lower"]
        if _all_caps(orig) or has_digit:
            return CONFIDENCE["name_single"]
        if not first_upper:
            return None
        return CONFIDENCE["name_single_sentence_start"] if sentence_start else CONFIDENCE["name_single"]
    if rule == "ticker":
        if _letters(orig) != _letters(form) or not (_all_caps(orig) or has_digit):
            return None                      # "ma" or "Ma" is not the ticker MA
        return CONFIDENCE["ticker"] if len(_letters(form)) + sum(c.isdigit() for c in form) >= 3 else CONFIDENCE["ticker_short"]
    if rule == "ampersand":
        return CONFIDENCE["ampersand"] if sum(c.isupper() for c in orig) >= 2 else None
    if rule == "partial":
        if key_len >= 2:
            return CONFIDENCE["partial_multi"] if _proper(orig) else CONFIDENCE["partial_multi_lower"]
        if _all_caps(orig):
            return CONFIDENCE["partial_single_caps"]
        if not first_upper:
            return None
        return CONFIDENCE["partial_single_sentence_start"] if sentence_start else CONFIDENCE["partial_single"]
    if rule == "title":
        return CONFIDENCE["title"] if _proper(orig) else CONFIDENCE["title_lower"]
    raise ValueError(f"unknown alias rule {rule!r}")


def _abbreviates(token: str, words: tuple[str, ...]) -> int:
    """How many of ``words`` (from the first) ``token`` abbreviates as a concatenation of
    non-empty prefixes of consecutive words (AMEX = am+ex of american express; JPM = jpm of
    jpmorgan); 0 when it does not. The longest reading wins."""
    best = 0

    def walk(pos: int, i: int) -> None:
        nonlocal best
        if pos == len(token):
            best = max(best, i)
            return
        if i >= len(words):
            return
        w = words[i]
        for n in range(min(len(w), len(token) - pos), 0, -1):
            if token[pos:pos + n] == w[:n]:
                walk(pos + n, i + 1)

    walk(0, 0)
    if best == 1 and len(words) >= 1 and token == words[0]:
        return 0      # the whole first word: a name or partial alias, not an abbreviation
    return best


def candidates(text: str, catalog: Catalog) -> list[Cand]:
    """Every alias run and every abbreviation in ``text`` with its confidence (overlapping)."""
    toks = tokenize(text)
    out: list[Cand] = []
    lengths = catalog.alias_lengths
    words = [t for t, _, _ in toks]
    for i in range(len(toks)):
        for n in lengths:
            if n > len(toks) - i:
                continue
            key = tuple(words[i:i + n])
            aliases = catalog.aliases.get(key)
            if not aliases:
                continue
            s, e = toks[i][1], toks[i + n - 1][2]
            orig = text[s:e]
            # leading words followed by another capitalised word name something else:
            # "United States" is not United Parcel Service
            after = toks[i + n] if i + n < len(toks) else None
            other_name = (after is not None and text[after[1]].isupper() and after[0] not in _LOWER_OK
                          and text[e:after[1]].strip() == "")
            for a in aliases:
                if a.kind == "partial" and other_name:
                    continue
                conf = _confidence(a.kind, len(key), orig, a.form, text, s)
                if conf is None:
                    continue
                if a.kind != "title" and len(a.issuers) > 1:
                    conf *= AMBIGUOUS
                out.append(Cand(s, e, orig, a.kind, a.issuers, a.doc_ids, a.form, conf, a.kind == "title"))
    covered = [(c.start, c.end) for c in out if not c.is_title]
    # capitalised words that abbreviate an issuer's name
    for tok, s, e in toks:
        orig = text[s:e]
        if len(tok) < 3 or not tok.isalpha() or tok in COMMON_ACRONYMS or sum(c.isupper() for c in orig) < 2:
            continue
        if any(cs <= s and e <= ce for cs, ce in covered):
            continue
        hits = []
        for issuer, words in catalog.words.items():
            used = _abbreviates(tok, words)
            if used:
                hits.append((issuer, used == len(words)))
        if not hits:
            continue
        complete = all(full for _, full in hits)
        conf = CONFIDENCE["abbreviation"] if complete else CONFIDENCE["abbreviation_leading"]
        if len(hits) > 1:
            conf *= AMBIGUOUS
        issuers = frozenset(i for i, _ in hits)
        out.append(Cand(s, e, orig, "abbreviation", issuers, frozenset(catalog.documents_of(issuers)),
                         " / ".join(sorted(issuers)), conf))
    return out


def resolve(cands: list[Cand]) -> list[Cand]:
    """Non-overlapping candidates: longest span first, then highest confidence; a span may
    carry one issuer candidate and one title candidate."""
    kept: list[Cand] = []
    order = sorted(cands, key=lambda c: (-c.length, -c.confidence, c.start, c.rule, sorted(c.issuers)))
    for c in order:
        clash = [k for k in kept if k.start < c.end and c.start < k.end]
        if not clash:
            kept.append(c)
        elif all((k.start, k.end) == (c.start, c.end) and k.is_title != c.is_title for k in clash) and len(clash) == 1:
            kept.append(c)     # the same words name an issuer and a document title
    # the same span read as the same issuers by two rules: keep the more confident one
    kept.sort(key=lambda c: (c.start, -c.confidence))
    out: list[Cand] = []
    for c in kept:
        if any((o.start, o.end, o.issuers, o.is_title) == (c.start, c.end, c.issuers, c.is_title) for o in out):
            continue
        out.append(c)
    return out
