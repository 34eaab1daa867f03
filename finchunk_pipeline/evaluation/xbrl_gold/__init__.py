"""Every filing is its own gold: evaluation questions generated from an inline-XBRL
filing's tagged facts, with their evidence located exactly in the document.

``generate`` turns parsed filings (blocks + ``TaggedFact``s, stored with the blocks by the
HTML parser) into questions and passages in the corpus format: one question per distinct
fact (concept, context, unit) — a figure tagged in several places is one question whose gold
holds every place —, a seeded sample per filing spread over the question types, and a report
of what was generated and what was rejected, and why.

Question types: ``xbrl_table`` (a figure in a table row, the filing's own period),
``xbrl_prior_period`` (a comparative figure of an earlier period), ``xbrl_segment`` (a figure
of a dimensional slice: a segment, product, region), ``xbrl_text_figure`` (a figure in a
sentence), ``xbrl_note`` (what a note says: a TextBlock). What gold they carry: evidence.py.
What this gold measures and what it cannot: docs/generated-gold.md.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from ...parse.ixbrl import located_share
from ...types.blocks import ParsedDocument, TaggedFact
from .evidence import EVIDENCE, DocumentBlocks, Passage, Rejected, figure_evidence, note_evidence
from .questions import TYPES, Filing, answer_words, figure_question, form_words, is_current, note_question, when_words
from .words import concept_words, iso

__all__ = ["EVIDENCE", "GENERATOR_VERSION", "TYPES", "FilingInput", "GeneratedGold", "generate"]

GENERATOR_VERSION = "1"
PER_DOCUMENT = 150     # questions per filing (a sample: thousands can be generated)
NOTE_MAX_CHARS = 3000  # a note question's text fits the budgets the report compares
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("and or of to in on for from by with the a an per net".split())


@dataclass
class FilingInput:
    """One parsed filing: its documents.parquet row (doc_id, doc_type, issuer, fiscal_year,
    period_end), its blocks and its tagged facts."""

    meta: dict[str, Any]
    doc: ParsedDocument
    facts: list[TaggedFact]


@dataclass
class GeneratedGold:
    questions: list[dict] = field(default_factory=list)
    passages: dict[str, Passage] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)

    def frames(self):
        """(questions, passages) as DataFrames in the corpus format."""
        import pandas as pd

        q = pd.DataFrame(self.questions, columns=["question_id", "question", "question_type", "doc_ids",
                                                  "gold_passages", "answer", "as_of"])
        p = pd.DataFrame([vars(x) for x in self.passages.values()],
                         columns=["passage_id", "doc_id", "section", "kind", "start", "end"])
        return q, p


def registrant(facts: list[TaggedFact], meta: dict[str, Any]) -> str:
    for f in facts:
        if f.concept.endswith(":EntityRegistrantName") and f.display and not f.display.isspace():
            return f.display.strip()
    return str(meta.get("issuer") or meta.get("doc_id"))


def _int(v) -> int | None:
    try:
        return None if v is None or v != v else int(v)
    except (TypeError, ValueError):
        return None


def filing_of(item: FilingInput) -> Filing:
    meta = item.meta
    end = iso(str(meta.get("period_end"))[:10]) if meta.get("period_end") is not None else None
    fy = _int(meta.get("fiscal_year"))
    view = item.doc.view_text
    return Filing(entity=registrant(item.facts, meta), form=form_words(meta.get("doc_type"), end, fy),
                  period_end=end, fiscal_year=fy, view=view, view_lower=view.lower())


@dataclass
class Candidate:
    key: tuple
    qtype: str
    facts: list[TaggedFact]
    passages: list[Passage]


def _figure_candidates(facts: list[TaggedFact], filing: Filing, blocks: DocumentBlocks, evidence: str,
                       rejected: Counter) -> list[Candidate]:
    groups: dict[tuple, list[TaggedFact]] = {}
    for f in facts:
        if f.kind != "numeric":
            continue
        if f.problem is not None:
            rejected[f.problem.split(":")[0]] += 1
            continue
        groups.setdefault((f.concept, f.context_id, f.unit), []).append(f)
    out = []
    for key, group in groups.items():
        first = group[0]
        if when_words(first, filing) is None:
            rejected["period not readable"] += 1
            continue
        where, passages, reason = None, [], None
        for f in group:
            try:
                w, ps = figure_evidence(f, blocks, evidence)
            except Rejected as exc:
                reason = reason or str(exc)
                continue
            where = where or w
            passages += [p for p in ps if p not in passages]
        if not passages:
            rejected[reason or "no evidence"] += 1
            continue
        if first.dimensions:
            qtype = "xbrl_segment"
        elif not is_current(first, filing):
            qtype = "xbrl_prior_period"
        else:
            qtype = "xbrl_table" if where == "table" else "xbrl_text_figure"
        out.append(Candidate(key, qtype, group, passages))
    return out


def _note_candidates(facts: list[TaggedFact], blocks: DocumentBlocks, rejected: Counter,
                     note_max_chars: int) -> list[Candidate]:
    out, seen = [], set()
    for f in facts:
        if f.kind != "text" or not f.concept.endswith("TextBlock") or f.dimensions:
            continue
        if f.problem is not None or not f.vspans:
            rejected[(f.problem or "no visible text").split(":")[0]] += 1
            continue
        if f.concept in seen:
            continue
        try:
            passages = note_evidence(f, blocks, note_max_chars)
        except Rejected as exc:
            rejected[str(exc)] += 1
            continue
        seen.add(f.concept)
        out.append(Candidate((f.concept, f.context_id, None), "xbrl_note", [f], passages))
    return out


def _sample(cands: list[Candidate], n: int | None, rng: random.Random) -> list[Candidate]:
    """Up to ``n`` candidates spread over the types: each type gets an equal share, a type
    with fewer candidates leaves its share to the others; order within a type is seeded."""
    by_type: dict[str, list[Candidate]] = {t: [] for t in TYPES}
    for c in sorted(cands, key=lambda c: tuple(map(str, c.key))):
        by_type[c.qtype].append(c)
    for lst in by_type.values():
        rng.shuffle(lst)
    if n is None or n >= len(cands):
        return [c for t in TYPES for c in by_type[t]]
    take = dict.fromkeys(TYPES, 0)
    left = n
    while left > 0:
        open_types = [t for t in TYPES if take[t] < len(by_type[t])]
        if not open_types:
            break
        share = max(1, left // len(open_types))
        for t in open_types:
            k = min(share, len(by_type[t]) - take[t], left)
            take[t] += k
            left -= k
            if left == 0:
                break
    return [c for t in TYPES for c in by_type[t][: take[t]]]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def label_in_evidence(c: Candidate, blocks: DocumentBlocks) -> float | None:
    """Share of the asked concept's words that the figure's own row or sentence holds (1.0:
    the question repeats the row's words; the report gives the share of questions below 1)."""
    if c.qtype == "xbrl_note":
        return None
    asked = _words(concept_words(c.key[0]))
    if not asked:
        return None
    b = blocks.by_id.get(c.facts[0].block_id or "")
    held = _words(b.text) if b is not None else set()
    return len(asked & held) / len(asked)


def generate(filings: Iterable[FilingInput], *, seed: int = 0, per_document: int | None = PER_DOCUMENT,
             evidence: str = "row+header", note_max_chars: int = NOTE_MAX_CHARS) -> GeneratedGold:
    """Questions and passages from every filing's tagged facts (deterministic for a seed)."""
    if evidence not in EVIDENCE:
        raise ValueError(f"evidence must be one of {EVIDENCE}, got {evidence!r}")
    gold = GeneratedGold()
    per_filing = []
    for item in filings:
        doc_id = item.doc.doc_id
        filing = filing_of(item)
        blocks = DocumentBlocks(item.doc)
        rejected: Counter = Counter()
        cands = (_figure_candidates(item.facts, filing, blocks, evidence, rejected)
                 + _note_candidates(item.facts, blocks, rejected, note_max_chars))
        rng = random.Random(f"{seed}|{doc_id}")
        chosen = _sample(cands, per_document, rng)
        overlap = []
        for c in chosen:
            f = c.facts[0]
            if c.qtype == "xbrl_note":
                text, answer = note_question(f, filing, rng), None
            else:
                text, answer = figure_question(f, c.qtype, filing, rng), answer_words(f)
            qid = f"xq:{doc_id}:{f.fact_id}"
            gold.questions.append({"question_id": qid, "question": text, "question_type": c.qtype,
                                   "doc_ids": [doc_id], "gold_passages": [p.passage_id for p in c.passages],
                                   "answer": answer, "as_of": None})
            for p in c.passages:
                gold.passages[p.passage_id] = p
            share = label_in_evidence(c, blocks)
            if share is not None:
                overlap.append(share)
        numeric = [f for f in item.facts if f.kind == "numeric"]
        located, to_locate = located_share(item.facts)
        per_filing.append({
            "doc_id": doc_id, "entity": filing.entity, "form": filing.form,
            "facts": len(item.facts), "numeric_facts": len(numeric),
            "located": located, "to_locate": to_locate,
            "located_share": round(located / to_locate, 4) if to_locate else None,
            "candidates": dict(Counter(c.qtype for c in cands)),
            "duplicated": sum(1 for c in cands if len(c.facts) > 1),
            "questions": dict(Counter(c.qtype for c in chosen)),
            "rejected": dict(rejected.most_common()),
            "label_not_in_row_share": (round(sum(1 for s in overlap if s < 1) / len(overlap), 4)
                                       if overlap else None),
            "label_words_in_row_mean": round(sum(overlap) / len(overlap), 4) if overlap else None,
        })
    gold.report = {"generator": GENERATOR_VERSION, "seed": seed, "per_document": per_document,
                   "evidence": evidence, "questions": len(gold.questions),
                   "by_type": dict(Counter(q["question_type"] for q in gold.questions)),
                   "filings": per_filing}
    return gold
