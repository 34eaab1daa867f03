"""The corpus's evaluation report over the stores: the report files written to the run's output
folder (evaluation.json, evaluation.md). The report itself is assembled and rendered by the
pure evaluation/report.py."""
from __future__ import annotations

from pathlib import Path

from ..evaluation.report import render_markdown
from ..storage.files import write_json, write_text


def write_report(report: dict, out_dir: str | Path, plots: dict[str, str] | None = None) -> tuple[Path, Path]:
    """evaluation.json and evaluation.md (``plots``: figure name -> the file or URI it shows)."""
    out_dir = Path(out_dir)
    js = write_json(out_dir / "evaluation.json", report)
    md = write_text(out_dir / "evaluation.md", render_markdown(report, plots))
    return js, md
