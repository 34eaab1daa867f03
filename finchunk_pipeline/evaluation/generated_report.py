"""The report's part for questions generated from inline XBRL (evaluation/xbrl_gold).

- A corpus without questions of its own is reported on its generated gold: the whole report
  (summary, recommended policy, tables) is computed from it and opens by saying so.
- A corpus with both reports its own questions as always, then a section on the generated
  gold: what was generated, the generated summary, both recalls side by side per chunk set,
  and how far the two rank the chunk sets alike (Spearman's rank correlation) — a judge that
  ranks the chunk sets unlike people's questions is a judge to distrust.
"""
from __future__ import annotations

from typing import Sequence

from .cells import at_budget, pct
from .out_of_fold import markdown as out_of_fold_lines

ABOUT = ("Questions generated from the filings' own inline-XBRL facts: a tagged figure (concept, period, "
         "entity, unit) becomes a question in plain words, its gold the evidence a reader needs — the row with "
         "its table's column headers, the sentence, the note. See docs/generated-gold.md for what this gold "
         "measures and what it cannot.")


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation (average ranks for ties); None with fewer than 3 pairs or
    when one side is constant."""
    if len(a) < 3 or len(a) != len(b):
        return None

    def ranks(x: Sequence[float]) -> list[float]:
        order = sorted(range(len(x)), key=lambda i: x[i])
        r = [0.0] * len(x)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r

    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return None if va == 0 or vb == 0 else cov / (va * vb)


def side_by_side(human: list[dict], generated: list[dict], budget: int) -> dict:
    """Per (retriever, mode): each chunk set's recall at ``budget`` on both question sets, and
    the rank correlation of the two columns."""
    def table(entries):
        return {(e.get("retriever"), e.get("mode"), e["name"]): at_budget(e.get("budget"), budget)
                for e in entries if e.get("budget")}

    h, g = table(human), table(generated)
    out = []
    for retriever, mode in sorted({(r, m) for r, m, _ in h} & {(r, m) for r, m, _ in g}):
        names = sorted(n for r, m, n in h if (r, m) == (retriever, mode) and (r, m, n) in g
                       and h[(r, m, n)] is not None and g[(r, m, n)] is not None)
        rows = [{"name": n, "human": h[(retriever, mode, n)], "generated": g[(retriever, mode, n)]} for n in names]
        rho = spearman([r["human"] for r in rows], [r["generated"] for r in rows])
        out.append({"retriever": retriever, "mode": mode, "budget": budget, "spearman": rho,
                    "rows": sorted(rows, key=lambda r: -r["human"])})
    return {"budget": budget, "tables": out}


def generated_section(report: dict, summary_lines) -> list[str]:
    """Markdown for ``report["generated_gold"]`` (``summary_lines``: the report's own summary
    renderer, applied to the generated report)."""
    gen = report.get("generated_gold")
    if not gen:
        return []
    about = gen.get("about") or {}
    lines = ["## Generated gold (inline XBRL)", "", ABOUT, "", _about_line(about), ""]
    sub = gen.get("report")
    if sub:
        lines += [ln.replace("## Summary", "### Summary on generated gold", 1) for ln in summary_lines(sub)]
        lines += out_of_fold_lines(sub["summary"].get("out_of_fold") or [])
    sbs = gen.get("side_by_side") or {}
    for t in sbs.get("tables", []):
        rho = t["spearman"]
        lines += [f"**Both question sets, {t['retriever']} / {t['mode']} at {t['budget']:,} characters** — rank "
                  f"correlation of the chunk sets (Spearman) {'–' if rho is None else f'{rho:+.2f}'}:", "",
                  "| chunk set | recall, corpus questions | recall, generated |", "|---|---:|---:|"]
        lines += [f"| {r['name']} | {pct(r['human'])} | {pct(r['generated'])} |" for r in t["rows"]]
        lines.append("")
    return lines


def _about_line(about: dict) -> str:
    if not about:
        return ""
    types = ", ".join(f"{k} {v}" for k, v in (about.get("by_type") or {}).items())
    located = sum(f["located"] for f in about.get("filings", []))
    to_locate = sum(f["to_locate"] for f in about.get("filings", []))
    share = f"{100 * located / to_locate:.1f}%" if to_locate else "–"
    return (f"{about.get('questions', 0)} questions from {len(about.get('filings', []))} filings ({types}); "
            f"evidence `{about.get('evidence')}`, {about.get('per_document') or 'all'} per filing, seed "
            f"{about.get('seed')}; tagged figures located at their exact span: {located} of {to_locate} ({share}).")


def banner(report: dict) -> list[str]:
    """The opening line of a report computed on generated gold alone."""
    if report.get("gold") != "generated":
        return []
    about = (report.get("generated_gold") or {}).get("about") or {}
    return ["> **Evaluated on generated gold.** This corpus has no questions of its own: every number below "
            "(the recommended policy too) comes from questions generated from its filings' inline-XBRL facts. "
            + _about_line(about), ""]
