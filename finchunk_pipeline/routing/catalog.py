"""The corpus's documents as the query analyzer sees them: metadata only, and the names
each issuer answers to.

A ``Catalog`` is built from a documents table (``documents.parquet`` or the parsed
manifest) and keeps only ``METADATA_COLUMNS``: no text, no questions, no labels.

Names an issuer answers to (``Alias``), all derived from its metadata by generic rules:

* ``name``        the issuer as written (``Granite Peak Technologies Inc.``);
* ``short_name``  without legal suffixes and a leading "The" (``Granite Peak Technologies``;
                  Inc., Corp., Co., Company, plc, Ltd, LLC, LP, S.A., SE, AG, N.V., GmbH,
                  S.p.A., ... and fund suffixes UCITS ETF / ETF);
* ``ticker``      the ticker column, matched only as written in capitals, never one letter
                  nor a common financial acronym (EPS, ESG, ...);
* ``ampersand``   ``J&J`` / ``JnJ`` from a name of two words joined by "&" or "and";
* ``partial``     leading words of the short name (``Granite Peak``, ``MGM`` of
                  ``MGM Resorts``); ambiguous when several issuers share them;
* ``title``       a title segment that is not the issuer's name nor periods / form words
                  (``Meridale Partners`` of a research note's title): points to those
                  documents only.

Abbreviations written in capitals (``AMEX``, ``JPM``) are not enumerated here: the analyzer
checks a capitalised question word against each issuer's ``words`` (see analyzer.py).
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Iterable

import pandas as pd

from ..hashing import is_missing, stable_hash
from .periods import find_periods, title_doc_types

METADATA_COLUMNS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end")

# issuer values that name no one (TAT-QA's "unknown")
PLACEHOLDER_ISSUERS = frozenset({"", "unknown", "n/a", "na", "none", "null", "nan", "other", "various", "-", "?"})
LEGAL_SUFFIXES = tuple(tuple(s.split()) for s in (
    "inc", "incorporated", "corp", "corporation", "co", "company", "companies", "cos", "plc", "ltd", "limited",
    "llc", "l l c", "lp", "l p", "llp", "sa", "s a", "se", "ag", "nv", "n v", "bv", "b v", "gmbh", "ab", "asa",
    "oyj", "spa", "s p a", "kgaa", "sarl", "pty", "srl", "s r l", "as", "a s", "publ", "ucits etf", "etf",
))
STOPWORDS = frozenset({"the", "of", "and", "for", "de", "la", "le", "du", "des", "der", "und", "et", "y", "a", "an"})
# capitalised words of finance that are no one's name: never a ticker nor an abbreviation
COMMON_ACRONYMS = frozenset("""
    ai api arr b2b b2c bps capex cagr ceo cfo cio coo cogs cpi cto dcf dio dpo dso ebit ebitda ebitdar eps esg etf
    eur eu fcf fifo fx gaap gbp gdp hq ifrs ipo irr kpi lifo llc ltm m&a mda nav nii nim npv ntm opex otc pe ppe
    ppne rnd roa roce roe roi roic rsu sec sga tam ttm uk us usa usd vat wacc yoy kid ucits
    faq esop ebt nol cds abs mbs cmbs rmbs ftc fda doj irs gmv aum arpu mau dau nyse nasdaq fasb iasb fdic
    occ cfpb lse otc ebitdar opeb aoci oci gaap ppa dta dtl llp ceo cfo
""".split())
# words of a title that name periods or forms, not a company
GENERIC_TITLE_WORDS = frozenset("""
    form annual report reports quarterly quarter fiscal year years ended ending end for the of and earnings call
    conference transcript proxy statement statements prospectus key information document documents k q f a
    kid page dated excerpt filing update note notes results first second third fourth half full
