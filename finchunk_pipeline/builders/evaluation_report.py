"""The corpus's evaluation report over the stores: every declared chunk set's stored evaluation
(a damaged one warned about and left out), the resolved gold, the optional answers, the
point-in-time evaluation and the generated gold read and handed to the pure
evaluation/corpus_report.py; the report files written to the run's output folder
(evaluation.json, evaluation.md, rendered by evaluation/report.py)."""
from __future__ import annotations

from pathlib import Path

from ..evaluation.chunk_set import GENERATED, HUMAN, evaluation_file
from ..evaluation.corpus_report import GeneratedGoldEvaluations, StoredEvaluations, collect_evaluations
from ..evaluation.corpus_report import corpus_report as assemble_report
from ..evaluation.report import render_markdown
from ..storage.artefacts import read_marker, report_damage
from ..storage.files import read_json, write_json, write_text
from ..storage.gold import GoldFiles
from ..storage.workspace import Workspace
from .evaluation import gold_passages

ANSWERS_FILE = Path("answers") / "answers.json"  # the optional answers asset's output, under the corpus root
LEFT_OUT = "left out of the report until its chunk set is evaluated again"


def stored_evaluation(path: Path) -> dict | None:
    """A chunk set's stored evaluation, or None: not evaluated yet, or damaged (warned, naming
    the file)."""
    data = read_marker(path, LEFT_OUT)
    if data is not None and not isinstance(data.get("entries"), list):
        report_damage(f"{path} holds no evaluation entries", LEFT_OUT)
        return None
    return data


def stored_evaluations(ws: Workspace, configs, gold: str = HUMAN) -> StoredEvaluations:
    """The declared chunk sets' stored evaluations on one question set (evaluation.json: the
    corpus's own questions; evaluation-generated.json: the generated ones)."""
    return collect_evaluations(
        (config, stored_evaluation(ws.evaluation_dir(config.version_name) / evaluation_file(gold)))
        for config in configs)


def generated_gold_evaluations(ws: Workspace, configs) -> GeneratedGoldEvaluations | None:
    """The stored generated gold and the chunk sets' evaluations on it, or None when there is
    no generated gold or no evaluation on it."""
    files = GoldFiles(ws.generated_gold_dir)
    stored = stored_evaluations(ws, configs, GENERATED)
    if not files.exists() or not stored.entries:
        return None
    questions, passages = files.read()
    return GeneratedGoldEvaluations(questions, passages, read_json(files.marker), stored)


def corpus_report(ws: Workspace, corpus, configs, budgets, stored: StoredEvaluations,
                  pit_path: Path | None = None) -> dict:
    """The report of every declared chunk set side by side, with what else is stored."""
    answers_file = ws.root / ANSWERS_FILE
    answers = read_json(answers_file) if answers_file.exists() else None
    pit = read_json(pit_path) if pit_path is not None and pit_path.exists() else None
    return assemble_report(corpus, configs, budgets, stored, gold_passages(ws), answers, pit,
                           generated_gold_evaluations(ws, configs))


def write_report(report: dict, out_dir: str | Path, plots: dict[str, str] | None = None) -> tuple[Path, Path]:
    """evaluation.json and evaluation.md (``plots``: figure name -> the file or URI it shows)."""
    out_dir = Path(out_dir)
    js = write_json(out_dir / "evaluation.json", report)
    md = write_text(out_dir / "evaluation.md", render_markdown(report, plots))
    return js, md
