"""Answers side by side: the context each chunk set retrieves for a question at the same
budget, the answer a model gives from it (when an answering endpoint is configured), and how
both compare with the reference answer.

**Context** = the chunks a retriever ranks for the question, delivered in rank order up to
the character budget by the budget rule of budget.py (the last chunk cut at the budget),
each as its indexed text (header + source: the evidence). An enrichment is never part of
the context, whatever representation ranked the chunks.

**Scoring an answer** (``score_answer``):

- numeric references (the reference contains a number): every number of the reference that
  is not a year (an integer 1900–2100) — or every number, when all are years — must be
  matched by a number of the answer within 1% (relative). Numbers are read as values by
  containment.py (thousands separators, decimal marks, currency symbols, accounting
  parentheses; absolute values); a scale word right after a number ("thousand", "million",
  "billion", "m", "mn", "bn", "k") multiplies it, and a number may match with or without its
  scale (tables state the unit once). When either side has "%" or "percent", a value may also
  match its hundredth or hundredfold (0.562 = 56.2%).
- text references: *exact* = equal after case folding, punctuation and whitespace
  normalisation; *contains* = the normalised reference occurs in the normalised answer.
  The answer is correct when it contains the reference.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from .containment import _NUM, contains_answer, normalise_text, number_values, scorable

SCALES = {"thousand": 1e3, "thousands": 1e3, "k": 1e3, "million": 1e6, "millions": 1e6, "m": 1e6, "mn": 1e6,
          "mm": 1e6, "mio": 1e6, "billion": 1e9, "billions": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12}
_AFTER = re.compile(r"\s*(%|percent\b|per cent\b|[a-z]+)", re.I)
REL_TOL = 0.01
ANSWER_PROMPT_VERSION = "1"

ANSWER_SYSTEM = ("You answer questions about financial documents using only the context given. Reply with the "
                 "answer only: a number with its unit or a short phrase, no explanation. If a calculation is "
                 "needed, give its result. If the context does not contain the answer, reply exactly: "
                 "not in context")


def answer_messages(question: str, context: str) -> list[dict]:
    return [{"role": "system", "content": ANSWER_SYSTEM},
            {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {question}"}]


@dataclass
class Quantity:
    values: set[float]      # every value the token can mean, raw and scaled
    percent: bool
    year: bool


def quantities(text: str) -> list[Quantity]:
    out = []
    for m in _NUM.finditer(str(text)):
        raw = number_values(m.group(0))
        after = _AFTER.match(text, m.end())
        word = after.group(1).lower() if after else ""
        scale = SCALES.get(word, 1.0)
        pct = word in ("%", "percent", "per cent")
        values = {v for v in raw if not math.isnan(v)}
        values |= {v * scale for v in values}
        token = m.group(0)
        year = token.isdigit() and len(token) == 4 and 1900 <= int(token) <= 2100 and scale == 1.0 and not pct
        out.append(Quantity(values, pct, year))
    return out


def _close(a: float, b: float) -> bool:
    if a == b:
        return True
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def numeric_match(answer: str, reference: str) -> bool:
    ref = quantities(reference)
    if not ref:
        return False
    wanted = [q for q in ref if not q.year] or ref
    have = quantities(answer)
    percent = any(q.percent for q in ref + have) or bool(re.search(r"percent|%", f"{answer} {reference}", re.I))

    def variants(q: Quantity) -> set[float]:
        vs = set(q.values)
        if percent:
            vs |= {v / 100 for v in q.values} | {v * 100 for v in q.values}
        return vs

    return all(any(_close(a, r) for h in have for a in variants(h) for r in q.values) for q in wanted)


def score_answer(answer: str | None, reference) -> dict:
    """{"numeric", "exact", "contains", "correct"} of a model answer against the reference."""
    if answer is None or not scorable("text", reference):
        return {"numeric": None, "exact": None, "contains": None, "correct": None}
    reference = str(reference)
    a, r = normalise_text(answer), normalise_text(reference)
    exact = bool(r) and a == r
    contains = bool(r) and f" {r} " in f" {a} "
    numeric = numeric_match(answer, reference) if quantities(reference) else None
    return {"numeric": numeric, "exact": exact, "contains": contains,
            "correct": numeric if numeric is not None else contains}


def context_containment(question_type: str, reference, context: str) -> bool | None:
    """Whether the reference answer occurs in the delivered context (containment.py's rule);
    None when not scorable (computed answers, no reference)."""
    if not scorable(question_type, reference):
        return None
    return contains_answer(reference, context)


# --- the markdown section ---------------------------------------------------------------------

def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _mark(x) -> str:
    return "–" if x is None else ("✓" if x else "✗")


def _cell(text: str, n: int) -> str:
    text = " ".join(str(text or "").split()).replace("|", "\\|")
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0] + " …"


def answers_section(data: dict | None, max_questions: int = 10, context_chars: int = 240) -> list[str]:
    """The answers side by side (answers.json of the ``answers`` asset)."""
    if not data or not data.get("columns"):
        return []
    cols = data["columns"]
    endpoint = data.get("endpoint")
    lines = ["", f"## Answers side by side ({data['sample']} questions, {data['retriever']}, "
                 f"{data['budget']:,} characters of context each)", "",
             "The same questions answered from the context each chunk set retrieves at the same budget "
             "(chunks in rank order, each as its evidence; an enrichment is never given to the reader). "
             + (f"Answers by `{endpoint['model']}`; numeric answers match within 1% after unit and scale "
                "normalisation, text answers when they contain the reference." if endpoint else
                "No answering endpoint configured (FINCHUNK_ANSWER_BASE_URL): contexts and answer containment only."),
             ""]
    if data.get("stale"):
        lines += [f"**Stale**: chunk sets changed since these answers were made ({', '.join(data['stale'])}); "
                  "materialize `answers` again.", ""]
    head = "| chunk set | representation | gold recall | answer in context |" + (" answered correctly | tokens |" if endpoint else "")
    lines += [head, "|---|---|---:|---:|" + ("---:|---:|" if endpoint else "")]
    for c in cols:
        s = c["summary"]
        row = (f"| {c['chunk_set']} | {c['representation']} | {_pct(s.get('recall'))} | "
               f"{_pct(s.get('containment'))} ({s.get('containment_questions', 0)}) |")
        if endpoint:
            row += f" {_pct(s.get('accuracy'))} ({s.get('answered', 0)}) | {s.get('tokens', 0):,} |"
        lines.append(row)
    for q in data.get("questions", [])[:max_questions]:
        lines += ["", f"**{_cell(q['question'], 200)}** ({q['question_type']}; reference: {_cell(q.get('answer'), 80)})", "",
                  "| chunk set | representation | gold recall | in context |" + (" answer | correct |" if endpoint else "")
                  + " context (start) |",
                  "|---|---|---:|:---:|" + ("---|:---:|" if endpoint else "") + "---|"]
        for c, cell in zip(cols, q["cells"]):
            row = (f"| {c['chunk_set']} | {c['representation']} | {_pct(cell.get('recall'))} | "
                   f"{_mark(cell.get('contained'))} |")
            if endpoint:
                row += f" {_cell(cell.get('answer') or cell.get('error') or '', 80)} | {_mark(cell.get('correct'))} |"
            lines.append(row + f" {_cell(cell.get('context'), context_chars)} |")
    more = len(data.get("questions", [])) - max_questions
    if more > 0:
        lines += ["", f"({more} more questions in answers.json / answers.md.)"]
    return lines


def summarise(cells: Sequence[dict]) -> dict:
    """Per column: mean gold recall, containment and (with answers) accuracy."""
    rec = [c["recall"] for c in cells if c.get("recall") is not None]
    cont = [c["contained"] for c in cells if c.get("contained") is not None]
    corr = [c["correct"] for c in cells if c.get("correct") is not None]
    return {"recall": sum(rec) / len(rec) if rec else None,
            "containment": sum(cont) / len(cont) if cont else None, "containment_questions": len(cont),
            "accuracy": sum(corr) / len(corr) if corr else None, "answered": len(corr),
            "tokens": sum(int(c.get("tokens") or 0) for c in cells),
            "mean_chars": sum(c.get("chars", 0) for c in cells) / len(cells) if cells else 0}
