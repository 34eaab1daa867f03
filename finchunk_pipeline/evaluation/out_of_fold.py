"""Choosing a chunk set without grading it on the questions it was chosen on: cross-validation
by document.

The report's "best evidence-aware vs best plain splitter" picks both sides on the very
questions it then scores them on; with few questions the winner's lead is partly luck (on
financebench_dev's 58 questions a +15-20 point lead shrank to +5-7 on held-out filings).
Here the documents are split into ``k`` folds (seeded shuffle of the document ids); for each
fold, each side's best chunk set is chosen on the questions of the *other* folds' documents
and scored on this fold's questions. Every question is then scored by a set chosen without
it, and the out-of-fold gain has a paired bootstrap interval like the report's.

Plain functions over the per-question recalls of stored evaluations (``per_question`` of
each entry); bench/bench_out_of_fold.py and the report run them.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping

from .compare import paired_bootstrap

FOLDS = 4
SEED = 20261204


def document_folds(question_docs: Mapping[str, str], k: int = FOLDS, seed: int = SEED) -> dict[str, int]:
    """question id -> its fold: the documents (sorted, then shuffled with ``seed``) dealt
    round-robin into ``k`` folds, every question in its document's fold."""
    docs = sorted(set(question_docs.values()))
    random.Random(seed).shuffle(docs)
    fold_of = {d: i % k for i, d in enumerate(docs)}
    return {q: fold_of[d] for q, d in question_docs.items()}


def per_question(entry: dict, budget: int) -> dict[str, float]:
    pq = entry.get("per_question") or {}
    return dict(zip(pq.get("ids") or [], (pq.get("recall") or {}).get(str(budget)) or []))


@dataclass
class Side:
    """One side of the comparison: its candidate chunk sets' per-question recalls."""

    label: str
    recalls: dict[str, dict[str, float]]  # chunk set name -> question id -> recall

    def best(self, questions: Iterable[str]) -> str:
        qs = list(questions)
        return max(sorted(self.recalls), key=lambda n: sum(self.recalls[n].get(q, 0.0) for q in qs))


def _gain(a: list[float], b: list[float]) -> dict:
    g, lo, hi = paired_bootstrap(a, b)
    return {"a_recall": sum(a) / len(a), "b_recall": sum(b) / len(b), "gain": g, "ci_low": lo, "ci_high": hi,
            "win": lo > 0}


def compare_out_of_fold(a: Side, b: Side, question_docs: Mapping[str, str], k: int = FOLDS,
                        seed: int = SEED) -> dict | None:
    """In-sample (both sides chosen and scored on every question) and out-of-fold (chosen on
    the other folds' documents, scored on this fold's) gains of side ``a`` over side ``b``."""
    questions = sorted(q for q in question_docs if all(q in r for s in (a, b) for r in s.recalls.values()))
    if not questions or not a.recalls or not b.recalls:
        return None
    folds = document_folds({q: question_docs[q] for q in questions}, k, seed)
    best_a, best_b = a.best(questions), b.best(questions)
    in_sample = {"a": best_a, "b": best_b,
                 **_gain([a.recalls[best_a][q] for q in questions], [b.recalls[best_b][q] for q in questions])}
    oof_a, oof_b, chosen = [], [], []
    for f in range(k):
        held = [q for q in questions if folds[q] == f]
        train = [q for q in questions if folds[q] != f]
        if not held or not train:
            continue
        ca, cb = a.best(train), b.best(train)
        chosen.append({"fold": f, "questions": len(held), "a": ca, "b": cb})
        oof_a += [a.recalls[ca][q] for q in held]
        oof_b += [b.recalls[cb][q] for q in held]
    if not oof_a:  # every document in one fold: nothing is chosen without its own questions
        return None
    return {"k": k, "questions": len(questions), "documents": len(set(question_docs[q] for q in questions)),
            "in_sample": in_sample, "out_of_fold": {**_gain(oof_a, oof_b), "chosen": chosen}}


def sides(entries: list[dict], retriever: str, mode: str, budget: int,
          family_of: Callable[[dict], str | None]) -> tuple[Side, Side]:
    """The evidence-aware and plain sides of one (retriever, mode) at ``budget`` from stored
    evaluation entries (``family_of``: "evidence", "plain" or None for neither)."""
    ev, pl = Side("evidence", {}), Side("plain", {})
    for e in entries:
        if e.get("retriever") != retriever or e.get("mode") != mode:
            continue
        side = {"evidence": ev, "plain": pl}.get(family_of(e) or "")
        if side is not None:
            side.recalls[e["name"]] = per_question(e, budget)
    return ev, pl


def report_rows(entries: list[dict], question_docs: Mapping[str, str], budget: int, modes=("global", "filtered"),
                family_of: Callable[[dict], str | None] = lambda e: e.get("family"),
                skip_retriever: Callable[[str], bool] = lambda r: False, k: int = FOLDS) -> list[dict]:
    """The report's out-of-fold check of its "best evidence-aware vs best plain" at the
    recommendation budget: per retriever and mode, in-sample and out-of-fold gains."""
    out = []
    for retriever in sorted({e.get("retriever", "") for e in entries if e.get("per_question")}):
        if skip_retriever(retriever):
            continue
        for mode in modes:
            a, b = sides(entries, retriever, mode, budget, family_of)
            r = compare_out_of_fold(a, b, question_docs, k)
            if r is not None and r["documents"] >= k:
                out.append({"retriever": retriever, "mode": mode, "budget": budget, **r})
    return out


def markdown(rows: list[dict]) -> list[str]:
    """The Summary's lines for ``report_rows``."""
    if not rows:
        return []

    def pp(x):
        return f"{100 * x:+.1f}"

    out = [f"**Out of fold** — each side's best set chosen on the questions of {rows[0]['k'] - 1} of {rows[0]['k']} "
           "folds of documents and scored on the last fold's (evaluation/out_of_fold.py); an in-sample lead that "
           "does not survive here was chosen by the questions it is scored on:", "",
           "| retriever | mode | budget | questions (documents) | in sample: gain [95% CI] | out of fold: gain [95% CI] "
           "| chosen per fold (evidence-aware / plain) |", "|---|---|---:|---|---|---|---|"]
    for r in rows:
        i, o = r["in_sample"], r["out_of_fold"]
        chosen = "; ".join(f"{c['a']} / {c['b']}" for c in o["chosen"])
        out.append(f"| {r['retriever']} | {r['mode']} | {r['budget']:,} | {r['questions']} ({r['documents']}) | "
                   f"{i['a']} vs {i['b']}: {pp(i['gain'])} [{pp(i['ci_low'])}, {pp(i['ci_high'])}] | "
                   f"{pp(o['gain'])} [{pp(o['ci_low'])}, {pp(o['ci_high'])}] | {chosen} |")
    return out + [""]
