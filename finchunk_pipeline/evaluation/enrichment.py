"""Retrieval with and without enrichment, on the same chunks, at equal budget.

For an enriched chunk set, every retriever is evaluated over each representation
(index/representations.py: ``source``, ``enrichment``, ``fused``, ``concat``) with the usual
metrics (evaluation/retrieval.py), all scored by the chunks' source spans.

**Budget accounting.** The delivered context is the chunk's evidence, never the enrichment:

- ``delivery: evidence`` (the comparison the report leads with): the enrichment only decides
  the ranking; a hit is delivered as the chunk's indexed text (header + source), costing what
  it costs without enrichment. Representations differ by ranking alone, so their recall at a
  budget compares like with like. Answer containment is over the delivered evidence only.
- ``delivery: evidence+enrichment``: the reader is also given each delivered chunk's
  enrichment (before the chunk's text); its characters are charged to the budget like a
  context header (they cover no document characters), so fewer chunks fit. Answer
  containment is not reported for it: the enrichment is not evidence, and an answer found in
  it would not be a quote.

**Short ambiguous chunks** (the slice): a chunk is *short* when its source text has fewer than
``SHORT_CHARS`` (300) characters, and *ambiguous* when its source text does not name both its
issuer and its period — a word of the issuer's name (3+ letters, generic company words such as
"inc", "holdings" left out) or the ticker, and the fiscal year ("2019", "FY19", "FY2019") or
the period end's year. (A document without a known issuer or period cannot be named: its
short chunks are all ambiguous.) A gold passage is *ambiguous* when every chunk that covers
at least half of it is short and ambiguous (and there is one). The slice is the questions
with at least one ambiguous gold passage, scored on those passages only.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable

import numpy as np
import pandas as pd

from ..index.representations import REPRESENTATIONS
from ..types.chunks import spans_of
from .coverage import RETRIEVED_FRACTION, coverage_fraction, merge_spans
from .retrieval import MODES, evaluate_retriever

SHORT_CHARS = 300
EVIDENCE, CHARGED = "evidence", "evidence+enrichment"
ALL, SLICE = "all", "short_ambiguous"
ENRICHMENT_JOINER = "\n\n"
GENERIC = frozenset("""inc incorporated corp corporation co company companies ltd limited plc llc lp sa ag nv se
the and of group holdings holding international global systems technologies technology industries
trust bancorp financial""".split())
SUMMARY_KEYS = ("questions", "answerable", "curve", "by_type", "budget", "precision", "iou",
                "answer_containment", "slices")


def _known(value) -> str:
    text = "" if value is None else str(value).strip()
    return "" if text.lower() in ("", "nan", "nat", "none", "<na>", "unknown") else text


def issuer_terms(meta: dict) -> list[str]:
    words = [w for w in re.findall(r"[a-z0-9&]+", _known(meta.get("issuer")).lower())
             if len(w) >= 3 and w not in GENERIC]
    ticker = _known(meta.get("ticker")).lower()
    return sorted(set(words + ([ticker] if ticker else [])))


def period_terms(meta: dict) -> list[str]:
    years = set()
    fy = _known(meta.get("fiscal_year"))
    if fy:
        try:
            years.add(str(int(float(fy))))
        except ValueError:
            pass
    pe = _known(meta.get("period_end"))
    if re.match(r"\d{4}", pe):
        years.add(pe[:4])
    out = set(years)
    for y in years:
        out |= {f"fy{y}", f"fy{y[2:]}", f"fy'{y[2:]}"}
    return sorted(out)


def _names(text: str, terms: Iterable[str]) -> bool:
    return any(re.search(rf"(?<![a-z0-9]){re.escape(t)}(?![a-z0-9])", text) for t in terms)


def short_ambiguous(chunks: pd.DataFrame, doc_meta: dict[str, dict], max_chars: int = SHORT_CHARS) -> np.ndarray:
    """Boolean mask over the chunk rows (columns doc_id, source_text)."""
    out = np.zeros(len(chunks), dtype=bool)
    terms = {d: (issuer_terms(m), period_terms(m)) for d, m in doc_meta.items()}
    for i, (doc_id, text) in enumerate(zip(chunks["doc_id"], chunks["source_text"])):
        if len(text) >= max_chars:
            continue
        issuer, period = terms.get(doc_id, ([], []))
        low = text.lower()
        out[i] = not (issuer and period and _names(low, issuer) and _names(low, period))
    return out


def _list(v) -> list:
    return list(v) if v is not None and not (isinstance(v, float) and v != v) else []


def ambiguous_slice(questions: pd.DataFrame, passages: pd.DataFrame, chunks: pd.DataFrame,
                    mask: np.ndarray) -> tuple[pd.DataFrame, int]:
    """(the slice's questions with gold_passages restricted to their ambiguous passages,
    number of ambiguous passages among them)."""
    by_doc: dict[str, list[tuple[int, list]]] = {}
    for row, (d, sp) in enumerate(zip(chunks["doc_id"], chunks["spans"])):
        by_doc.setdefault(d, []).append((row, merge_spans(spans_of(sp))))
    where = {p: (d, int(s), int(e)) for p, d, s, e in
             zip(passages["passage_id"], passages["doc_id"], passages["start"], passages["end"])}
    memo: dict[str, bool] = {}

    def ambiguous(pid: str) -> bool:
        if pid not in memo:
            d, s, e = where.get(pid, (None, 0, 0))
            homes = [row for row, merged in by_doc.get(d, []) if e > s and
                     coverage_fraction(s, e, merged) >= RETRIEVED_FRACTION]
            memo[pid] = bool(homes) and all(mask[r] for r in homes)
        return memo[pid]

    keep, gold, n = [], [], 0
    for g in questions["gold_passages"]:
        amb = [p for p in _list(g) if ambiguous(p)]
        keep.append(bool(amb))
        gold.append(amb)
        n += len(amb)
    out = questions[keep].copy()
    out["gold_passages"] = [g for g, k in zip(gold, keep) if k]
    return out.reset_index(drop=True), n


def charged_chunks(chunks: pd.DataFrame, enrichment_texts: list[str]) -> pd.DataFrame:
    """Chunks as delivered with their enrichment before them: the indexed text grows by the
    enrichment (charged to the budget as header characters: source_text is unchanged, so the
    budget rule counts them as covering no document characters)."""
    out = chunks.copy()
    out["embedding_text"] = [f"{e}{ENRICHMENT_JOINER}{t}" if e else t
                             for e, t in zip(enrichment_texts, chunks["embedding_text"])]
    return out


def _summary(s: dict, keep_containment: bool = True) -> dict:
    out = {k: s[k] for k in SUMMARY_KEYS if k in s}
    if not keep_containment:
        out.pop("answer_containment", None)
        for group in list((out.get("by_type") or {}).values()) + list((out.get("slices") or {}).values()):
            group.pop("answer_containment", None)
            group.pop("containment_questions", None)
    return out


Loader = Callable[[str, str], object]  # (representation, retriever name) -> retriever or None


def evaluate_enrichment(load: Loader, retriever_names: list[str], chunks: pd.DataFrame, enrichment: pd.DataFrame,
                        passages: pd.DataFrame, questions: pd.DataFrame, doc_meta: dict[str, dict],
                        main_entries: list[dict] | None = None, log: Callable[[str], None] | None = None) -> dict:
    """Every retriever x representation: modes global and filtered with evidence delivery;
    global with the enrichment delivered and charged; global on the short-ambiguous slice.
    ``main_entries`` (the chunk set's own evaluation) are reused for the source
    representation's evidence delivery. ``chunks``: chunks.parquet rows (doc_id, spans,
    embedding_text, source_text); ``enrichment``: the enriched set's rows in the same order."""
    if chunks["chunk_id"].tolist() != enrichment["chunk_id"].tolist():
        raise ValueError("enrichment rows do not match the chunk set's rows (rebuild the enrichment)")
    texts = enrichment["enrichment_text"].fillna("").tolist()
    mask = short_ambiguous(chunks, doc_meta)
    slice_q, slice_passages = ambiguous_slice(questions, passages, chunks, mask)
    charged = charged_chunks(chunks, texts)
    own = {(e.get("retriever"), e.get("mode")): e for e in (main_entries or [])}
    entries = []
    for name in retriever_names:
        for rep in REPRESENTATIONS:
            retriever = load(rep, name)
            if retriever is None:
                continue
            base = {"retriever": name, "representation": rep}
            for mode in MODES:
                if rep == "source" and (name, mode) in own:
                    summary = own[(name, mode)]
                else:
                    summary = evaluate_retriever(retriever, chunks, passages, questions, mode).summary()
                entries.append({**base, "mode": mode, "delivery": EVIDENCE, "scope": ALL, **_summary(summary)})
            summary = evaluate_retriever(retriever, charged, passages, questions, "global").summary()
            entries.append({**base, "mode": "global", "delivery": CHARGED, "scope": ALL,
                            **_summary(summary, keep_containment=False)})
            if len(slice_q):
                summary = evaluate_retriever(retriever, chunks, passages, slice_q, "global").summary()
                entries.append({**base, "mode": "global", "delivery": EVIDENCE, "scope": SLICE, **_summary(summary)})
            if log:
                log(f"enrichment: {name}/{rep} evaluated")
    lengths = [len(t) for t in texts]
    return {
        "short_chars": SHORT_CHARS, "chunks": len(chunks), "ambiguous_chunks": int(mask.sum()),
        "slice_questions": len(slice_q), "slice_passages": slice_passages,
        "enrichment_mean_chars": (sum(lengths) / len(lengths)) if lengths else 0.0,
        "entries": entries,
    }
