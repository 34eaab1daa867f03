"""One chunk set's evaluation over the stores: the stored chunks, indexes, enrichment and
question sets read, the evaluation's key computed from everything it reads, a stored
evaluation with the same key reused, else the pure evaluation (evaluation/chunk_set.py,
evaluation/retriever_modes.py) scored, written, added to the recall history and pushed.

The key of an evaluation (``evaluation_key``) holds the chunk set's key, the index markers'
keys, the questions / passages / resolved gold files, the retrievers, the model, the
expansion, the budgets, the routing catalogue, an enrichment's key and the code version of
the evaluation code (evaluation/code.py).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import pandas as pd
import pyarrow.parquet as pq

from ..chunk_sets import ChunkerConfig
from ..corpus.loader import Corpus
from ..evaluation.chunk_set import (HUMAN, EvaluationOptions, Log, QuestionSet, chunk_set_fields,
                                    evaluation_file)
from ..evaluation.chunk_set import score_chunk_set as score
from ..evaluation.code import EVALUATION_CODE, EVALUATION_VERSION
from ..evaluation.expander import parent_expander
from ..evaluation.gold_resolution import OFFSETS
from ..evaluation.retriever_modes import CHUNK_COLUMNS, ENRICHED_CHUNK_COLUMNS, Indexes
from ..evaluation.retriever_modes import evaluate_enriched as enriched_evaluation
from ..evaluation.retriever_modes import evaluate_retrievers as retriever_entries
from ..evaluation.scope import scorable_questions
from ..hashing import sha256_bytes
from ..index.registry import LoadRequest, index_exists, load_retriever, needs
from ..routing import VERSION as ROUTING_VERSION
from ..routing import Catalog
from ..storage.artefacts import LOCAL, Artefact, Outcome, Transfer, artefact_key, reuse_or_build
from ..storage.blocks import BlockStore
from ..storage.files import read_json
from ..storage.gold import GoldFiles
from ..storage.history import append_history
from ..storage.workspace import Workspace
from ..types.blocks import ParsedDocument


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


def dir_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


def retriever_index_bytes(name: str, index_dir: Path) -> int:
    """Bytes of the indexes a retriever reads: its own folder and marker, or, for hybrid
    (no files of its own), those of the bm25 and dense indexes it fuses."""
    return sum(dir_bytes(f) if f.is_dir() else f.stat().st_size
               for part in needs().get(name, (name,)) for f in index_dir.glob(f"{part}*"))


def document_reader(manifest_path: Path, blocks: BlockStore) -> Callable[[str], ParsedDocument]:
    """A parsed document by its id, read from the block store where the parsed manifest at
    ``manifest_path`` says it is."""
    parsed = pq.read_table(manifest_path, columns=["doc_id", "sha", "parser_key"]).to_pandas()
    where = {d: (k, sha) for d, sha, k in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"])}

    def read(doc_id: str) -> ParsedDocument:
        key, sha = where[doc_id]
        return blocks.read(key, sha, doc_id=doc_id)

    return read


def stored_inputs(job: ChunkSetEvaluation) -> tuple[dict, dict | None]:
    """(the chunk set's manifest, its enrichment's manifest or None); a missing one is an error
    naming the asset to materialize first."""
    config = job.config
    manifest = job.ws.chunks.required(config.chunks_version_name)
    return manifest, (None if config.enrich is None else job.ws.enrichments.required(config.version_name))


def chunk_set_base(job: ChunkSetEvaluation, manifest: dict, enrichment: dict | None) -> dict:
    """What every entry of the chunk set repeats: its configuration, its manifest's figures and
    what its dense index was embedded with (``dense``: model id and vectors; None without one),
    so entries of runs with other embedding settings in one report can be told apart."""
    config, ws = job.config, job.ws
    base = chunk_set_fields(config, manifest, enrichment, dir_bytes(job.index_dir),
                            ws.chunks.path(config.chunks_version_name).stat().st_size)
    marker = job.index_dir / "dense.json"
    info = read_json(marker) if marker.is_file() else None
    base["dense"] = ({"model_id": info.get("model_id"), "vectors": info.get("vectors", "chunk")}
                     if isinstance(info, dict) and info.get("model_id") else None)
    return base


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


def stored_indexes(job: ChunkSetEvaluation, chunks: pd.DataFrame, catalog: Catalog | None = None) -> Indexes:
    """The chunk set's stored indexes: loaded with the run's embedding cache, as they were built
    with (one shared embedder — one model in memory, one query memo — per run); ``catalog``: the
    corpus's routing catalog (hybrid's per-query dense weight, index/hybrid.py)."""
    index_dir, options = job.index_dir, job.options

    def load(name: str):
        request = LoadRequest(chunks, options.model, job.ws.settings.embeddings_dir,
                              embed_backend=options.embed_backend, catalog=catalog)
        return load_retriever(name, index_dir, request)

    return Indexes(exists=partial(index_exists, index_dir=index_dir), load=load,
                   index_bytes=partial(retriever_index_bytes, index_dir=index_dir))


def evaluate_retrievers(job: ChunkSetEvaluation, passages: pd.DataFrame, questions: pd.DataFrame, base: dict,
                        log: Log) -> list[dict]:
    """Every available retriever x mode of the run on the stored chunk set (retriever_modes.py)."""
    ws, config = job.ws, job.config
    chunks = ws.chunks.read(config.chunks_version_name, columns=CHUNK_COLUMNS)
    expander = (parent_expander(chunks, document_reader(ws.manifest_path, ws.blocks), config.expand)
                if config.expand else None)
    catalog = Catalog.from_parquet(ws.manifest_path)
    return retriever_entries(config, job.options, chunks, stored_indexes(job, chunks, catalog),
                             catalog, passages, questions, base, log, expander)


def evaluate_enriched(job: ChunkSetEvaluation, passages: pd.DataFrame, questions: pd.DataFrame,
                      entries: list[dict], log: Log) -> dict:
    """An enriched chunk set's retrieval over each of its stored representations."""
    from ..index.representations import load_representation, representation_exists

    ws, config, index_dir = job.ws, job.config, job.index_dir
    store = ws.enrichments
    chunks = ws.chunks.read(config.chunks_version_name, columns=ENRICHED_CHUNK_COLUMNS)
    enrichment = store.read(config.version_name, columns=["chunk_id", "enrichment_text"])
    parsed = pq.read_table(ws.manifest_path).to_pandas()
    catalog = Catalog.from_frame(parsed)
    memo = {}

    def load(rep: str, name: str):
        if not representation_exists(rep, name, index_dir):
            return None
        if (rep, name) not in memo:
            memo[(rep, name)] = load_representation(rep, name, index_dir, chunks, job.options.model,
                                                    ws.settings.embeddings_dir, catalog)
        return memo[(rep, name)]

    return enriched_evaluation(load, job.options, chunks, enrichment, store.manifest(config.version_name) or {},
                               parsed, passages, questions, entries, log)


def score_chunk_set(job: ChunkSetEvaluation, base: dict, enrichment: dict | None, log: Log) -> dict:
    """The evaluation payload (without its key) of the stored chunk set on its question set."""
    question_set = QuestionSet(job.gold, job.questions, job.labelled)
    scoped = scored_scope(job.ws, job.questions, job.passages()) if question_set.labelled else None
    enrich = None if enrichment is None else partial(evaluate_enriched, job, log=log)
    return score(job.corpus.name, question_set, scoped, base, partial(evaluate_retrievers, job, base=base, log=log),
                 enrich, log)


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
