"""The code version of a chunk set's evaluation: a hash of the code it runs.

Evaluation reuse is keyed to this hash (builders/evaluation.py): editing a metric, a retriever,
the parent expansion or the scoring scope re-evaluates every chunk set, whether or not someone
bumps ``EVALUATION_VERSION``. The code is found by following imports
(``code_versions.import_closure``) from the evaluation as builders/evaluation.py runs it over the
stores, and from the modules the registries load by name (the built-in metrics, the built-in
retrievers), so no list of files or folders is kept here: a module the evaluation starts to
import counts from then on, wherever it lives. Left out (and not followed): the storage layer
(what it reads is in the evaluation's key by content) and what only renders or records results
(report, plots, history, the answers asset, search).
"""
from __future__ import annotations

from pathlib import Path

from ..code_versions import PACKAGE, code_hash, import_closure
from ..index.registry import BUILTIN as BUILTIN_RETRIEVERS
from .metrics import BUILTIN as BUILTIN_METRICS

# bumped by hand only when the payload's meaning changes without any code in the sources changing
EVALUATION_VERSION = "3"

_PKG = PACKAGE.name
# what runs an evaluation: a chunk set's evaluation over the stores, and what the registries
# import by name
EVALUATION_MODULES = (f"{_PKG}.builders.evaluation",
                      *(f"{_PKG}.evaluation.{m}" for m in BUILTIN_METRICS),
                      *(f"{_PKG}.index.entries.{m}" for m in BUILTIN_RETRIEVERS))
# what an evaluation imports that does not change its results
NOT_EVALUATION_CODE = tuple(f"{_PKG}.{m}" for m in (
    "storage", "evaluation.report", "evaluation.cells", "evaluation.plots", "evaluation.history",
    "evaluation.enrichment_report", "evaluation.answers", "index.search"))


def evaluation_source_files(root: Path = PACKAGE) -> list[Path]:
    """The source files an evaluation runs, under the package folder ``root``."""
    return import_closure(EVALUATION_MODULES, root, leave_out=NOT_EVALUATION_CODE)


def evaluation_code(root: Path = PACKAGE) -> str:
    """The hash of the evaluation's code under ``root`` (comments and layout aside)."""
    return code_hash(evaluation_source_files(root), root)


EVALUATION_CODE = evaluation_code()
