"""PNG figures of the evaluation report (matplotlib, Agg backend, imported lazily).

- recall_vs_chars.png (headline): recall against characters delivered (the budget points
  500..3000), one line per chunk set, global mode, one panel per retriever.
- recall_by_type.png: recall@5 by question type, grouped bars per chunk set (global mode).
- header_ablation.png: recall at the 1500-character budget per strategy, with vs without header.
"""
from __future__ import annotations

from pathlib import Path

from .budget import REPORT_BUDGET


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _global(report: dict) -> list[dict]:
    return [e for e in report["chunk_sets"] if e.get("mode") == "global" and e.get("curve")]


def recall_vs_chars(report: dict, path: Path) -> Path | None:
    entries = [e for e in _global(report) if e.get("budget")]
    if not entries:
        return None
    plt = _plt()
    retrievers = sorted({e["retriever"] for e in entries})
    # one colour per strategy in every panel; solid = with context header, dashed = without
    strategies = sorted({e["strategy"] for e in entries})
    palette = plt.get_cmap("tab10" if len(strategies) <= 10 else "tab20")
    colour = {st: palette(i % palette.N) for i, st in enumerate(strategies)}
    fig, axes = plt.subplots(1, len(retrievers), figsize=(6.5 * len(retrievers), 4.5), squeeze=False)
    for ax, r in zip(axes[0], retrievers):
        for e in sorted((e for e in entries if e["retriever"] == r), key=lambda e: e["name"]):
            xs = [p["chars"] for p in e["budget"]]
            ys = [100 * (p["recall"] or 0) for p in e["budget"]]
            ax.plot(xs, ys, marker="o", linestyle="-" if e["header"] else "--", label=e["name"],
                    color=colour[e["strategy"]])
        ax.set_title(f"{r}, global: recall vs characters delivered")
        ax.set_xlabel("context budget (characters of indexed text)")
        ax.set_ylabel("recall (%)")
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def recall_by_type(report: dict, path: Path) -> Path | None:
    entries = _global(report)
    types = sorted({t for e in entries for t in (e.get("by_type") or {})})
    if not entries or not types:
        return None
    plt = _plt()
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(types)), 4.5))
    width = 0.8 / len(entries)
    for i, e in enumerate(entries):
        ys = [100 * ((e["by_type"].get(t) or {}).get("recall") or 0) for t in types]
        ax.bar([j + i * width for j in range(len(types))], ys, width, label=f"{e['name']} ({e['retriever']})")
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(types))], types, rotation=20)
    ax.set_ylabel("recall@5 (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Recall@5 by question type (global)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
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
    labels = [f"{s.split(' ')[0]}\n{r}" for s, r in pairs]
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * len(labels)), 4.2))
    xs = range(len(labels))
    ax.bar([x - 0.2 for x in xs], [v[False] for v in pairs.values()], 0.4, label="no header")
    ax.bar([x + 0.2 for x in xs], [v[True] for v in pairs.values()], 0.4, label="with header")
    ax.set_xticks(list(xs), labels)
    ax.set_ylabel(f"recall at {REPORT_BUDGET} chars (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Header ablation (global)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
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
