"""Group "answers" (optional): the same questions answered from each chunk set's context.

For a deterministic sample of the corpus's questions, each chunk set (and, for an enriched
chunk set, its fused representation too) retrieves a context at the same character budget.
When an answering endpoint is configured (``FINCHUNK_ANSWER_BASE_URL`` / ``_MODEL`` /
``_API_KEY``, the same OpenAI-compatible client as the LLM enricher: enrichment/client.py),
a model answers from each context and the answers are scored against the reference
(evaluation/answers.py). Without an endpoint the side-by-side contexts, gold recall and
answer containment are the output, and nothing fails. Writes ``<corpus>/answers/answers.json``
and ``<out>/answers.md``; evaluation_report shows the table in evaluation.md.
"""

import re

from dagster import (
    AssetExecutionContext,
    Config,
    MaterializeResult,
    MetadataValue,
    asset,
)

from ..evaluation.answers import (
    ANSWER_PROMPT_VERSION,
    answer_messages,
    answers_section,
    context_containment,
    score_answer,
    summarise,
)
from ..evaluation.assembler import deliver, retrieved_count
from ..evaluation.budget import REPORT_BUDGET
from ..builders.evaluation import scored_scope
from ..evaluation.retrieval import DEPTH, gold_spans
from ..hashing import stable_hash
from ..storage.files import write_json, write_text
from .evaluation import retrieval_evaluation
from .resources import PipelineResource

ANSWER_PREFIX = "FINCHUNK_ANSWER"
ANSWER_MAX_TOKENS = 96
SKIP_TYPES = ("point_in_time", "unanswerable")


class AnswersError(RuntimeError):
    """Answers could not be completed (names what failed)."""


class AnswersConfig(Config):
    sample: int = 20                 # questions (deterministic sample by hash of the question id)
    budget: int = REPORT_BUDGET      # characters of context per chunk set and question
    retriever: str = "bm25"
    chunk_sets: list[str] = []       # empty: every declared chunk set that has an index
    with_enrichment: bool = True     # enriched chunk sets: also the fused representation


def answers_path(ws):
    return ws.root / "answers" / "answers.json"


def _list(v) -> list:
    return list(v) if v is not None and not (isinstance(v, float) and v != v) else []


def sample_questions(questions, n: int):
    """The ``n`` questions with a reference answer and gold passages whose id hashes lowest:
    the same sample on every run, whatever the order of the file."""
    ok = [bool(_list(g)) and a is not None and str(a).strip() not in ("", "nan") and t not in SKIP_TYPES
          for g, a, t in zip(questions["gold_passages"], questions["answer"], questions["question_type"])]
    q = questions[ok].copy()
    q["_order"] = [stable_hash(str(i)) for i in q["question_id"]]
    return q.sort_values("_order").head(max(0, n)).drop(columns="_order").reset_index(drop=True)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:40] or "model"


def _contexts(context, cfg, ws, pipeline, qs, gold, run_config: AnswersConfig) -> list[dict]:
    """One column per representation of ``cfg``: each question's delivered context, its gold
    recall and whether it contains the reference answer."""
    from ..index.representations import load_representation, representation_exists
    from ..routing import Catalog
    from ..builders.search import budget_delivery

    index_dir = ws.index_dir(cfg.version_name)
    catalog = Catalog.from_parquet(ws.manifest_path)   # hybrid weighs dense by whether a question names a document
    reps = ["source"]
    if cfg.enrich is not None and run_config.with_enrichment:
        reps.append("fused")
    chunks = ws.chunks.read(cfg.chunks_version_name, columns=["chunk_id", "doc_id", "spans", "embedding_text",
                                                              "source_text"] + (["view_spans"] if cfg.expand else []))
    # what the evaluation delivers at this budget: the chunk, or its bounded parent (small-to-big)
    deliver_row = budget_delivery(ws, chunks, cfg.expand)(run_config.budget)
    records = qs.to_dict("records")
    columns = []
    for rep in reps:
        if not representation_exists(rep, run_config.retriever, index_dir):
            context.log.info(f"answers: {cfg.name}/{rep}: no {run_config.retriever} index, left out")
            continue
        retriever = load_representation(rep, run_config.retriever, index_dir, chunks, pipeline.model(),
                                        ws.settings.embeddings_dir, catalog)
        hits = retriever.search_many([q["question"] for q in records], DEPTH)
        cells = []
        for q, ranked in zip(records, hits):
            delivered = [deliver_row(r) for r, _ in ranked]
            merged, used, text = deliver(delivered, budget=run_config.budget)
            g = [gold[p] for p in _list(q["gold_passages"]) if p in gold]
            cells.append({"recall": retrieved_count(g, merged) / len(g) if g else None,
                          "contained": context_containment(q["question_type"], q.get("answer"), text),
                          "chars": used, "context": text, "chunks": [r for r, _ in ranked][:10]})
        columns.append({"chunk_set": cfg.name, "version": cfg.version_name, "representation": rep, "cells": cells})
    return columns


