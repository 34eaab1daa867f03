"""The report's section on enrichment: recall with and without, per chunk set, per question
type and on the short-ambiguous slice (evaluation/enrichment.py defines them)."""
from __future__ import annotations

from .budget import REPORT_BUDGET
from .enrichment import ALL, CHARGED, EVIDENCE, SHORT_CHARS, SLICE

REPS = ("source", "enrichment", "fused", "concat")


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def _delta(x, base) -> str:
    return "–" if x is None or base is None else f"{100 * (x - base):+.1f}"


def _at_budget(entry: dict | None, chars: int = REPORT_BUDGET):
    for p in (entry or {}).get("budget") or []:
        if p["chars"] == chars:
            return p["recall"]
    return None


def _find(entries, retriever, rep, mode="global", delivery=EVIDENCE, scope=ALL):
    return next((e for e in entries if e["retriever"] == retriever and e["representation"] == rep
                 and e["mode"] == mode and e["delivery"] == delivery and e["scope"] == scope), None)


def enrichment_section(sets: list[dict] | None) -> list[str]:
    """``sets``: one dict per enriched chunk set: name, enricher and evaluate_enrichment's result."""
    sets = [s for s in sets or [] if s.get("entries")]
    if not sets:
        return []
    b = REPORT_BUDGET
    lines = ["", f"## Enrichment: recall (%) at {b:,} characters with and without", "",
             "Each representation ranks the same chunks: *source* = the chunk's indexed text (as without "
             "enrichment), *enrichment* = the enrichment text alone, *fused* = both rankings fused by reciprocal "
             "rank, *concat* = one index over enrichment + text. Every hit is scored by the chunk's source spans. "
             "**Budget**: the delivered context is the chunk's evidence — the enrichment is never delivered in the "
             "first columns, so a chunk costs the same whatever found it. In *+enr. delivered* the reader also gets "
             "each chunk's enrichment, charged to the budget (it covers no document characters), so fewer chunks fit.",
             "", "| chunk set | enricher | retriever | mode | source | enrichment | fused | concat | Δ fused | Δ concat "
                 "| source +enr. delivered | fused +enr. delivered | concat +enr. delivered |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sets:
        entries = s["entries"]
        for retriever in sorted({e["retriever"] for e in entries}):
            for mode in ("global", "filtered"):
                vals = {r: _at_budget(_find(entries, retriever, r, mode)) for r in REPS}
                if all(v is None for v in vals.values()):
                    continue
                charged = {r: _at_budget(_find(entries, retriever, r, mode, CHARGED)) for r in ("source", "fused", "concat")}
                lines.append(f"| {s['name']} | {s.get('describe') or s.get('enricher') or '–'} | {retriever} | {mode} | "
                             + " | ".join(_pct(vals[r]) for r in REPS)
                             + f" | {_delta(vals['fused'], vals['source'])} | {_delta(vals['concat'], vals['source'])} | "
                             + " | ".join(_pct(charged[r]) for r in ("source", "fused", "concat")) + " |")
    lines += ["", f"### Enrichment by question type (recall % at {b:,} characters, global, evidence delivered)", "",
              "| chunk set | retriever | question type | questions | source | enrichment | fused | concat | Δ fused |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for s in sets:
        entries = s["entries"]
        for retriever in sorted({e["retriever"] for e in entries}):
            src = _find(entries, retriever, "source") or {}
            for qtype, group in sorted((src.get("by_type") or {}).items()):
                vals = {r: ((_find(entries, retriever, r) or {}).get("by_type") or {}).get(qtype, {}).get("recall_at_budget")
                        for r in REPS}
                lines.append(f"| {s['name']} | {retriever} | {qtype} | {group.get('questions', 0)} | "
                             + " | ".join(_pct(vals[r]) for r in REPS) + f" | {_delta(vals['fused'], vals['source'])} |")
    lines += ["", f"### Short ambiguous chunks (recall % at {b:,} characters, global)", "",
              f"A chunk is short and ambiguous when its source text has fewer than {SHORT_CHARS} characters and does "
              "not name both its issuer (a word of the issuer's name or the ticker) and its period (fiscal year or "
              "period-end year). The slice: questions with a gold passage that only such chunks cover (≥ 50%), "
              "scored on those passages.", "",
              "| chunk set | retriever | ambiguous chunks | questions | passages | source | enrichment | fused | concat | Δ fused |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in sets:
        entries = s["entries"]
        for retriever in sorted({e["retriever"] for e in entries}):
            vals = {r: _at_budget(_find(entries, retriever, r, scope=SLICE)) for r in REPS}
            lines.append(f"| {s['name']} | {retriever} | {s.get('ambiguous_chunks', 0):,} of {s.get('chunks', 0):,} | "
                         f"{s.get('slice_questions', 0)} | {s.get('slice_passages', 0)} | "
                         + " | ".join(_pct(vals[r]) for r in REPS) + f" | {_delta(vals['fused'], vals['source'])} |")
    return lines
