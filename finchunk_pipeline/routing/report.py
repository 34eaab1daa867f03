"""The routing accuracy lines of the evaluation report (evaluation/report.py)."""
from __future__ import annotations


def _pct(x) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def routing_lines(entries: list[dict]) -> list[str]:
    """One paragraph for the routed mode: routing does not depend on the chunk set nor the
    retriever (the same questions, the same documents' metadata), so the first entry's
    routing summary speaks for all of them."""
    r = next((e["routing"] for e in entries if e.get("routing")), None)
    if not r:
        return []
    misses = r.get("misses") or []
    return [
        f"**Routing** (analyzer v{r['version']}): the route kept the question's documents for "
        f"**{_pct(r['accuracy'])}** of {r['questions']} questions ({_pct(r['accuracy_routed'])} of the "
        f"{r['routed']} routed: {r['filter']} filtered, {r['boost']} boosted; {r['none']} named no issuer and "
        f"were searched globally"
        + (f"; {r['mean_documents']:.1f} documents per route on average" if r.get("mean_documents") else "")
        + ")." + (f" Misses: {', '.join(misses[:10])}{' …' if len(misses) > 10 else ''}." if misses else ""),
        "",
    ]
