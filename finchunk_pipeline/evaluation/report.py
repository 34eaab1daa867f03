"""The evaluation report: every chunk set side by side, as evaluation.json and evaluation.md
(plus PNG plots, ``plots.py``), and the per chunk set recall history the regression gate reads."""
from __future__ import annotations

from pathlib import Path

from ..routing.report import routing_lines
from ..storage import write_json, write_text
from .budget import BUDGETS, REPORT_BUDGET
from .containment import SKIP_TYPES

HEADLINE_K = 3
MODE_ORDER = {"global": 0, "filtered": 1, "expanded": 2, "routed": 3}


def _pt(k_curve: list[dict], k: int, key: str):
    for p in k_curve:
        if p["k"] == k:
            return p[key]
    return None


def _bt(b_curve: list[dict], chars: int, key: str = "recall"):
    for p in b_curve or []:
        if p["chars"] == chars:
            return p[key]
    return None


def build_report(corpus: str, questions: int, entries: list[dict], excluded: dict | None = None) -> dict:
    """entries: one per (chunk set, retriever, mode): the chunk set's stats + RetrievalEvaluation.summary().
    Ordered global mode first, then filtered, then expanded; by retriever, then chunk set."""
    order = sorted(entries, key=lambda e: (MODE_ORDER.get(e.get("mode", ""), 9), e.get("retriever", ""), e["name"]))
    return {"corpus": corpus, "questions": questions, "budgets": list(BUDGETS), "chunk_sets": order,
            "excluded": excluded or {"questions_on_rejected_documents": 0, "question_ids": [], "documents": []}}


def _fmt(x, pct=True):
    if x is None:
        return "–"
    return f"{100 * x:.1f}" if pct else f"{x:,.0f}"


def _kb(n):
    return "–" if n is None else f"{n / 1024:,.0f}"


RULES = (
    "**Rules.** A gold passage counts as retrieved when ≥ 50% of its characters are covered by the delivered "
    "chunks' spans; unanswerable questions are left out. *Budget*: chunks are delivered in rank order, costing "
    "their indexed characters (header + text), until the budget; the last chunk is cut at the budget and credits "
    "only the prefix of its spans within budget (its header first, covering nothing). *Precision / IoU*: "
    "delivered vs gold document characters at k = 5 and at 1500 characters. *Containment*: the reference answer "
    "in the delivered indexed text (numbers compared as values after removing thousands separators, currency "
    f"and %), {', '.join(sorted(SKIP_TYPES))} questions skipped. *Modes*: global = whole index; filtered = "
    "restricted to the question's documents; expanded = global with bounded parent expansion; routed = global "
    "with the documents the query analyzer infers from the question text and the documents' metadata (a filter "
    "when confident, a boost otherwise, nothing when no issuer is named).")


