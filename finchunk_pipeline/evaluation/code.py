"""The code version of a chunk set's evaluation: a hash of the code it runs.

Evaluation reuse is keyed to this hash (evaluation/chunk_set.py): editing a metric, a
retriever or the parent expansion re-evaluates every chunk set, whether or not someone
bumps ``EVALUATION_VERSION``. Report rendering, plots, the history file and the answers
asset do not change an evaluation's results, so their modules are left out.
"""
from __future__ import annotations

from pathlib import Path

from ..code_versions import PACKAGE, code_hash

# bumped by hand only when the payload's meaning changes without any code in the sources changing
EVALUATION_VERSION = "3"

# what an evaluation runs: the metrics and this package's core, the retrievers at query time,
# (each registered one under index/entries/), the query embedder (models/embed.py and its ONNX
# backend), the query analysis (lang/), the parent expansion and the query routing (paths
# relative to finchunk_pipeline/)
EVALUATION_SOURCES = ("evaluation/*.py", "index/*.py", "index/entries/*.py", "models/embed.py",
                      "models/onnx_backend.py", "lang/*.py", "chunking/expand.py", "routing/*.py")
NOT_EVALUATION_CODE = ("evaluation/report.py", "evaluation/cells.py", "evaluation/plots.py", "evaluation/history.py",
                       "index/search.py", "evaluation/enrichment_report.py", "evaluation/answers.py")


def evaluation_source_files(root: Path = PACKAGE) -> list[Path]:
    """The source files an evaluation runs, under the package folder ``root``."""
    files = {f for pattern in EVALUATION_SOURCES for f in root.glob(pattern)}
    return sorted(f for f in files if f.relative_to(root).as_posix() not in NOT_EVALUATION_CODE)


def evaluation_code(root: Path = PACKAGE) -> str:
    """The hash of the evaluation's code under ``root`` (comments and layout aside)."""
    return code_hash(evaluation_source_files(root), root)


EVALUATION_CODE = evaluation_code()
