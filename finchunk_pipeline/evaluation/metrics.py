"""The metric registry: what the evaluation scores per question, summarises per retriever and
mode, and the report prints.

Each metric is one module declaring ``METRIC = MetricSpec(...)``; the built-in ones are listed
in ``BUILTIN`` (one line each), in the order their summaries and report columns appear.
``recall`` is the base metric: its per-question scores (recall.QuestionScore) say which
questions are answerable and their type, which every other metric's summary reads.

A metric declares:

- ``score(question)``: its value for one question's delivered chunks (``QuestionRun``);
- ``summarize(scored)``: the entries it adds to a retriever x mode summary (evaluation.json);
- ``group(pairs)``: the entries it adds to a group of questions (by question type, slices);
- ``columns(table, budgets)``: its columns in the report's "budget" and "k" tables.

``register`` / ``unregister`` add one at run time (tests, plug-ins outside the package).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .assembler import deliver

# the built-in metrics: modules under evaluation/, each declaring METRIC
BUILTIN = ("recall", "budget", "precision", "containment")
BASE = "recall"
REPORT_K = 5          # whole chunks: the k of precision, containment and the per-type tables
TABLES = ("budget", "k")  # the report's tables: recall at context budgets, recall at k


@dataclass(frozen=True)
class QuestionRun:
    """One question and the chunks a retriever delivered for it, best first."""

    question_id: str
    question_type: str
    gold: Sequence[tuple[str, int, int]]   # (doc_id, start, end) of each gold passage
    delivered: Sequence[Any]               # budget.DeliveredChunk
    answer: Any = None
    language: str | None = None            # the question's documents' language
    budgets: Sequence[int] = ()
    max_k: int = 50
    # budget -> the chunks as delivered in a context of that budget, where that differs from
    # ``delivered`` (parents of at most a third of the budget: expander.py)
    at_budget: dict = field(default_factory=dict)
    _deliveries: dict = field(default_factory=dict, compare=False, repr=False)

    def delivered_at(self, budget: int | None) -> Sequence[Any]:
        """The chunks as delivered in a context of ``budget`` characters (None: the top k)."""
        return self.at_budget.get(budget, self.delivered) if budget is not None else self.delivered

    def delivery(self, k: int | None = None, budget: int | None = None):
        """``assembler.deliver`` of this question's chunks for the top ``k`` or a ``budget``,
        assembled once however many metrics read it (precision, containment)."""
        if (k, budget) not in self._deliveries:
            self._deliveries[(k, budget)] = deliver(self.delivered_at(budget), budget=budget, k=k)
        return self._deliveries[(k, budget)]


@dataclass(frozen=True)
class Scored:
    """A retriever x mode's per-question values of one metric, with the base metric's scores
    (recall.QuestionScore: answerable = n_gold > 0, question_type) in the same order."""

    scores: Sequence[Any]
    values: Sequence[Any]
    budgets: Sequence[int] = ()
    max_k: int = 50

    def answerable(self) -> list[tuple[Any, Any]]:
        return [(s, v) for s, v in zip(self.scores, self.values) if s.n_gold > 0]


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[dict], str]   # a report entry (one chunk set x retriever x mode) -> the printed cell


def _no_group(pairs) -> dict:
    return {}


def _no_columns(table: str, budgets: Sequence[int]) -> list[Column]:
    return []


@dataclass(frozen=True)
class MetricSpec:
    name: str
    score: Callable[[QuestionRun], Any]
    summarize: Callable[[Scored], dict]
    group: Callable[[list[tuple[Any, Any]]], dict] = _no_group   # (base score, value) pairs of a group
    columns: Callable[[str, Sequence[int]], list[Column]] = _no_columns
    needs_questions: bool = True   # False: summarised even when there are no questions (the base)


_REGISTRY: dict[str, MetricSpec] = {}


def _load_builtin() -> None:
    for module_name in BUILTIN:
        if module_name in _REGISTRY:
            continue
        try:
            module = importlib.import_module(f"{__package__}.{module_name}")
        except ImportError as exc:
            raise ImportError(f"built-in metric module {__package__}.{module_name} failed to import: {exc}") from exc
        _REGISTRY.setdefault(module.METRIC.name, module.METRIC)


def register(spec: MetricSpec) -> None:
    """Add (or replace) a metric; it is scored, summarised and reported after the built-in ones."""
    _load_builtin()
    _REGISTRY[spec.name] = spec


def unregister(name: str) -> None:
    if name == BASE:
        raise ValueError(f"{BASE!r} is the base metric and cannot be removed")
    _REGISTRY.pop(name, None)


def metrics() -> dict[str, MetricSpec]:
    """Every registered metric by name, the base first, in report order."""
    _load_builtin()
    return dict(_REGISTRY)


def report_columns(table: str, budgets: Sequence[int]) -> list[Column]:
    """The columns every metric adds to one of the report's tables, in registry order."""
    if table not in TABLES:
        raise ValueError(f"unknown report table {table!r}; known: {TABLES}")
    return [c for spec in metrics().values() for c in spec.columns(table, budgets)]
