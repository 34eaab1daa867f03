"""The evaluation report: every chunk set side by side, as the payload of evaluation.json and
the text of evaluation.md (plus PNG plots, ``plots.py``); builders/evaluation_report.py writes
them, storage/history.py holds the per chunk set recall history the regression gate reads."""
from __future__ import annotations

from typing import Sequence

from ..routing.report import routing_lines
from .budget import BUDGET_RULE, BUDGETS, REPORT_BUDGET
from .cells import at_budget, at_k, pct
from .compare import family_comparison, recommend_budget, recommendations
from .containment import SKIP_TYPES
from .generated_report import banner, generated_section
from .metrics import report_columns
from .out_of_fold import markdown as out_of_fold_lines

HEADLINE_K = 3
MODE_ORDER = {"global": 0, "filtered": 1, "routed": 2}


_pt, _bt = at_k, at_budget  # the names this module used before cells.py


def build_report(corpus: str, questions: int, entries: list[dict], excluded: dict | None = None,
                 budgets: Sequence[int] | None = None, doc_types: dict[str, str] | None = None,
                 gold_lengths: Sequence[int] | None = None) -> dict:
    """entries: one per (chunk set, retriever, mode): the chunk set's stats + RetrievalEvaluation.summary().
    Ordered by mode (global first), retriever, then recall at the recommendation budget (best
    first). ``doc_types``: question id -> its documents' type (for the per-type
    recommendation); ``gold_lengths``: the gold passages' lengths (for the recommendation
    budget). The per-question recalls the comparisons need are dropped from the result."""
    budgets = sorted(budgets or {p["chars"] for e in entries for p in e.get("budget") or []} or BUDGETS)
    rb = recommend_budget(budgets, gold_lengths or [])
    order = sorted(entries, key=lambda e: (MODE_ORDER.get(e.get("mode", ""), 9), e.get("retriever", ""),
                                           -(_bt(e.get("budget"), rb) or 0), e["name"]))
    summary = {"recommend_budget": rb, "families": family_comparison(entries, budgets),
               "recommendations": recommendations(entries, rb, doc_types or {})}
    slim = [{k: v for k, v in e.items() if k != "per_question"} for e in order]
    return {"corpus": corpus, "questions": questions, "budgets": list(budgets), "budget_rule": BUDGET_RULE,
            "summary": summary, "chunk_sets": slim,
            "excluded": excluded or {"questions_on_rejected_documents": 0, "question_ids": [], "documents": []}}


_fmt = pct


def _kb(n):
    return "–" if n is None else f"{n / 1024:,.0f}"


RULES = (
    "**Rules.** A gold passage counts as retrieved when ≥ 50% of its characters are covered by the delivered "
    "chunks' spans; unanswerable questions are left out. *Budget* (rule v2, a context assembler): chunks are "
    "taken in rank order, each paying for the characters it adds that earlier chunks did not already deliver "
    "(repeated or overlapping evidence is sent once) plus its context header the first time that header is "
    "sent, until the budget; the last chunk is cut at the budget (header first, covering nothing). Chunk sets "
    "with `expand` deliver each retrieved chunk as its bounded parent (small-to-big). *Precision / IoU*: "
    "delivered vs gold document characters at k = 5 and at 1500 characters. *Containment*: the reference answer "
    "in the delivered indexed text (numbers compared as values after removing thousands separators, currency "
    f"and %), {', '.join(sorted(SKIP_TYPES))} questions skipped. *Modes*: global = whole index; filtered = "
    "restricted to the question's documents; routed = global with the documents the query analyzer infers from "
    "the question text and the documents' metadata (a filter when confident, a boost otherwise, nothing when no "
    "issuer is named). *Gains*: paired bootstrap over questions (2,000 resamples); "
    "95% interval in brackets; a win needs the whole interval above 0.")


def _pp(x) -> str:
    return "–" if x is None else f"{100 * x:+.1f}"