def _answer(context, ws, columns, records) -> tuple[dict | None, dict]:
    """Model answers for every (question, column) from FINCHUNK_ANSWER_*; cached by model,
    prompt version, question and context. Returns (endpoint, usage); nothing when no
    endpoint is configured."""
    from ..enrichment.client import ChatClient, LLMSettings
    from ..storage.text_cache import TextCache

    env = ws.settings.llm_env
    if not LLMSettings.configured(ANSWER_PREFIX, env):
        return None, {}
    settings = LLMSettings.from_env(ANSWER_PREFIX, what="the answers asset", env=env)
    cache = TextCache(ws.settings.data_root / "answer_cache", f"p{ANSWER_PROMPT_VERSION}-{_slug(settings.model)}")
    keyed = []
    for col in columns:
        for q, cell in zip(records, col["cells"]):
            key = stable_hash({"model": settings.model, "prompt": ANSWER_PROMPT_VERSION, "q": q["question"],
                               "context": cell["context"]}, n=24)
            keyed.append((key, q, cell))
    found = cache.get_many(k for k, _, _ in keyed)
    jobs, seen = [], set()
    for key, q, cell in keyed:
        if key not in found and key not in seen:
            seen.add(key)
            jobs.append((key, answer_messages(q["question"], cell["context"])))
    client = ChatClient(settings)
    done, failed = client.complete_many(jobs, max_tokens=ANSWER_MAX_TOKENS) if jobs else ({}, {})
    cache.put_many([{"key": k, "text": c.text, "prompt_tokens": c.prompt_tokens,
                     "completion_tokens": c.completion_tokens} for k, c in done.items()])
    usage = client.usage.as_dict(settings)
    if client.fatal_error is not None or failed:
        why = str(client.fatal_error) if client.fatal_error is not None else next(iter(failed.values()))
        raise AnswersError(f"answers: {len(failed) or len(jobs) - len(done)} of {len(jobs)} answers could not be "
                           f"obtained from {settings.model} at {settings.url} ({len(done)} obtained are cached: a "
                           f"re-run asks only for the rest). First failure: {why}. Usage: {usage}")
    counted = set()
    for key, q, cell in keyed:
        rec = done.get(key)
        rec = {"text": rec.text, "prompt_tokens": rec.prompt_tokens, "completion_tokens": rec.completion_tokens} \
            if rec is not None else found[key]
        cell["answer"] = rec["text"]
        fresh = key in done and key not in counted  # tokens spent now, counted once per request
        counted.add(key)
        cell["tokens"] = int(rec.get("prompt_tokens") or 0) + int(rec.get("completion_tokens") or 0) if fresh else 0
        cell.update({k: v for k, v in score_answer(rec["text"], q.get("answer")).items()})
    return {"model": settings.model, "url": settings.url}, usage


@asset(
    group_name="answers",
    deps=[retrieval_evaluation],
    description="For a sample of questions, the context each chunk set retrieves at the same budget and — "
                "when FINCHUNK_ANSWER_BASE_URL/_MODEL point at an OpenAI-compatible endpoint — the answer a model "
                "gives from it, scored against the reference (numbers after unit/scale normalisation, text by "
                "containment), side by side. Without an endpoint: contexts, gold recall and answer containment.",
)
def answers(context: AssetExecutionContext, config: AnswersConfig, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    if config.retriever not in ("bm25", "dense", "hybrid"):
        raise ValueError(f"answers: unknown retriever {config.retriever!r}; known: bm25, dense, hybrid")
    if config.budget <= 0:
        raise ValueError(f"answers: budget must be > 0, got {config.budget}")
    pipeline.pull(ws.manifest_path, ws.gold_passages_path, ws.root / "chunks", ws.root / "indexes",
                  ws.settings.embeddings_dir, ws.settings.data_root / "answer_cache")
    if not corpus.labelled:
        context.log.warning(f"corpus {corpus.name} has no labelled questions: no answers to compare")
        return MaterializeResult(metadata={"questions": 0, "note": "corpus has no labelled questions"})
    passages, scope = scored_scope(ws, corpus.questions)
    qs = sample_questions(scope.questions, config.sample)
    gold = gold_spans(passages)
    configs = pipeline.chunker_configs()
    if config.chunk_sets:
        unknown = sorted(set(config.chunk_sets) - {c.name for c in configs})
        if unknown:
            raise ValueError(f"answers: unknown chunk sets {unknown}; declared: {[c.name for c in configs]}")
        configs = [c for c in configs if c.name in config.chunk_sets]
    columns, skipped = [], []
    for cfg in configs:
        if ws.chunks.manifest(cfg.chunks_version_name) is None:
            skipped.append(cfg.name)
            continue
        columns.extend(_contexts(context, cfg, ws, pipeline, qs, gold, config))
    if skipped:
        context.log.warning(f"answers: chunk sets not built yet, left out: {skipped}")
    records = qs.to_dict("records")
    endpoint, usage = _answer(context, ws, columns, records)
    data = {
        "corpus": corpus.name, "sample": len(records), "budget": config.budget, "retriever": config.retriever,
        "endpoint": endpoint, "usage": usage, "skipped": skipped,
        "columns": [{k: c[k] for k in ("chunk_set", "version", "representation")} | {"summary": summarise(c["cells"])}
                    for c in columns],
        "questions": [{"question_id": q["question_id"], "question": q["question"], "question_type": q["question_type"],
                       "answer": None if q.get("answer") is None else str(q["answer"]),
                       "cells": [c["cells"][i] for c in columns]} for i, q in enumerate(records)],
    }
    path = write_json(answers_path(ws), data)
    md = "\n".join([f"# Answers — corpus `{corpus.name}`", *answers_section(data, max_questions=len(records))]) + "\n"
    md_path = write_text(ws.settings.out_dir / "answers.md", md)
    pipeline.push(answers_path(ws), ws.settings.data_root / "answer_cache")
    return MaterializeResult(metadata={
        "questions": len(records), "columns": len(columns), "endpoint": endpoint["model"] if endpoint else "none",
        "answers": MetadataValue.md("\n".join(answers_section(data, max_questions=5))),
        "prompt_tokens": usage.get("prompt_tokens", 0), "completion_tokens": usage.get("completion_tokens", 0),
        "requests": usage.get("requests", 0), "retries": usage.get("retries", 0),
        "cost_usd": usage.get("cost_usd") if usage.get("cost_usd") is not None else "not priced",
        "answers_json": MetadataValue.path(str(path)), "answers_md": MetadataValue.path(str(md_path)),
    })
