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

Where the rules live: rule 1 in ``issuers.py``, rules 3 and 4 in ``narrowing.py``, the
periods and document types named in ``periods.py``, the output in ``route.py``.
"""
from __future__ import annotations

from .catalog import Catalog
from .issuers import Cand, candidates, resolve
from .narrowing import narrow
from .periods import DocTypeMention, PeriodMention, find_doc_types, find_periods
from .route import Mention, Route

VERSION = "1"
HARD_THRESHOLD = 0.75


def analyze(question: str, catalog: Catalog) -> Route:
    """The route of one question (see the module docstring for the rules)."""
    if not isinstance(question, str):
        raise TypeError(f"analyze takes the question text (str), not {type(question).__name__}")
    if not isinstance(catalog, Catalog):
        raise TypeError(f"analyze takes a routing Catalog, not {type(catalog).__name__}")
    n_docs = len(catalog.docs)
    kept = resolve(candidates(question, catalog))
    periods, doc_types = _outside(kept, find_periods(question)), _outside(kept, find_doc_types(question))
    mentions = _mentions(kept, periods, doc_types)
    issuer_cands = [c for c in kept if not c.is_title]
    title_cands = [c for c in kept if c.is_title]
    reasons = [_reason(c) for c in kept]
    if not issuer_cands and not title_cands:
        unused = [m for m in mentions if m.kind in ("period", "doc_type")]
        reasons.append("no issuer or document named: the whole index is searched"
                       + (f" ({', '.join(repr(m.text) for m in unused)} alone name no document)" if unused else ""))
        return Route(VERSION, "none", (), 0.0, (), tuple(mentions), tuple(reasons), n_docs)
    issuers_named = list(dict.fromkeys(i for c in issuer_cands for i in sorted(c.issuers)))
    title_docs = set().union(*(c.doc_ids for c in title_cands)) if title_cands else set()
    selected, preferred = _select(issuers_named, title_docs, periods, doc_types, catalog, reasons)
    confidence = min(c.confidence for c in issuer_cands or title_cands)
    action = "filter" if confidence >= HARD_THRESHOLD else "boost"
    if action == "boost":
        reasons.append(f"confidence {confidence:.2f} < {HARD_THRESHOLD}: these documents are favoured, "
                       f"the rest of the index still competes")
    return Route(VERSION, action, tuple(sorted(selected)), confidence, tuple(issuers_named), tuple(mentions),
                 tuple(dict.fromkeys(reasons)), n_docs, tuple(sorted(preferred)))


def _outside(kept: list[Cand], found: list) -> list:
    """The period / document-type mentions that overlap no issuer or title mention."""
    return [m for m in found if not any(m.start < k.end and k.start < m.end for k in kept)]


def _mentions(kept: list[Cand], periods: list[PeriodMention], doc_types: list[DocTypeMention]) -> list[Mention]:
    """Every mention the route read, in question order."""
    mentions = [Mention("document" if c.is_title else "issuer", c.text, c.start, c.end,
                        c.form if c.is_title or c.rule == "abbreviation" else " / ".join(sorted(c.issuers)),
                        c.rule, round(c.confidence, 3)) for c in kept]
    mentions += [Mention("period", p.text, p.start, p.end, p.describe(), p.kind, p.confidence) for p in periods]
    mentions += [Mention("doc_type", d.text, d.start, d.end, ", ".join(sorted(d.types)), "doc_type", 0.9)
                 for d in doc_types]
    mentions.sort(key=lambda m: (m.start, m.end, m.kind))
    return mentions


def _reason(c: Cand) -> str:
    what = (f"document title {c.form!r} ({len(c.doc_ids)} documents)" if c.is_title
            else " / ".join(sorted(c.issuers)))
    return f"{c.text!r} → {what} ({c.rule.replace('_', ' ')}, confidence {c.confidence:.2f})"


def _select(issuers_named: list[str], title_docs: set[str], periods: list[PeriodMention],
            doc_types: list[DocTypeMention], catalog: Catalog, reasons: list[str]) -> tuple[set[str], set[str]]:
    """(documents selected, documents preferred among them: empty when all are): each issuer's
    documents (within the titled ones, when a title is named) narrowed, or the titled ones."""
    selected: set[str] = set()
    preferred: set[str] = set()
    if issuers_named:
        for issuer in issuers_named:
            label = issuer if len(issuers_named) <= 2 else "each issuer's"
            docs = list(catalog.issuer_docs.get(issuer, ()))
            within = [d for d in docs if d in title_docs]
            if within and len(within) < len(docs):
                reasons.append(f"document title named: kept {len(within)} of {len(docs)} {label} documents")
                docs = within
            kept, pref = narrow(docs, label, periods, doc_types, catalog, reasons)
            selected |= set(kept)
            preferred |= set(pref or kept)   # an issuer without a preference: all of its documents
    else:
        kept, pref = narrow(sorted(title_docs), "titled", periods, doc_types, catalog, reasons)
        selected, preferred = set(kept), set(pref or kept)
    return selected, (set() if preferred == selected else preferred)