def render_markdown(report: dict, plots: dict[str, str] | None = None) -> str:
    lines = [f"# Retrieval evaluation — corpus `{report['corpus']}`", "",
             f"{report['questions']} questions. Recall (%) by the corpus-format rule; chars = mean characters "
             f"of indexed text delivered.", "", RULES, ""]
    ex = report.get("excluded") or {}
    if ex.get("questions_on_rejected_documents"):
        ids = ex["question_ids"]
        lines += [f"**Questions on rejected documents: {ex['questions_on_rejected_documents']}** (not scored; "
                  f"documents {', '.join(ex['documents'])}; ids {', '.join(ids[:10])}"
                  f"{' …' if len(ids) > 10 else ''}). See parse_report.json.", ""]
    sets = report["chunk_sets"]
    lines += _chunk_notes(sets)
    if not sets:
        lines.append("No chunk sets were evaluated.")
        return "\n".join(lines) + "\n"
    if not any(e.get("curve") for e in sets):
        lines.append("This corpus has no labelled questions: nothing to score. Chunk sets built:")
        lines.append("")
    modes = sorted({e.get("mode", "–") for e in sets}, key=lambda m: MODE_ORDER.get(m, 9))
    if any(e.get("budget") for e in sets):
        for mode in modes:
            rows = [e for e in sets if e.get("mode", "–") == mode and e.get("budget")]
            if not rows:
                continue
            lines += [f"## Recall (%) at context budgets — {mode} mode", "",
                      "| chunk set | strategy | header | retriever | " + " | ".join(f"R@{b}ch" for b in BUDGETS)
                      + f" | full@{REPORT_BUDGET}ch | prec@{REPORT_BUDGET}ch | IoU@{REPORT_BUDGET}ch "
                        f"| answer@{REPORT_BUDGET}ch | index KB | dup× |",
                      "|---|---|---|---|" + "---:|" * (len(BUDGETS) + 6)]
            for e in rows:
                lines.append(
                    f"| {e['name']} | {e['strategy']} | {'yes' if e['header'] else 'no'} | {e.get('retriever', '–')} | "
                    + " | ".join(_fmt(_bt(e['budget'], b)) for b in BUDGETS)
                    + f" | {_fmt(_bt(e['budget'], REPORT_BUDGET, 'full_coverage'))}"
                    f" | {_fmt((e.get('precision') or {}).get('value_at_budget'))}"
                    f" | {_fmt((e.get('iou') or {}).get('value_at_budget'))}"
                    f" | {_fmt((e.get('answer_containment') or {}).get('value_at_budget'))}"
                    f" | {_kb(e.get('index_bytes_retriever', e.get('index_bytes')))} | {e.get('duplication', 0):.2f} |")
            lines.append("")
            if mode == "routed":
                lines += routing_lines(rows)
    if plots:
        lines += ["## Plots", ""] + [f"![{name}]({path})" for name, path in plots.items()] + [""]
    lines += ["## Recall (%) at k", "",
              "| chunk set | strategy | header | retriever | mode | chunks | mean chars | R@1 | R@3 | R@5 | R@10 | full@5 "
              "| chars@3 | chars@5 | prec@5 | IoU@5 | answer@5 |",
              "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in sets:
        c = e.get("curve") or []
        lines.append(
            f"| {e['name']} | {e['strategy']} | {'yes' if e['header'] else 'no'} | {e.get('retriever', '–')} | "
            f"{e.get('mode', '–')} | {e['chunks']:,} | {e['mean_chars']:.0f} | {_fmt(_pt(c, 1, 'recall'))} | "
            f"{_fmt(_pt(c, 3, 'recall'))} | {_fmt(_pt(c, 5, 'recall'))} | {_fmt(_pt(c, 10, 'recall'))} | "
            f"{_fmt(_pt(c, 5, 'full_coverage'))} | {_fmt(_pt(c, 3, 'chars'), False)} | {_fmt(_pt(c, 5, 'chars'), False)} | "
            f"{_fmt((e.get('precision') or {}).get('value'))} | {_fmt((e.get('iou') or {}).get('value'))} | "
            f"{_fmt((e.get('answer_containment') or {}).get('value'))} |")
    types = sorted({t for e in sets for t in (e.get("by_type") or {})})
    if types:
        lines += ["", "## Recall@5 by question type (%)", "",
                  "| chunk set | retriever | mode | " + " | ".join(types) + " |",
                  "|---|---|---|" + "---:|" * len(types)]
        for e in sets:
            bt = e.get("by_type") or {}
            lines.append(f"| {e['name']} | {e.get('retriever', '–')} | {e.get('mode', '–')} | "
                         + " | ".join(_fmt(bt[t]["recall"]) if t in bt else "–" for t in types) + " |")
    slice_names = sorted({s for e in sets for s in (e.get("slices") or {})})
    if slice_names:
        lines += ["", "## Difficult slices (%)", "",
                  "tables = table, table_and_note, filing_period, table_and_text; footnotes = footnote, "
                  "table_and_note, text_and_note, proxy_footnote.", "",
                  "| chunk set | retriever | mode | " + " | ".join(
                      f"{s} n | {s} R@5 | {s} R@{REPORT_BUDGET}ch | {s} answer@5" for s in slice_names) + " |",
                  "|---|---|---|" + "---:|" * (4 * len(slice_names))]
        for e in sets:
            sl = e.get("slices") or {}
            cells = []
            for s in slice_names:
                g = sl.get(s) or {}
                cells += [str(g.get("questions", 0)), _fmt(g.get("recall")), _fmt(g.get("recall_at_budget")),
                          _fmt(g.get("answer_containment"))]
            lines.append(f"| {e['name']} | {e.get('retriever', '–')} | {e.get('mode', '–')} | " + " | ".join(cells) + " |")
    lines += _point_in_time_section(report.get("point_in_time"))
    return "\n".join(lines) + "\n"


def _chunk_notes(sets: list[dict]) -> list[str]:
    """One line per chunk set whose chunks broke their strategy's size bound, or that a
    strategy or the shared chunking step had to treat specially (semantic tables, ...)."""
    out, seen = [], set()
    for e in sets:
        if e["name"] in seen:
            continue
        seen.add(e["name"])
        parts = []
        if e.get("over_bound"):
            parts.append(f"**{e['over_bound']} chunks over the bound of {e.get('char_bound')} characters**")
        for key, value in (e.get("notes") or {}).items():
            parts.append(f"{key}: {value['count']}")
        if parts:
            out.append(f"- `{e['name']}`: " + "; ".join(parts))
    return (["**Chunking notes** (see the chunk_sets metadata for examples):", "", *out, ""]) if out else []


def _point_in_time_section(pit: dict | None) -> list[str]:
    """Point-in-time questions are answered from XBRL facts, not from retrieved text."""
    if not pit or not pit.get("total"):
        return []
    return ["", "## Point-in-time questions answered from XBRL facts", "",
            "Each answer is the value filed on or before the question's as_of date (no look-ahead).", "",
            "| questions | correct | exact-match accuracy | not parsed |", "|---:|---:|---:|---:|",
            f"| {pit['total']} | {pit['correct']} | {_fmt(pit['accuracy'])} | {pit['unparsed']} |"]


def write_report(report: dict, out_dir: str | Path, plots: dict[str, str] | None = None) -> tuple[Path, Path]:
    out_dir = Path(out_dir)
    js = write_json(out_dir / "evaluation.json", report)
    md = write_text(out_dir / "evaluation.md", render_markdown(report, plots))
    return js, md


# --- recall history: moved to history.py (one atomic file per record) ------------------------
from .history import append_history, history_path, history_record, read_history  # noqa: E402,F401
