"""The report's plots fit the Dagster UI's Markdown dialog (~1,280 px; it shows an image at its
natural width): with the default corpus's 3 retrievers, 21 chunk sets and 11 question types
they were 2,310 px (recall vs budget) and 4,983 px (recall by type) wide, cut off at the
dialog's edge. Checked on the Markdown the UI receives (PNG data: URIs)."""
from __future__ import annotations

import base64
import re

from finchunk_pipeline.assets.evaluation import png_data_uri
from finchunk_pipeline.evaluation.plots import DPI, MAX_WIDTH_IN, write_plots
from finchunk_pipeline import build_report, render_markdown

DIALOG_PX = 1280
IMAGE = re.compile(r"!\[([^\]]*)\]\((data:image/png;base64,[^)]+)\)")
RETRIEVERS = ("bm25", "dense", "hybrid")
TYPES = [f"type-{i}" for i in range(11)]
STRATEGIES = ["fixed", "recursive", "structure", "packed", "auto", "sentence", "paragraph", "semantic",
              "evidence", "fixed_tokens", "langchain"]


def _entry(name: str, strategy: str, header: bool, retriever: str, r: float) -> dict:
    budgets = (500, 1000, 1500, 2000, 3000, 5000, 8000)
    return {
        "name": name, "strategy": strategy, "params": {"size": 500}, "header": header, "chunks": 10,
        "mean_chars": 400.0, "duplication": 1.2, "index_bytes": 2048, "retriever": retriever, "mode": "global",
        "family": "plain" if strategy in ("fixed", "recursive", "langchain") else "evidence",
        "curve": [{"k": k, "recall": min(1.0, r * k), "full_coverage": r, "chars": 400 * k} for k in range(1, 11)],
        "budget": [{"chars": b, "recall": min(1.0, r * b / 1500), "full_coverage": r, "delivered": b} for b in budgets],
        "by_type": {t: {"k": 5, "recall": (r + i / 50) % 1, "full_coverage": r, "questions": 3}
                    for i, t in enumerate(TYPES)},
    }


def _wide_report() -> dict:
    """As many panels, rows and columns as the default corpus's report (more chunk sets)."""
    entries = []
    for i, strategy in enumerate(STRATEGIES):
        for header in (False, True):
            name = f"{strategy}{'-h' if header else ''}-with-a-long-chunk-set-name"
            entries += [_entry(name, strategy, header, r, 0.2 + 0.03 * i + 0.05 * header) for r in RETRIEVERS]
    return build_report("c", 4, entries)


def _png_width(data: bytes) -> int:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(data[16:20], "big")  # IHDR: width, then height


def test_plots_in_the_ui_markdown_fit_the_dialog(tmp_path):
    report = _wide_report()
    plots = write_plots(report, tmp_path)
    assert set(plots) == {"recall_vs_chars", "recall_by_type", "header_ablation"}
    # the Markdown metadata evaluation_report attaches (assets/evaluation.py)
    md = render_markdown(report, {k: png_data_uri(v) for k, v in plots.items()})
    widths = {alt: _png_width(base64.b64decode(uri.split(",", 1)[1])) for alt, uri in IMAGE.findall(md)}
    assert set(widths) == set(plots)
    assert all(0 < w <= MAX_WIDTH_IN * DPI < DIALOG_PX for w in widths.values()), widths
