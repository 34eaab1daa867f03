"""evaluation.json / evaluation.md layout and the PNG plots."""
import json

from finchunk_pipeline.evaluation.plots import write_plots
from finchunk_pipeline import build_report, render_markdown
from finchunk_pipeline.builders.evaluation_report import write_report
from finchunk_pipeline.storage.history import append_history, read_history


def _entry(name, strategy, header, mode, r):
    return {
        "name": name, "strategy": strategy, "params": {"size": 500}, "header": header, "chunks": 10,
        "mean_chars": 400.0, "duplication": 1.2, "index_bytes": 2048, "retriever": "bm25", "mode": mode,
        "curve": [{"k": k, "recall": min(1, r * k), "full_coverage": r, "chars": 400 * k} for k in range(1, 11)],
        "by_type": {"table": {"k": 5, "recall": r, "full_coverage": r, "questions": 3}},
        "budget": [{"chars": b, "recall": min(1, r * b / 1000), "full_coverage": r, "delivered": b}
                   for b in (500, 1000, 1500, 2000, 3000)],
        "precision": {"k": 5, "value": 0.1, "chars": 1500, "value_at_budget": 0.2},
        "iou": {"k": 5, "value": 0.1, "chars": 1500, "value_at_budget": 0.15},
        "answer_containment": {"k": 5, "value": 0.5, "chars": 1500, "value_at_budget": 0.4, "questions": 3},
        "slices": {"tables": {"questions": 3, "recall": r, "recall_at_budget": r, "answer_containment": 0.5}},
    }


def _report():
    return build_report("c", 4, [_entry("fixed-h", "fixed", True, "filtered", 0.5),
                                 _entry("fixed", "fixed", False, "global", 0.2),
                                 _entry("fixed-h", "fixed", True, "global", 0.4)])


def test_report_orders_global_first_and_headline_is_budget_table(tmp_path):
    report = _report()
    assert [e["mode"] for e in report["chunk_sets"]] == ["global", "global", "filtered"]
    md = render_markdown(report)
    first_table = md.index("| chunk set |")
    assert md.index("## Recall (%) at context budgets — global mode") < first_table
    assert md.index("global mode") < md.index("filtered mode") < md.index("## Recall (%) at k")
    assert "R@500ch | R@1000ch | R@1500ch | R@2000ch | R@3000ch" in md
    assert "## Difficult slices" in md and "## Recall@5 by question type" in md
    js, mdp = write_report(report, tmp_path, {"recall_vs_chars": "recall_vs_chars.png"})
    data = json.loads(js.read_text())
    e = data["chunk_sets"][0]
    for key in ("name", "strategy", "header", "chunks", "mean_chars", "curve", "by_type", "retriever", "mode",
                "budget", "precision", "iou", "answer_containment"):
        assert key in e
    assert "![recall_vs_chars](recall_vs_chars.png)" in mdp.read_text()


def test_plots_written(tmp_path):
    plots = write_plots(_report(), tmp_path)
    assert set(plots) == {"recall_vs_chars", "recall_by_type", "header_ablation"}
    for p in plots.values():
        assert open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_empty_report_renders():
    assert "No chunk sets" in render_markdown(build_report("c", 0, []))
    assert write_plots(build_report("c", 0, []), "/tmp") == {}


def test_history_roundtrip(tmp_path):
    e = _entry("fixed", "fixed", False, "global", 0.2)
    append_history(tmp_path, "fixed", "fixed-abc", [e])
    append_history(tmp_path, "fixed", "fixed-abc", [e])
    h = read_history(tmp_path, "fixed")
    assert len(h) == 2 and h[-1]["recall@5"] == {"bm25/global": 1.0}
