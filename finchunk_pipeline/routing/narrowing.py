"""Rules 3 and 4 of the query analyzer: narrowing an issuer's documents by the document
type and the periods named, and the soft preference within (nearest or latest fiscal year).

See ``analyzer.py`` for the rules in order.
"""
from __future__ import annotations

from .catalog import Catalog
from .periods import DocTypeMention, PeriodMention

LEVEL_NAMES = {4: "period end", 3: "fiscal quarter", 2: "fiscal year"}


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


def narrow(doc_ids: list[str], label: str, periods: list[PeriodMention], doc_types: list[DocTypeMention],
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
