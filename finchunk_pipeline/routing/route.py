"""What the query analyzer returns: the ``Route`` of a question and the ``Mention``s it read.

Kept apart from the rules (``analyzer.py``, ``issuers.py``, ``narrowing.py``) so the
search, the evaluation and the CLI can read a route without importing the rules.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass


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