""".split())
TOKEN = re.compile(r"[A-Za-z0-9]+|&")
_QUARTERLY = frozenset({"10-Q", "10-Q/A", "earnings_call"})
_ANNUAL = frozenset({"annual_report", "10-K", "10-K/A"})
_MONTH_WORDS = frozenset({"january", "february", "march", "april", "may", "june", "july", "august", "september",
                          "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug",
                          "sep", "sept", "oct", "nov", "dec"})


def norm_token(t: str) -> str:
    return "and" if t == "&" else t.casefold()


def tokenize(text: str) -> list[tuple[str, int, int]]:
    """(normalised token, start, end): words and numbers, '&' read as 'and'."""
    return [(norm_token(m.group()), m.start(), m.end()) for m in TOKEN.finditer(text)]


def _key(text: str) -> tuple[str, ...]:
    return tuple(t for t, _, _ in tokenize(text))


def short_name(key: tuple[str, ...]) -> tuple[str, ...]:
    """The name without a leading "the" and without trailing legal / fund suffixes."""
    k = list(key)
    if len(k) > 1 and k[0] == "the":
        k = k[1:]
    changed = True
    while changed and len(k) > 1:
        changed = False
        for suffix in sorted(LEGAL_SUFFIXES, key=len, reverse=True):
            n = len(suffix)
            if len(k) > n and tuple(k[-n:]) == suffix:
                k = k[:-n]
                changed = True
                break
        while len(k) > 1 and k[-1] in ("and", "the"):   # "Foo & Co." -> "Foo &" -> "Foo"
            k = k[:-1]
            changed = True
    return tuple(k)


def _clean(v):
    return None if is_missing(v) else v


def _generic(tok: str) -> bool:
    return (tok in GENERIC_TITLE_WORDS or tok in _MONTH_WORDS or tok.isdigit()
            or bool(re.fullmatch(r"(?:\d{4})?[qh][1-4](?:\d{2,4})?|\d{1,2}[qh]\d{0,4}|\d+(?:k|q)", tok)))


@dataclass(frozen=True)
class DocMeta:
    doc_id: str
    issuer: str | None           # None: no usable issuer (placeholder or missing)
    ticker: str | None
    title: str
    doc_type: str
    fiscal_year: int | None
    period_end: date | None
    types: frozenset[str]        # doc_type + what the title says (10-Q -> also its amendments)
    years: frozenset[int]        # fiscal_year + four-digit years in the title
    quarter: tuple[int, int] | None = None  # (fiscal year, quarter) of a quarterly document


@dataclass(frozen=True)
class Alias:
    kind: str                    # name | short_name | ticker | ampersand | partial | title
    key: tuple[str, ...]         # normalised tokens
    form: str                    # as written in the metadata
    issuers: frozenset[str]
    doc_ids: frozenset[str]


@dataclass
class Catalog:
    docs: dict[str, DocMeta]
    issuer_docs: dict[str, tuple[str, ...]] = field(default_factory=dict)
    aliases: dict[tuple[str, ...], list[Alias]] = field(default_factory=dict)
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)   # issuer -> content words of its short name
    fingerprint: str = ""

    @property
    def alias_lengths(self) -> tuple[int, ...]:
        """The token lengths of the aliases, longest first (computed once)."""
        cached = self.__dict__.get("_alias_lengths")
        if cached is None or cached[0] != len(self.aliases):
            cached = (len(self.aliases), tuple(sorted({len(k) for k in self.aliases}, reverse=True)))
            self.__dict__["_alias_lengths"] = cached
        return cached[1]

    # --- construction ------------------------------------------------------------------------
    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> "Catalog":
        """From a documents table; only ``METADATA_COLUMNS`` are read (missing ones are null)."""
        if "doc_id" not in frame.columns:
            raise ValueError(f"routing catalog: the documents table has no doc_id column (columns: {list(frame.columns)})")
        meta = pd.DataFrame({c: frame[c] if c in frame.columns else None for c in METADATA_COLUMNS})
        return cls.build(meta.to_dict("records"))

    @classmethod
    def from_parquet(cls, path: str | Path) -> "Catalog":
        import pyarrow.parquet as pq

        path = Path(path)
        if not path.exists():
            raise ValueError(f"routing catalog: {path} is missing (the parsed manifest: run `finchunk run` first)")
        names = set(pq.read_schema(path).names)
        return cls.from_frame(pq.read_table(path, columns=[c for c in METADATA_COLUMNS if c in names]).to_pandas())

    @classmethod
    def build(cls, rows: Iterable[dict]) -> "Catalog":
        rows = [{c: _clean(r.get(c)) for c in METADATA_COLUMNS} for r in rows]
        fingerprint = stable_hash([[str(r[c]) if r[c] is not None else None for c in METADATA_COLUMNS]
                                   for r in sorted(rows, key=lambda r: str(r["doc_id"]))], n=12)
        by_issuer: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            issuer = str(r["issuer"]).strip() if r["issuer"] is not None else ""
            if issuer.casefold() not in PLACEHOLDER_ISSUERS:
                by_issuer[issuer].append(r)
        fy_end_month = {i: _fiscal_year_end_month(rs) for i, rs in by_issuer.items()}
        docs: dict[str, DocMeta] = {}
        for r in rows:
            issuer = str(r["issuer"]).strip() if r["issuer"] is not None else ""
            issuer = issuer if issuer in by_issuer else None
            docs[str(r["doc_id"])] = _doc_meta(r, issuer, fy_end_month.get(issuer, 12))
        cat = cls(docs, fingerprint=fingerprint)
        cat.issuer_docs = {i: tuple(sorted(str(r["doc_id"]) for r in rs)) for i, rs in sorted(by_issuer.items())}
        cat._build_aliases(by_issuer)
        return cat

    def _add(self, kind: str, key: tuple[str, ...], form: str, issuers: Iterable[str], doc_ids: Iterable[str]) -> None:
        if not key:
            return
        issuers, doc_ids = frozenset(issuers), frozenset(doc_ids)
        for a in self.aliases.get(key, []):
            if a.kind == kind and a.issuers == issuers and a.doc_ids == doc_ids:
                return
        self.aliases.setdefault(key, []).append(Alias(kind, key, form, issuers, doc_ids))

    def _build_aliases(self, by_issuer: dict[str, list[dict]]) -> None:
        names: set[tuple[str, ...]] = set()
        prefixes: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for issuer, rs in by_issuer.items():
            doc_ids = self.issuer_docs[issuer]
            full = _key(issuer)
            short = short_name(full)
            self._add("name", full, issuer, [issuer], doc_ids)
            names.add(full)
            if short != full:
                self._add("short_name", short, " ".join(short), [issuer], doc_ids)
                names.add(short)
            self.words[issuer] = tuple(w for w in short if w not in STOPWORDS) or short
            for ticker in sorted({str(r["ticker"]).strip() for r in rs if r["ticker"] is not None}):
                tkey = _key(ticker)
                if len("".join(tkey)) >= 2 and "".join(tkey) not in COMMON_ACRONYMS and ticker.casefold() not in PLACEHOLDER_ISSUERS:
                    self._add("ticker", tkey, ticker, [issuer], doc_ids)
            if "and" in short and ("&" in issuer or " and " in issuer.casefold()):
                parts = [w for w in short if w != "and"]
                if 2 <= len(parts) <= 4 and all(len(w) >= 2 and w.isalpha() for w in parts):
                    initials = [w[0] for w in parts]
                    amp = [initials[0]]
                    for c in initials[1:]:
                        amp += ["and", c]
                    self._add("ampersand", tuple(amp), "&".join(initials).upper(), [issuer], doc_ids)
                    self._add("ampersand", ("n".join(initials),), "n".join(initials), [issuer], doc_ids)
            for n in range(1, len(short)):
                p = short[:n]
                if p[-1] in STOPWORDS or (n == 1 and (len(p[0]) < 2 or p[0].isdigit())):
                    continue
                prefixes[p].add(issuer)
        for p, issuers in prefixes.items():
            if p in names:
                continue
            self._add("partial", p, " ".join(p), sorted(issuers),
                      [d for i in sorted(issuers) for d in self.issuer_docs[i]])
        # names as written in the titles: segments that are neither the issuer nor periods / forms
        own = defaultdict(set)
        for key, aliases in self.aliases.items():
            for a in aliases:
                for i in a.issuers:
                    own[i].add(key)
        segments: dict[tuple[str, ...], tuple[str, set[str]]] = {}
        for d in self.docs.values():
            for seg in re.split(r"\s+[—–-]\s+|[:|()\[\],;]", d.title or ""):
                toks = _key(seg)
                while toks and _generic(toks[0]):
                    toks = toks[1:]
                while toks and _generic(toks[-1]):
                    toks = toks[:-1]
                if len(toks) < 2 or all(_generic(t) or t in STOPWORDS for t in toks):
                    continue
                if d.issuer is not None and (toks in own[d.issuer] or short_name(toks) in own[d.issuer]):
                    continue
                form = seg.strip()
                segments.setdefault(toks, (form, set()))[1].add(d.doc_id)
        for toks, (form, ids) in segments.items():
            issuers = sorted({self.docs[i].issuer for i in ids if self.docs[i].issuer is not None})
            self._add("title", toks, form, issuers, sorted(ids))

    # --- lookups -------------------------------------------------------------------------------
    def documents_of(self, issuers: Iterable[str]) -> list[str]:
        return sorted({d for i in issuers for d in self.issuer_docs.get(i, ())})


def _fiscal_year_end_month(rows: list[dict]) -> int:
    """The month the issuer's fiscal year ends: the commonest period_end month of its annual
    documents (10-K, annual report); December when it has none."""
    months = Counter()
    for r in rows:
        pe = _as_date(r["period_end"])
        if pe is not None and str(r["doc_type"] or "") in _ANNUAL:
            months[pe.month] += 1
    return months.most_common(1)[0][0] if months else 12


def _as_date(v) -> date | None:
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.date()
    if isinstance(v, date):
        return v
    try:
        return pd.Timestamp(v).date()
    except (TypeError, ValueError):
        return None


def _doc_meta(r: dict, issuer: str | None, fy_end_month: int) -> DocMeta:
    title = str(r["title"] or "")
    doc_type = str(r["doc_type"] or "")
    types = {doc_type} | title_doc_types(title)
    if doc_type.endswith("/A"):
        types.add(doc_type[:-2])
    fy = int(r["fiscal_year"]) if r["fiscal_year"] is not None else None
    pe = _as_date(r["period_end"])
    periods = find_periods(title)
    years = {p.year for p in periods if p.year and p.kind != "date"} | {p.day.year for p in periods if p.kind == "date"}
    if fy is not None:
        years.add(fy)
    quarter = next(((p.year or fy, p.quarter) for p in periods if p.kind == "quarter" and (p.year or fy)), None)
    quarterly = bool(types & _QUARTERLY) or "quarter" in title.casefold()
    if quarter is None and quarterly and pe is not None and fy is not None:
        quarter = (fy, ((pe.month - fy_end_month - 1) % 12) // 3 + 1)
    return DocMeta(str(r["doc_id"]), issuer, _clean(r["ticker"]), title, doc_type, fy, pe,
                   frozenset(t for t in types if t), frozenset(years), quarter)
