"""Evaluate one chunk set: its stored chunks, indexes and the corpus's questions -> the
payload of its evaluation.json, reused while nothing it reads has changed.

Plain functions, no Dagster: the ``retrieval_evaluation`` asset (assets/evaluation.py)
reads its configuration, calls ``evaluate_chunk_set`` and attaches metadata. The key of an
evaluation (``evaluation_key``) is computed from everything it reads: the chunk set's key,
the index markers' keys, the questions / passages / resolved gold files, the retrievers,
the model, the expansion, the budgets, the routing catalogue, an enrichment's key and the
code version of the evaluation code (evaluation/code.py).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pandas as pd
import pyarrow.parquet as pq

from ..chunk_sets import ChunkerConfig
from ..chunking.registry import STRATEGIES
from ..corpus.loader import Corpus
from ..hashing import sha256_bytes
from ..routing import VERSION as ROUTING_VERSION
from ..routing import Catalog
from ..storage.artefacts import LOCAL, Artefact, Outcome, Transfer, artefact_key, reuse_or_build
from ..storage.files import read_json
from ..storage.workspace import Workspace
from .code import EVALUATION_CODE, EVALUATION_VERSION
from .gold_resolution import OFFSETS
from .gold_resolution import summary as gold_resolution_summary
from ..storage.history import append_history
from .retriever_modes import dir_bytes, evaluate_enriched, evaluate_retrievers
from .scope import scorable_questions
from ..storage.gold import GoldFiles

HUMAN, GENERATED = "human", "generated"  # the question sets: the corpus's own, generated from inline XBRL
MANIFEST_FIELDS = ("chunks", "mean_chars", "mean_tokens", "max_tokens", "over_limit_fraction", "duplication")
OPTIONAL_MANIFEST_FIELDS = ("char_bound", "split_to_bound", "over_bound", "notes")


class Log(Protocol):
    def info(self, msg: str) -> None: ...

    def warning(self, msg: str) -> None: ...


@dataclass(frozen=True)
class EvaluationOptions:
    """The run's choices an evaluation depends on (PipelineResource / Settings)."""

    retrievers: tuple[str, ...]
    model: str | None          # embedding model folder; None: the packaged one
    budgets: tuple[int, ...]   # context budgets (characters)
    embed_backend: str = "torch"  # how queries are embedded (the dense index's marker key names it too)


def evaluation_file(gold: str = HUMAN) -> str:
    """A chunk set's evaluation file for a question set: evaluation.json for the corpus's own
    questions, evaluation-generated.json for the questions generated from inline XBRL."""
    return "evaluation.json" if gold == HUMAN else f"evaluation-{gold}.json"


@dataclass(frozen=True)
class ChunkSetEvaluation:
    """One chunk set's evaluation on one question set (``gold``): where its inputs are and
    what it is asked to run."""

    ws: Workspace
    corpus: Corpus
    config: ChunkerConfig
    options: EvaluationOptions
    gold: str = HUMAN

    @property
    def path(self) -> Path:
        return self.ws.evaluation_dir(self.config.version_name) / evaluation_file(self.gold)

    @property
    def generated(self) -> GoldFiles:
        return GoldFiles(self.ws.generated_gold_dir)

    @property
    def questions(self) -> pd.DataFrame | None:
        """The questions this evaluation scores."""
        if self.gold == HUMAN:
            return self.corpus.questions
        return self.generated.read()[0] if self.generated.exists() else None

    @property
    def labelled(self) -> bool:
        return self.corpus.labelled if self.gold == HUMAN else self.generated.exists()

    def passages(self) -> pd.DataFrame | None:
        """The question set's gold passages, every span resolved into the document."""
        if self.gold == HUMAN:
            return gold_passages(self.ws)
        if not self.generated.exists():
            return None
        passages = self.generated.read()[1]  # block spans: resolved as given (their own offsets)
        return passages.assign(page=None, resolution=OFFSETS, problem=None)

    def question_files(self) -> dict:
        """What the question set is read from (the evaluation's key holds their hashes)."""
        if self.gold == HUMAN:
            corpus_dir = self.corpus.path
            return {"questions": _file_sha(corpus_dir / "questions.parquet"),
                    "passages": _file_sha(corpus_dir / "passages.parquet"), "gold": _file_sha(self.ws.gold_passages_path)}
        g = self.generated
        return {"questions": _file_sha(g.questions), "passages": _file_sha(g.passages), "gold": None,
                "question_set": self.gold}

    @property
    def index_dir(self) -> Path:
        return self.ws.index_dir(self.config.version_name)


def gold_passages(ws: Workspace) -> pd.DataFrame | None:
    """The corpus's passages resolved into the parsed text (parsed_blocks writes them: pdf
    quotes resolved, unresolved ones with an empty span), or None for an unlabelled corpus."""
    if not ws.gold_passages_path.exists():
        return None
    return pq.read_table(ws.gold_passages_path).to_pandas()


def scored_scope(ws: Workspace, questions: pd.DataFrame, passages: pd.DataFrame | None = None):
    """(the resolved gold passages, the scope of ``questions`` on the documents that were
    parsed: evaluation/scope.py) of a labelled corpus (``passages``: another question set's,
    default the corpus's); missing gold is an error naming what to run."""
    passages = gold_passages(ws) if passages is None else passages
    if passages is None:
        raise RuntimeError(f"{ws.gold_passages_path} is missing: materialize parsed_blocks first")
    parsed = pq.read_table(ws.manifest_path, columns=["doc_id"]).column("doc_id").to_pylist()
    return passages, scorable_questions(questions, passages, parsed)