def _summary_section(report: dict) -> list[str]:
    summary = report.get("summary") or {}
    fams, recs = summary.get("families") or [], summary.get("recommendations") or []
    if not fams and not recs:
        return []
    out = ["## Summary", ""]
    if recs:
        out += [f"**Recommended policy** (chosen by this evaluation: the evidence-aware, token-safe chunk set "
                f"with the best recall at {summary['recommend_budget']:,} characters, global mode; the budget "
                f"holds about three gold passages and is never under 1,500):", "",
                "| retriever | document type | questions | recommended | recall | best plain splitter | recall "
                "| gain [95% CI] | win |", "|---|---|---:|---|---:|---|---:|---|---|"]
        for r in recs:
            ci = f"{_pp(r.get('gain'))} [{_pp(r.get('ci_low'))}, {_pp(r.get('ci_high'))}]" if "gain" in r else "–"
            name = f"**{r['recommended']}**" + ("" if r.get("token_safe", True) else " (not token-safe: "
                                                  "no token-safe evidence-aware set declared)")
            out.append(f"| {r['retriever']} | {r['doc_type']} | {r['questions']} | {name} | "
                       f"{_fmt(r['recall'])} | {r.get('best_plain', '–')} | {_fmt(r.get('plain_recall'))} | {ci} | "
                       f"{'yes' if r.get('win') else 'no'} |")
        out.append("")
    plain = _plain_sets(report.get("chunk_sets") or [])
    project, neutral = [r for r in fams if not r.get("neutral")], [r for r in fams if r.get("neutral")]
    if project:
        out += [f"**Best evidence-aware policy vs best plain splitter** — the best of every plain chunk set in "
                f"this run ({plain}), per retriever, mode and budget; same questions:", ""]
        out += _family_rows(project)
    if neutral:
        names = ", ".join(f"`{n}`" for n in sorted({r["retriever"] for r in neutral}))
        out += [f"**Neutral view: what chunking alone contributes** — the same comparison under {names}: "
                "BM25Okapi over each chunk's own indexed text with the plain analyzer (lowercase, stop words; no "
                "stems, phrases or finance concepts), no document prior, no statement prior — none of the "
                "retriever levers that lift every chunk set:", ""]
        out += _family_rows(neutral)
    return out


def _plain_sets(sets: list[dict]) -> str:
    """The plain chunk sets the "best plain splitter" is chosen from, in words."""
    names = sorted({e["name"] for e in sets if e.get("family") == "plain"})
    if len(names) <= 12:
        return ", ".join(names) if names else "none"
    return f"{len(names)} sets: " + ", ".join(names[:12]) + ", …"


def _family_rows(rows: list[dict]) -> list[str]:
    out = ["| retriever | mode | budget | evidence-aware | recall | plain | recall | gain [95% CI] | win |",
           "|---|---|---:|---|---:|---|---:|---|---|"]
    for r in rows:
        ci = f"{_pp(r.get('gain'))} [{_pp(r.get('ci_low'))}, {_pp(r.get('ci_high'))}]" if "gain" in r else "–"
        out.append(f"| {r['retriever']} | {r['mode']} | {r['budget']:,} | {r['evidence']} | "
                   f"{_fmt(r['evidence_recall'])} | {r['plain']} | {_fmt(r['plain_recall'])} | {ci} | "
                   f"{'yes' if r.get('win') else 'no'} |")
    return out + [""]


def render_markdown(report: dict, plots: dict[str, str] | None = None) -> str:
    sets = report["chunk_sets"]
    lines = (_opening(report) + banner(report) + _summary_section(report)
             + out_of_fold_lines((report.get("summary") or {}).get("out_of_fold") or []) + _chunk_notes(sets))
    if not sets:
        lines.append("No chunk sets were evaluated.")
        return "\n".join(lines) + "\n"
    if not any(e.get("curve") for e in sets):
        lines.append("This corpus has no labelled questions: nothing to score. Chunk sets built:")
        lines.append("")
    budgets = report.get("budgets") or list(BUDGETS)
    lines += _budget_tables(sets, budgets)
    if plots:
        lines += ["## Plots", ""] + [f"![{name}]({path})" for name, path in plots.items()] + [""]
    lines += _k_table(sets, budgets) + _type_table(sets) + _slice_table(sets)
    lines += _point_in_time_section(report.get("point_in_time"))
    lines += _optional_sections(report)
    lines += generated_section(report, _summary_section) if report.get("gold") != "generated" else []
    return "\n".join(lines) + "\n"


