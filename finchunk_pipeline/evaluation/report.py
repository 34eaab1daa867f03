"""The evaluation report: every chunk set side by side, as evaluation.json and evaluation.md."""
from __future__ import annotations

from pathlib import Path

from ..storage import write_json, write_text

HEADLINE_K = 3


def _pt(k_curve: list[dict], k: int, key: str):
    for p in k_curve:
        if p["k"] == k:
            return p[key]
    return None


def build_report(corpus: str, questions: int, entries: list[dict]) -> dict:
    """entries: one per (chunk set, retriever, mode): the chunk set's stats + RetrievalEvaluation.summary()."""
    order = sorted(entries, key=lambda e: (e.get("retriever", ""), e.get("mode", ""), e["name"]))
    return {"corpus": corpus, "questions": questions, "chunk_sets": order}


def _fmt(x, pct=True):
    if x is None:
        return "–"
    return f"{100 * x:.1f}" if pct else f"{x:,.0f}"


def render_markdown(report: dict) -> str:
    lines = [f"# Retrieval evaluation — corpus `{report['corpus']}`", "",
             f"{report['questions']} questions. Recall (%) by the corpus-format rule (a gold passage counts "
             f"when ≥ 50% of its characters are covered by the delivered chunks); chars = mean characters "
             f"of indexed text delivered.", ""]
    if not report["chunk_sets"]:
        lines.append("No chunk sets were evaluated.")
        return "\n".join(lines) + "\n"
    if not any(e.get("curve") for e in report["chunk_sets"]):
        lines.append("This corpus has no labelled questions: nothing to score. Chunk sets built:")
        lines.append("")
    lines += ["| chunk set | strategy | header | retriever | mode | chunks | mean chars | R@1 | R@3 | R@5 | R@10 | full@5 | chars@3 | chars@5 |",
              "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in report["chunk_sets"]:
        c = e.get("curve") or []
        lines.append(
            f"| {e['name']} | {e['strategy']} | {'yes' if e['header'] else 'no'} | {e.get('retriever', '–')} | "
            f"{e.get('mode', '–')} | {e['chunks']:,} | {e['mean_chars']:.0f} | {_fmt(_pt(c, 1, 'recall'))} | "
            f"{_fmt(_pt(c, 3, 'recall'))} | {_fmt(_pt(c, 5, 'recall'))} | {_fmt(_pt(c, 10, 'recall'))} | "
            f"{_fmt(_pt(c, 5, 'full_coverage'))} | {_fmt(_pt(c, 3, 'chars'), False)} | {_fmt(_pt(c, 5, 'chars'), False)} |")
    types = sorted({t for e in report["chunk_sets"] for t in (e.get("by_type") or {})})
    if types:
        lines += ["", "## Recall@5 by question type (%)", "",
                  "| chunk set | retriever | mode | " + " | ".join(types) + " |",
                  "|---|---|---|" + "---:|" * len(types)]
        for e in report["chunk_sets"]:
            bt = e.get("by_type") or {}
            lines.append(f"| {e['name']} | {e.get('retriever', '–')} | {e.get('mode', '–')} | "
                         + " | ".join(_fmt(bt[t]["recall"]) if t in bt else "–" for t in types) + " |")
    return "\n".join(lines) + "\n"


def write_report(report: dict, out_dir: str | Path) -> tuple[Path, Path]:
    out_dir = Path(out_dir)
    js = write_json(out_dir / "evaluation.json", report)
    md = write_text(out_dir / "evaluation.md", render_markdown(report))
    return js, md
