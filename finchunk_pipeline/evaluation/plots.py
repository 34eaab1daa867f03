"""PNG figures of the evaluation report (matplotlib, Agg backend, imported lazily).

- recall_vs_chars.png (headline): recall against the context budget, global mode, one panel
  per retriever; the best evidence-aware chunk sets (solid) and the best plain splitters
  (dashed) in colour and named, every other chunk set a thin grey line.
- recall_by_type.png: recall@5 by question type as a heat map (chunk sets x types, the value
  in each cell), global mode, one panel per retriever: readable with any number of sets.
- header_ablation.png: recall at the 1500-character budget per strategy, with vs without header.

Every figure is at most ``MAX_WIDTH_IN`` x ``DPI`` = 1,100 px wide, whatever the number of
retrievers, chunk sets or question types: panels go in rows of two (one heat map a row), so
the Dagster UI's Markdown dialog (~1,280 px, images at their natural width) shows them whole —
one panel per retriever side by side made 2,310-4,983 px, cut off at the dialog's edge.
"""
from __future__ import annotations

from pathlib import Path

from .budget import REPORT_BUDGET

HIGHLIGHT_EVIDENCE = 4
HIGHLIGHT_PLAIN = 2
DPI = 110
MAX_WIDTH_IN = 10.0  # 1,100 px at DPI
PANELS_PER_ROW = 2


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _global(report: dict) -> list[dict]:
    return [e for e in report["chunk_sets"] if e.get("mode") == "global" and e.get("curve")]


def _at(e: dict, chars: int) -> float:
    return next((p["recall"] or 0 for p in e.get("budget") or [] if p["chars"] == chars), 0.0)


def recall_vs_chars(report: dict, path: Path) -> Path | None:
    entries = [e for e in _global(report) if e.get("budget")]
    if not entries:
        return None
    plt = _plt()
    budget = (report.get("summary") or {}).get("recommend_budget") or REPORT_BUDGET
    retrievers = sorted({e["retriever"] for e in entries})
    cols = min(PANELS_PER_ROW, len(retrievers))
    rows = -(-len(retrievers) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(min(MAX_WIDTH_IN, 6.4 * cols), 4.4 * rows), squeeze=False)
    for ax in axes.flat[len(retrievers):]:
        ax.set_visible(False)
    palette = plt.get_cmap("tab10")
    for ax, r in zip(axes.flat, retrievers):
        mine = sorted((e for e in entries if e["retriever"] == r), key=lambda e: -_at(e, budget))
        shown = ([e for e in mine if e.get("family") == "evidence"][:HIGHLIGHT_EVIDENCE]
                 + [e for e in mine if e.get("family") == "plain"][:HIGHLIGHT_PLAIN])
        names = {e["name"] for e in shown}
        for e in mine:
            if e["name"] in names:
                continue
            ax.plot([p["chars"] for p in e["budget"]], [100 * (p["recall"] or 0) for p in e["budget"]],
                    color="0.8", linewidth=0.8, zorder=1)
        for i, e in enumerate(shown):
            ax.plot([p["chars"] for p in e["budget"]], [100 * (p["recall"] or 0) for p in e["budget"]],
                    marker="o", markersize=3, linestyle="-" if e.get("family") == "evidence" else "--",
                    color=palette(i % 10), label=f"{e['name']}{' (baseline)' if e.get('family') == 'plain' else ''}",
                    zorder=2)
        ax.set_xscale("log")
        ticks = sorted({p["chars"] for e in mine for p in e["budget"]})  # the budgets, not 6x10^2 ...
        ax.set_xticks(ticks, [f"{t:,}" for t in ticks], fontsize=7)
        ax.set_xticks([], minor=True)
        ax.set_title(f"{r}, global: recall vs budget (grey: other sets)", fontsize=10)
        ax.set_xlabel("context budget (characters delivered, log scale)", fontsize=9)
        ax.set_ylabel("recall (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def recall_by_type(report: dict, path: Path) -> Path | None:
    entries = _global(report)
    types = sorted({t for e in entries for t in (e.get("by_type") or {})})
    if not entries or not types:
        return None
    plt = _plt()
    retrievers = sorted({e["retriever"] for e in entries})
    per = {r: sorted((e for e in entries if e["retriever"] == r), key=lambda e: e["name"]) for r in retrievers}
    rows = max(len(v) for v in per.values())
    # one heat map a row: its columns (question types) and labels need the width
    fig, axes = plt.subplots(len(retrievers), 1, figsize=(min(MAX_WIDTH_IN, max(6, 0.75 * len(types) + 3)),
                                                          (0.3 * rows + 1.8) * len(retrievers)), squeeze=False)
    for ax, r in zip(axes.flat, retrievers):
        sets = per[r]
        grid = [[100 * (((e.get("by_type") or {}).get(t) or {}).get("recall") or 0) for t in types] for e in sets]
        im = ax.imshow(grid, cmap="viridis", vmin=0, vmax=100, aspect="auto")
        ax.set_xticks(range(len(types)), types, rotation=30, ha="right", fontsize=8)
        ax.set_yticks(range(len(sets)), [e["name"] for e in sets], fontsize=8)
        for i, row in enumerate(grid):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=7,
                        color="white" if v < 55 else "black")
        ax.set_title(f"recall@5 by question type ({r}, global)")
        fig.colorbar(im, ax=ax, fraction=0.03)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def header_ablation(report: dict, path: Path) -> Path | None:
    entries = [e for e in _global(report) if e.get("budget")]
    pairs: dict[tuple[str, str], dict[bool, float]] = {}
    for e in entries:
        key = (f"{e['strategy']} {e.get('params') or ''}"[:60], e["retriever"])
        pt = next((p for p in e["budget"] if p["chars"] == REPORT_BUDGET), None)
        if pt is not None:
            pairs.setdefault(key, {})[bool(e["header"])] = 100 * (pt["recall"] or 0)
    pairs = {k: v for k, v in pairs.items() if len(v) == 2}
    if not pairs:
        return None
    plt = _plt()
    crowded = 1.5 * len(pairs) > MAX_WIDTH_IN  # more pairs than fit side by side at full size
    labels = [f"{s.split(' ')[0]}{' · ' if crowded else chr(10)}{r}" for s, r in pairs]
    fig, ax = plt.subplots(figsize=(min(MAX_WIDTH_IN, max(6, 1.5 * len(labels))), 4.2))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], [v[False] for v in pairs.values()], 0.4, label="no header")
    ax.bar([x + 0.2 for x in xs], [v[True] for v in pairs.values()], 0.4, label="with header")
    ax.set_xticks(list(xs), labels, fontsize=7 if crowded else None, rotation=60 if crowded else 0,
                  ha="right" if crowded else "center", rotation_mode="anchor")
    ax.set_ylabel(f"recall at {REPORT_BUDGET} chars (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Header ablation (global)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def write_plots(report: dict, out_dir: str | Path) -> dict[str, str]:
    """Writes what the report supports; returns {name: path} of the figures written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, fn in (("recall_vs_chars", recall_vs_chars), ("recall_by_type", recall_by_type),
                     ("header_ablation", header_ablation)):
        p = fn(report, out_dir / f"{name}.png")
        if p is not None:
            out[name] = str(p)
    return out