def _file_sha(path: Path | None) -> str | None:
    return sha256_bytes(path.read_bytes()) if path is not None and path.exists() else None


def stored_inputs(job: ChunkSetEvaluation) -> tuple[dict, dict | None]:
    """(the chunk set's manifest, its enrichment's manifest or None); a missing one is an error
    naming the asset to materialize first."""
    config = job.config
    manifest = job.ws.chunks.required(config.chunks_version_name)
    return manifest, (None if config.enrich is None else job.ws.enrichments.required(config.version_name))


def chunk_set_base(job: ChunkSetEvaluation, manifest: dict, enrichment: dict | None) -> dict:
    """What every entry of the chunk set repeats: its configuration and its manifest's figures."""
    config, ws = job.config, job.ws
    return {"name": config.name, "version": config.version_name, "strategy": config.strategy,
            "params": config.params, "header": config.header, "expand": config.expand,
            "family": STRATEGIES[config.strategy].family,
            **{k: manifest[k] for k in MANIFEST_FIELDS},
            **{k: manifest.get(k) for k in OPTIONAL_MANIFEST_FIELDS},
            "index_bytes": dir_bytes(job.index_dir),
            "chunk_bytes": ws.chunks.path(config.chunks_version_name).stat().st_size,
            "enricher": enrichment["describe"] if enrichment else None}


def routing_key(ws: Workspace) -> str | None:
    """The routing version and the fingerprint of the documents' metadata the routed mode reads."""
    if not ws.manifest_path.exists():
        return None
    return f"{ROUTING_VERSION}-{Catalog.from_parquet(ws.manifest_path).fingerprint}"


def evaluation_key(job: ChunkSetEvaluation, manifest: dict, enrichment: dict | None,
                   code: str = EVALUATION_CODE) -> str:
    """Everything an evaluation reads: unchanged inputs make evaluating again free."""
    index_dir = job.index_dir
    markers = ({f.name: read_json(f).get("inputs") for f in sorted(index_dir.glob("*.json"))}
               if index_dir.exists() else {})
    return artefact_key(
        version=EVALUATION_VERSION, code=code, chunks=manifest["inputs"], indexes=markers,
        enrichment=enrichment["inputs"] if enrichment else None, **job.question_files(),
        retrievers=list(job.options.retrievers),
        model=job.options.model, expand=job.config.expand, budgets=list(job.options.budgets),
        routing=routing_key(job.ws))


def _scope(job: ChunkSetEvaluation, log: Log):
    """(the gold passages, the scorable questions' scope, the gold resolution summary) of a
    labelled corpus."""
    passages, scope = scored_scope(job.ws, job.questions, job.passages())
    if scope.excluded_ids:
        log.warning(f"{len(scope.excluded_ids)} questions on rejected documents "
                    f"{scope.missing_documents} left out of scoring")
    resolution = gold_resolution_summary(
        passages, {p for v in scope.questions["gold_passages"] if v is not None for p in v})
    return passages, scope, resolution


def score_chunk_set(job: ChunkSetEvaluation, base: dict, enrichment: dict | None, log: Log) -> dict:
    """The evaluation payload (without its key): every retriever x mode on the scorable
    questions, and an enriched chunk set's representations."""
    corpus = job.corpus
    passages = scope = resolution = None
    labelled = job.labelled
    if labelled:
        passages, scope, resolution = _scope(job, log)
    entries = (evaluate_retrievers(job.ws, job.config, job.options, passages, scope.questions, base, log)
               if scope else [])
    enriched = (evaluate_enriched(job.ws, job.config, job.options, passages, scope.questions, entries, log)
                if scope is not None and enrichment is not None else None)
    if not labelled and job.gold == HUMAN:
        log.warning(f"corpus {corpus.name} has no labelled questions: nothing to score")
    questions = job.questions
    return {"corpus": corpus.name, "labelled": labelled, **({} if job.gold == HUMAN else {"gold": job.gold}),
            "questions": 0 if questions is None else len(questions),
            "excluded": scope.summary() if scope else None,
            "gold_resolution": resolution,
            "chunk_set": base, "entries": entries, "enrichment": enriched}


def evaluate_chunk_set(job: ChunkSetEvaluation, transfer: Transfer = LOCAL, log: Log | None = None,
                       code: str = EVALUATION_CODE) -> Outcome:
    """The chunk set's evaluation (``Outcome.info``: the evaluation.json payload), reused when
    its key matches the stored one, else scored, written, added to the history and pushed."""
    log = log or logging.getLogger(__name__)
    manifest, enrichment = stored_inputs(job)
    base = chunk_set_base(job, manifest, enrichment)
    key = evaluation_key(job, manifest, enrichment, code)
    history = job.ws.evaluations_root / "history"

    def build() -> dict:
        payload = score_chunk_set(job, base, enrichment, log)
        if payload["entries"] and job.gold == HUMAN:  # the regression gate follows the corpus's own questions
            append_history(job.ws.evaluations_root, job.config.name, job.config.version_name, payload["entries"])
        return payload

    outcome = reuse_or_build(Artefact(marker=job.path, data=(history,), required=()), key, build, transfer)
    if not outcome.built:
        log.info(f"{job.config.version_name}: chunks, indexes, questions and evaluation code "
                 f"({code}) unchanged: evaluation reused")
    return outcome
