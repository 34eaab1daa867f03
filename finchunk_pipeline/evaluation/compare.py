"""Chunk sets compared question by question: gains with paired bootstrap intervals, the
best evidence-aware policy against the best plain splitter, and the policy to recommend per
document type.

- **Families** (a strategy's ``family``, chunking/strategy.py): ``plain`` splitters cut text
  without reading its structure (fixed, recursive, fixed_tokens, and the peers users run:
  LangChain, chonkie, semchunk, semantic-text-splitter, LlamaIndex — chunking/baselines.py,
  chunking/peers/); ``evidence`` policies cut along the document's own units (structure,
  packed, auto, paragraph, transcript, evidence); the rest (sentence, semantic) are neither.
  "Best plain" is the best of *every* plain chunk set in the run — each library, each size,
  with or without a header — per retriever, mode and budget: the comparison a user makes.
- **Neutral view**: rows of a neutral retriever (index/registry.py ``neutral``: ``bm25-plain``,
  BM25 without the project's analyzer and priors) are flagged ``neutral``: the same comparison
  with none of the retriever levers that lift every chunk set, so what chunking alone
  contributes. The recommendation is made for the other retrievers only.
- **Gain** of chunk set A over B at a budget = mean over the same answerable questions of
  recall(A) − recall(B). Its 95% interval is a paired bootstrap over questions
  (``BOOTSTRAP_SAMPLES`` resamples of the question list with replacement, fixed seed; the
  2.5th and 97.5th percentiles of the resampled mean difference). A gain is a *win* only
  when the whole interval is above 0.
- **Recommendation**: per document type (of the questions' documents), the evidence-aware,
  token-safe (no chunk over the embedding model's limit) chunk set with the best recall at
  the recommendation budget, in global mode, for each retriever — chosen by these numbers,
  not by hand — with its gain over the best plain splitter on the same questions.
- **Recommendation budget**: the smallest evaluated budget of at least 1,500 characters and
  three times the median gold passage, so a set with whole-page gold units (complete
  filings) is judged where a page fits, and a set of sentences and table rows at 1,500.
"""
from __future__ import annotations

import statistics
from typing import Iterable, Sequence

import numpy as np

from ..index.registry import is_neutral

BOOTSTRAP_SAMPLES = 2000
SEED = 20261201
MIN_RECOMMEND_BUDGET = 1500


def paired_bootstrap(a: Sequence[float], b: Sequence[float], samples: int = BOOTSTRAP_SAMPLES,
                     seed: int = SEED) -> tuple[float, float, float]:
    """(mean difference a − b, 2.5th percentile, 97.5th percentile) over paired questions."""
    x = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if x.size == 0:
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(samples, x.size))
    means = x[idx].mean(axis=1)
    return float(x.mean()), float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def recommend_budget(budgets: Iterable[int], gold_lengths: Sequence[int]) -> int:
    budgets = sorted(budgets)
    target = max(MIN_RECOMMEND_BUDGET, 3 * statistics.median(gold_lengths)) if gold_lengths else MIN_RECOMMEND_BUDGET
    for b in budgets:
        if b >= target:
            return b
    return budgets[-1]


def _recall(entry: dict, budget: int, keep: set[str] | None = None) -> tuple[list[str], list[float]]:
    pq = entry.get("per_question") or {}
    ids, values = pq.get("ids") or [], (pq.get("recall") or {}).get(str(budget)) or []
    if keep is None:
        return list(ids), list(values)
    pairs = [(i, v) for i, v in zip(ids, values) if i in keep]
    return [i for i, _ in pairs], [v for _, v in pairs]


def mean_recall(entry: dict, budget: int, keep: set[str] | None = None) -> float | None:
    _, values = _recall(entry, budget, keep)
    return sum(values) / len(values) if values else None


def gain(a: dict, b: dict, budget: int, keep: set[str] | None = None) -> dict | None:
    """A's gain over B at ``budget`` on their common questions (``keep``: a subset of ids)."""
    ids_a, ra = _recall(a, budget, keep)
    ids_b, rb = _recall(b, budget, keep)
    if not ids_a or ids_a != ids_b:
        return None
    diff, lo, hi = paired_bootstrap(ra, rb)
    return {"gain": diff, "ci_low": lo, "ci_high": hi, "win": lo > 0, "questions": len(ids_a)}


def best(entries: list[dict], budget: int, keep: set[str] | None = None) -> dict | None:
    scored = [(mean_recall(e, budget, keep), e["name"], e) for e in entries]
    scored = [s for s in scored if s[0] is not None]
    if not scored:
        return None
    return min(scored, key=lambda s: (-s[0], s[1]))[2]  # best recall; ties by name


def family_comparison(entries: list[dict], budgets: Sequence[int]) -> list[dict]:
    """Per retriever, mode and budget: the best evidence-aware chunk set against the best
    plain splitter, with the paired gain."""
    out = []
    groups: dict[tuple[str, str], list[dict]] = {}
    for e in entries:
        if e.get("per_question"):
            groups.setdefault((e.get("retriever", ""), e.get("mode", "")), []).append(e)
    for (retriever, mode), group in sorted(groups.items()):
        evidence = [e for e in group if e.get("family") == "evidence"]
        plain = [e for e in group if e.get("family") == "plain"]
        for budget in budgets:
            ev, pl = best(evidence, budget), best(plain, budget)
            if ev is None or pl is None:
                continue
            row = {"retriever": retriever, "mode": mode, "budget": budget,
                   "evidence": ev["name"], "evidence_recall": mean_recall(ev, budget),
                   "plain": pl["name"], "plain_recall": mean_recall(pl, budget), "plain_sets": len(plain)}
            if is_neutral(retriever):
                row["neutral"] = True
            row.update(gain(ev, pl, budget) or {})
            out.append(row)
    return out


def recommendations(entries: list[dict], budget: int, doc_types: dict[str, str],
                    mode: str = "global") -> list[dict]:
    """Per retriever and document type (``doc_types``: question id -> its documents' type):
    the token-safe evidence-aware chunk set with the best recall at ``budget``, against the
    best of every plain chunk set (a neutral retriever recommends nothing)."""
    out = []
    by_retriever: dict[str, list[dict]] = {}
    for e in entries:
        if e.get("mode") == mode and e.get("per_question") and not is_neutral(e.get("retriever", "")):
            by_retriever.setdefault(e.get("retriever", ""), []).append(e)
    types = sorted(set(doc_types.values()))
    for retriever, group in sorted(by_retriever.items()):
        evidence = [e for e in group if e.get("family") == "evidence"]
        safe = [e for e in evidence if not e.get("over_limit_fraction")]
        plain = [e for e in group if e.get("family") == "plain"]
        for t in ["all", *types] if len(types) > 1 else ["all"]:
            keep = None if t == "all" else {q for q, dt in doc_types.items() if dt == t}
            # token-safe first; with none declared, the best evidence-aware set, flagged
            pick, base = best(safe, budget, keep) or best(evidence, budget, keep), best(plain, budget, keep)
            if pick is None:
                continue
            row = {"retriever": retriever, "mode": mode, "doc_type": t, "budget": budget,
                   "recommended": pick["name"], "token_safe": not pick.get("over_limit_fraction"),
                   "recall": mean_recall(pick, budget, keep),
                   "questions": len(_recall(pick, budget, keep)[0])}
            if base is not None:
                row.update({"best_plain": base["name"], "plain_recall": mean_recall(base, budget, keep)})
                row.update(gain(pick, base, budget, keep) or {})
            out.append(row)
    return out
