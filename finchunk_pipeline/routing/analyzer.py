"""The query analyzer: which documents a question is about, and why.

``analyze(question, catalog)`` reads the question text and the catalog (documents'
metadata only) and returns a ``Route``: the documents to search (``doc_ids``), the action
(``filter``: only those documents; ``boost``: those documents favoured in the ranking;
``none``: the whole index, unchanged), its confidence, the spans it matched and its
reasons. It is deterministic (no model, no randomness; ties resolved by position), and
``VERSION`` changes whenever a rule does: it joins the evaluation's inputs key.

Rules, in order:

1. **Issuers.** Every run of question words that is an alias of the catalog (catalog.py:
   name, short name, ticker, ``J&J`` / ``JnJ``, leading words, title segment) is a candidate;
   so is a capitalised word that abbreviates an issuer's name (``AMEX`` = AMerican EXpress,
   ``JPM`` = JPMorgan: prefixes of the name's words in order; never a common financial
   acronym). Overlapping candidates: the longest span wins ("American Express" over
   "American"); leading words followed by another capitalised word name something else
   ("United States" is not United Parcel Service). Confidence by rule and by how the question writes it (``CONFIDENCE``):
   a multi-word name 1.0 capitalised / 0.9 in lower case; a one-word name 0.9 capitalised
   inside a sentence, 0.6 only at a sentence start (it may be a common word: "Block sizes
   ..."), never in lower case; a ticker only as written in capitals; an alias shared by
   several issuers is multiplied by 0.6 (ambiguous).
2. **No issuer and no document title named: no route** (``none``). A year, a quarter or a
   form alone names no document ("What was revenue in 2019?" is about any filer).
3. **Narrowing, per issuer named** (two issuers: each narrowed, then the union):
   a document type named (``10-K``, ``annual report``, ``earnings call`` ...) keeps that
   issuer's documents of that type, when it has any; then periods keep the documents that
   match best — period end = a date named (4) > fiscal quarter = a quarter / half named (3)
   > fiscal year (or a year in the title) = a year named (2) — when at least one matches a
   year; otherwise the issuer's documents stay (a 2021 10-K answers about 2019).
4. **Preference within** (soft: never removes a document). When the issuer's documents
   stay because no document is of the year named, those of the nearest fiscal year are
   preferred (ties: the later one — a filing reports the prior years as comparatives, and
   the last one before a future year forecasts it); when no period is named at all and the
   documents span several fiscal years, the latest ones are preferred (a question without a
   period asks about now). Preferred documents are ranked first by fusion, not filtered.
5. **Action.** ``filter`` when the lowest confidence of the issuer mentions used is at
   least ``HARD_THRESHOLD``, else ``boost``.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .catalog import COMMON_ACRONYMS, LEGAL_SUFFIXES, STOPWORDS, Catalog, tokenize
from .periods import DocTypeMention, PeriodMention, find_doc_types, find_periods

VERSION = "1"
HARD_THRESHOLD = 0.75
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
LEVEL_NAMES = {4: "period end", 3: "fiscal quarter", 2: "fiscal year"}
_LOWER_OK = STOPWORDS | {w for suffix in LEGAL_SUFFIXES for w in suffix}   # "Northwind Holdings plc"


@dataclass(frozen=True)
class Mention:
    kind: str           # issuer | document | period | doc_type
    text: str           # as written in the question
    start: int
    end: int
    value: str          # what it was read as
    rule: str           # how (name, short_name, ticker, abbreviation, partial, title, fiscal_year, ...)
    confidence: float

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Route:
    version: str
    action: str                     # filter | boost | none
    doc_ids: tuple[str, ...]        # documents kept (filter) or favoured (boost); () for none
    confidence: float
    issuers: tuple[str, ...]
    mentions: tuple[Mention, ...] = ()
    reasons: tuple[str, ...] = ()
    documents: int = 0              # documents in the catalog
    preferred: tuple[str, ...] = () # of doc_ids: ranked first (soft), () when no preference

    def as_dict(self) -> dict:
        return {"version": self.version, "action": self.action, "doc_ids": list(self.doc_ids),
                "preferred": list(self.preferred),
                "confidence": round(self.confidence, 3), "issuers": list(self.issuers),
                "mentions": [m.as_dict() for m in self.mentions], "reasons": list(self.reasons),
                "documents": self.documents}

    def describe(self) -> str:
        """Human-readable: the action, the documents, one line per reason."""
        if self.action == "none":
            head = "route: none — searched the whole index"
        else:
            docs = ", ".join(self.doc_ids[:6]) + (" …" if len(self.doc_ids) > 6 else "")
            head = (f"route: {self.action} (confidence {self.confidence:.2f}) → {len(self.doc_ids)} of "
                    f"{self.documents} documents: {docs}")
            if self.preferred:
                head += f"; preferring {', '.join(self.preferred)}"
        return "\n".join([head] + [f"  - {r}" for r in self.reasons])


@dataclass
class _Cand:
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


def _candidates(text: str, catalog: Catalog) -> list[_Cand]:
    toks = tokenize(text)
    out: list[_Cand] = []
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
                out.append(_Cand(s, e, orig, a.kind, a.issuers, a.doc_ids, a.form, conf, a.kind == "title"))
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
        out.append(_Cand(s, e, orig, "abbreviation", issuers, frozenset(catalog.documents_of(issuers)),
                         " / ".join(sorted(issuers)), conf))
    return out


def _resolve(cands: list[_Cand]) -> list[_Cand]:
    """Non-overlapping candidates: longest span first, then highest confidence; a span may
    carry one issuer candidate and one title candidate."""
    kept: list[_Cand] = []
    order = sorted(cands, key=lambda c: (-c.length, -c.confidence, c.start, c.rule, sorted(c.issuers)))
    for c in order:
        clash = [k for k in kept if k.start < c.end and c.start < k.end]
        if not clash:
            kept.append(c)
        elif all((k.start, k.end) == (c.start, c.end) and k.is_title != c.is_title for k in clash) and len(clash) == 1:
            kept.append(c)     # the same words name an issuer and a document title
    # the same span read as the same issuers by two rules: keep the more confident one
    kept.sort(key=lambda c: (c.start, -c.confidence))
    out: list[_Cand] = []
    for c in kept:
        if any((o.start, o.end, o.issuers, o.is_title) == (c.start, c.end, c.issuers, c.is_title) for o in out):
            continue
        out.append(c)
    return out


def _period_level(doc, p: PeriodMention) -> int:
    if p.kind == "date":
        if doc.period_end is not None and doc.period_end == p.day:
            return 4
        return 2 if p.day.year in doc.years else 0
    if p.year is None:
        return 0
    if p.kind in ("quarter", "half") and doc.quarter == (p.year, p.quarter):
        return 3
    return 2 if p.year in doc.years else 0


def _all(docs: list[str], label: str) -> str:
    return f"the {label} document is" if len(docs) == 1 else f"all {len(docs)} {label} documents are"


def _nearest(docs: list[str], years: set[int], catalog: Catalog) -> list[str]:
    """The documents of the fiscal year nearest to any of ``years`` (ties: the later year)."""
    dated = [(d, catalog.docs[d].fiscal_year) for d in docs if catalog.docs[d].fiscal_year is not None]
    if not dated or not years:
        return []
    best = min(((min(abs(fy - y) for y in years), -fy) for _, fy in dated))
    return [d for d, fy in dated if (min(abs(fy - y) for y in years), -fy) == best]


def _narrow(doc_ids: list[str], label: str, periods: list[PeriodMention], doc_types: list[DocTypeMention],
            catalog: Catalog, reasons: list[str]) -> tuple[list[str], list[str]]:
    """(documents kept, documents preferred among them)."""
    out = list(doc_ids)
    preferred: list[str] = []
    if doc_types:
        wanted = frozenset().union(*(d.types for d in doc_types))
        named = ", ".join(sorted({repr(d.text) for d in doc_types}))
        match = [d for d in out if catalog.docs[d].types & wanted]
        if match and len(match) < len(out):
            reasons.append(f"{named} → {sorted(wanted)}: kept {len(match)} of {len(out)} {label} documents")
            out = match
        elif match:
            reasons.append(f"{named} → {sorted(wanted)}: {_all(out, label)} of that type")
        elif not match:
            reasons.append(f"{named}: no {label} document of type {sorted(wanted)}, not narrowed")
    if periods and out:
        levels = {d: max(_period_level(catalog.docs[d], p) for p in periods) for d in out}
        best = max(levels.values())
        named = ", ".join(dict.fromkeys(repr(p.text) for p in periods))
        if best >= 2:
            keep = [d for d in out if levels[d] == best]
            if len(keep) < len(out):
                reasons.append(f"{named}: kept {len(keep)} of {len(out)} {label} documents matching the "
                               f"{LEVEL_NAMES[best]}")
            else:
                reasons.append(f"{named}: {_all(out, label)} of that {LEVEL_NAMES[best]}")
            out = keep
        else:
            reasons.append(f"{named}: no {label} document of that period, not narrowed")
            preferred = _nearest(out, {p.year for p in periods if p.year}, catalog)
            if preferred and len(preferred) < len(out):
                reasons.append(f"preferring the nearest fiscal year: {', '.join(preferred)}")
            else:
                preferred = []
    elif not periods and len(out) > 1:
        years = {catalog.docs[d].fiscal_year for d in out if catalog.docs[d].fiscal_year is not None}
        if len(years) > 1:
            preferred = [d for d in out if catalog.docs[d].fiscal_year == max(years)]
            reasons.append(f"no period named: preferring the latest {label} documents (fiscal {max(years)}): "
                           f"{', '.join(preferred)}")
    return out, preferred


def analyze(question: str, catalog: Catalog) -> Route:
    """The route of one question (see the module docstring for the rules)."""
    if not isinstance(question, str):
        raise TypeError(f"analyze takes the question text (str), not {type(question).__name__}")
    if not isinstance(catalog, Catalog):
        raise TypeError(f"analyze takes a routing Catalog, not {type(catalog).__name__}")
    n_docs = len(catalog.docs)
    kept = _resolve(_candidates(question, catalog))

    def free(a, b):
        return not any(a < k.end and k.start < b for k in kept)

    periods = [p for p in find_periods(question) if free(p.start, p.end)]
    doc_types = [d for d in find_doc_types(question) if free(d.start, d.end)]
    mentions = [Mention("document" if c.is_title else "issuer", c.text, c.start, c.end,
                        c.form if c.is_title or c.rule == "abbreviation" else " / ".join(sorted(c.issuers)),
                        c.rule, round(c.confidence, 3)) for c in kept]
    mentions += [Mention("period", p.text, p.start, p.end, p.describe(), p.kind, p.confidence) for p in periods]
    mentions += [Mention("doc_type", d.text, d.start, d.end, ", ".join(sorted(d.types)), "doc_type", 0.9)
                 for d in doc_types]
    mentions.sort(key=lambda m: (m.start, m.end, m.kind))
    issuer_cands = [c for c in kept if not c.is_title]
    title_cands = [c for c in kept if c.is_title]
    reasons: list[str] = []
    for c in kept:
        what = (f"document title {c.form!r} ({len(c.doc_ids)} documents)" if c.is_title
                else " / ".join(sorted(c.issuers)))
        reasons.append(f"{c.text!r} → {what} ({c.rule.replace('_', ' ')}, confidence {c.confidence:.2f})")
    if not issuer_cands and not title_cands:
        unused = [m for m in mentions if m.kind in ("period", "doc_type")]
        reasons.append("no issuer or document named: the whole index is searched"
                       + (f" ({', '.join(repr(m.text) for m in unused)} alone name no document)" if unused else ""))
        return Route(VERSION, "none", (), 0.0, (), tuple(mentions), tuple(reasons), n_docs)
    title_docs = set().union(*(c.doc_ids for c in title_cands)) if title_cands else set()
    selected: set[str] = set()
    preferred: set[str] = set()
    issuers_named: list[str] = []
    for c in issuer_cands:
        for i in sorted(c.issuers):
            if i not in issuers_named:
                issuers_named.append(i)
    if issuers_named:
        for issuer in issuers_named:
            label = issuer if len(issuers_named) <= 2 else "each issuer's"
            docs = list(catalog.issuer_docs.get(issuer, ()))
            within = [d for d in docs if d in title_docs]
            if within and len(within) < len(docs):
                reasons.append(f"document title named: kept {len(within)} of {len(docs)} {label} documents")
                docs = within
            kept, pref = _narrow(docs, label, periods, doc_types, catalog, reasons)
            selected |= set(kept)
            preferred |= set(pref or kept)   # an issuer without a preference: all of its documents
    else:
        kept, pref = _narrow(sorted(title_docs), "titled", periods, doc_types, catalog, reasons)
        selected, preferred = set(kept), set(pref or kept)
    if preferred == selected:
        preferred = set()
    used = issuer_cands or title_cands
    confidence = min(c.confidence for c in used)
    action = "filter" if confidence >= HARD_THRESHOLD else "boost"
    if action == "boost":
        reasons.append(f"confidence {confidence:.2f} < {HARD_THRESHOLD}: these documents are favoured, "
                       f"the rest of the index still competes")
    return Route(VERSION, action, tuple(sorted(selected)), confidence, tuple(issuers_named), tuple(mentions),
                 tuple(dict.fromkeys(reasons)), n_docs, tuple(sorted(preferred)))