def _opening(report: dict) -> list[str]:
    """The title, the rule, and the questions left out on rejected documents."""
    lines = [f"# Retrieval evaluation — corpus `{report['corpus']}`", "",
             f"{report['questions']} questions. Recall (%) by the corpus-format rule; chars = mean characters "
             f"of indexed text delivered.", "", RULES, ""]
    ex = report.get("excluded") or {}
    if ex.get("questions_on_rejected_documents"):
        ids = ex["question_ids"]
        lines += [f"**Questions on rejected documents: {ex['questions_on_rejected_documents']}** (not scored; "
                  f"documents {', '.join(ex['documents'])}; ids {', '.join(ids[:10])}"
                  f"{' …' if len(ids) > 10 else ''}). See parse_report.json.", ""]
    return lines


def _budget_tables(sets: list[dict], budgets) -> list[str]:
    """Recall at context budgets, one table per mode (the routed one with its routing lines)."""
    lines: list[str] = []
    if not any(e.get("budget") for e in sets):
        return lines
    modes = sorted({e.get("mode", "–") for e in sets}, key=lambda m: MODE_ORDER.get(m, 9))
    for mode in modes:
        rows = [e for e in sets if e.get("mode", "–") == mode and e.get("budget")]
        if not rows:
            continue
        columns = report_columns("budget", budgets)
        lines += [f"## Recall (%) at context budgets — {mode} mode", "",
                  "| chunk set | strategy | header | retriever | " + " | ".join(c.header for c in columns)
                  + " | index KB | dup× |",
                  "|---|---|---|---|" + "---:|" * (len(columns) + 2)]
        for e in rows:
            lines.append(
                f"| {_label(e)} | {e['strategy']} | {'yes' if e['header'] else 'no'} | {e.get('retriever', '–')} | "
                + " | ".join(c.cell(e) for c in columns)
                + f" | {_kb(e.get('index_bytes_retriever', e.get('index_bytes')))} | {e.get('duplication', 0):.2f} |")
        lines.append("")
        if mode == "routed":
            lines += routing_lines(rows)
    return lines


def _k_table(sets: list[dict], budgets) -> list[str]:
    columns = report_columns("k", budgets)
    lines = ["## Recall (%) at k", "",
             "| chunk set | strategy | header | retriever | mode | chunks | mean chars | "
             + " | ".join(c.header for c in columns) + " |",
             "|---|---|---|---|---|---:|---:|" + "---:|" * len(columns)]
    for e in sets:
        lines.append(
            f"| {e['name']} | {e['strategy']} | {'yes' if e['header'] else 'no'} | {e.get('retriever', '–')} | "
            f"{e.get('mode', '–')} | {e['chunks']:,} | {e['mean_chars']:.0f} | " + " | ".join(c.cell(e) for c in columns)
            + " |")
    return lines


def _type_table(sets: list[dict]) -> list[str]:
    types = sorted({t for e in sets for t in (e.get("by_type") or {})})
    if not types:
        return []
    lines = ["", "## Recall@5 by question type (%)", "",
             "| chunk set | retriever | mode | " + " | ".join(types) + " |",
             "|---|---|---|" + "---:|" * len(types)]
    for e in sets:
        bt = e.get("by_type") or {}
        lines.append(f"| {e['name']} | {e.get('retriever', '–')} | {e.get('mode', '–')} | "
                     + " | ".join(_fmt(bt[t]["recall"]) if t in bt else "–" for t in types) + " |")
    return lines


def _slice_table(sets: list[dict]) -> list[str]:
    slice_names = sorted({s for e in sets for s in (e.get("slices") or {})})
    if not slice_names:
        return []
    lines = ["", "## Difficult slices (%)", "",
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
    return lines


def _label(e: dict) -> str:
    tags = [t for t in ("baseline" if e.get("family") == "plain" else "",
                        f"expand {e['expand']:,}" if e.get("expand") else "") if t]
    return e["name"] + (f" ({', '.join(tags)})" if tags else "")


def _optional_sections(report: dict) -> list[str]:
    """Retrieval with / without enrichment (enrichment_report.py) and answers side by side
    (answers.py), when the report has them."""
    from .answers import answers_section
    from .enrichment_report import enrichment_section

    return enrichment_section(report.get("enrichment")) + answers_section(report.get("answers"))


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
