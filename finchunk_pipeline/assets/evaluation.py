"""Group "evaluation": per chunk set retrieval scores, then the side-by-side report."""

import ast
import base64
from pathlib import Path

import pyarrow.parquet as pq
from dagster import (AssetExecutionContext, AutomationCondition, DataVersion, MaterializeResult,
                     MetadataValue, asset)

from ..evaluation.gold_resolution import summary as gold_resolution_summary
from ..evaluation.plots import write_plots
from ..evaluation.history import append_history
from ..evaluation.report import build_report, render_markdown, write_report
from ..evaluation.retrieval import MODES, ROUTED, evaluate_retriever
from ..evaluation.scope import scorable_questions
from ..chunking.registry import STRATEGIES
from ..index.retrievers import NEEDS, index_exists, load_retriever
from ..routing import VERSION as ROUTING_VERSION
from ..routing import Catalog
from ..routing.search import Router, routing_summary
from ..storage import read_json, sha256_bytes, stable_hash, write_json
from .dense import faiss_index
from .indexes import bm25_index
from .partitions import chunk_set_partitions
from .point_in_time import PIT_FILE, point_in_time_evaluation
from .resources import PipelineResource

EVALUATION_VERSION = "3"

PACKAGE = Path(__file__).resolve().parents[1]  # finchunk_pipeline/
# what an evaluation runs: the metrics, the retrievers at query time, the parent expansion
# and this module; report rendering, plots and the history file do not change its results
EVALUATION_SOURCES = ("evaluation/*.py", "index/*.py", "chunking/expand.py", "routing/*.py", "assets/evaluation.py")
NOT_EVALUATION_CODE = ("evaluation/report.py", "evaluation/plots.py", "evaluation/history.py", "index/search.py",
                       "evaluation/enrichment_report.py", "evaluation/answers.py")


def evaluation_source_files(root: Path = PACKAGE) -> list[Path]:
    files = {f for pattern in EVALUATION_SOURCES for f in root.glob(pattern)}
    return sorted(f for f in files if f.relative_to(root).as_posix() not in NOT_EVALUATION_CODE)


# functions of this module that only build the report: editing them re-evaluates nothing
REPORT_ONLY = {"assets/evaluation.py": {"evaluation_report", "png_data_uri", "_answers_for_report"}}


def _code_of(path: Path, rel: str) -> str:
    """The file's code, comments and formatting aside (its AST), without report-only functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    drop = REPORT_ONLY.get(rel, set())
    tree.body = [n for n in tree.body if getattr(n, "name", None) not in drop]
    return ast.dump(tree)


def code_hash(files: list[Path], root: Path = PACKAGE) -> str:
    """Hash of the source files' code (by path relative to ``root``)."""
    return stable_hash({f.relative_to(root).as_posix(): sha256_bytes(_code_of(f, f.relative_to(root).as_posix())
                                                                      .encode("utf-8")) for f in files}, n=12)


# Evaluation reuse is keyed to the code it runs: editing a metric, a retriever or the
# expansion re-evaluates every chunk set, whether or not someone bumps EVALUATION_VERSION.
EVALUATION_CODE = code_hash(evaluation_source_files())


def png_data_uri(path) -> str:
    """A PNG as a data: URI, so Markdown metadata shows it in the Dagster UI."""
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


def _dir_bytes(folder) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) if folder.exists() else 0


def retriever_index_bytes(name: str, index_dir) -> int:
    """Bytes of the indexes a retriever reads: its own folder and marker, or, for hybrid
    (no files of its own), those of the bm25 and dense indexes it fuses."""
    return sum(_dir_bytes(f) if f.is_dir() else f.stat().st_size
               for part in NEEDS.get(name, (name,)) for f in index_dir.glob(f"{part}*"))


def _expander(chunks, ws, max_chars: int):
    """Bounded parent expansion (chunking/expand.py, at most ``max_chars`` characters) of the
    chunk at a row of ``chunks``: parsed documents are read from the block store on first
    use, expansions memoised. The policy of chunk sets declaring ``expand``."""
    from ..chunking.expand import expand_chunk

    parsed = pq.read_table(ws.manifest_path, columns=["doc_id", "sha", "parser_key"]).to_pandas()
    where = {d: (k, sha) for d, sha, k in zip(parsed["doc_id"], parsed["sha"], parsed["parser_key"])}
    docs, memo = {}, {}

    def expand(row: int):
        if row not in memo:
            doc_id = chunks["doc_id"].iat[row]
            if doc_id not in docs:
                key, sha = where[doc_id]
                docs[doc_id] = ws.blocks.read(key, sha, doc_id=doc_id)
            memo[row] = expand_chunk({"view_spans": chunks["view_spans"].iat[row]}, docs[doc_id], max_chars)
        return memo[row]

    return expand


def _file_sha(path) -> str | None:
    return sha256_bytes(path.read_bytes()) if path is not None and path.exists() else None


def gold_passages(ws):
    """The corpus's passages resolved into the parsed text (parsed_blocks writes them: pdf
    quotes resolved, unresolved ones with an empty span), or None for an unlabelled corpus."""
    if not ws.gold_passages_path.exists():
        return None
    return pq.read_table(ws.gold_passages_path).to_pandas()


def _inputs_key(manifest: dict, index_dir, corpus, pipeline: PipelineResource, config,
                enrichment: dict | None = None, routing: str | None = None) -> str:
    """Everything an evaluation reads: unchanged inputs make re-running it free (``routing``:
    the routing version and the documents' metadata the routed mode reads)."""
    markers = {f.name: read_json(f).get("inputs") for f in sorted(index_dir.glob("*.json"))} if index_dir.exists() else {}
    return stable_hash({**({"enrichment": enrichment["inputs"]} if enrichment else {}), **{
        "version": EVALUATION_VERSION, "code": EVALUATION_CODE, "chunks": manifest["inputs"], "indexes": markers,
        "questions": _file_sha(corpus.path / "questions.parquet"),
        "passages": _file_sha(corpus.path / "passages.parquet"),
        "gold": _file_sha(pipeline.workspace().gold_passages_path),
        "retrievers": pipeline.retriever_names(), "model": pipeline.model(), "expand": config.expand,
        "budgets": list(pipeline.budget_list()), "routing": routing,
    }})


def _evaluate(context, config, ws, passages, questions, pipeline: PipelineResource, base: dict) -> list[dict]:
    """Every available retriever x mode over one chunk set, on the scorable ``questions``."""
    index_dir = ws.index_dir(config.version_name)
    chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "doc_id", "spans", "view_spans",
                                                            "embedding_text", "source_text"])
    expander = _expander(chunks, ws, config.expand) if config.expand else None
    budgets = pipeline.budget_list()
    router = Router(Catalog.from_parquet(ws.manifest_path), chunks["doc_id"].tolist())
    entries = []
    for name in pipeline.retriever_names():
        if not index_exists(name, index_dir):
            why = "dense: false in the chunker config" if "dense" in NEEDS.get(name, ()) and not config.dense else "no index built"
            context.log.info(f"{config.name}: {name} skipped ({why})")
            continue
        retriever = load_retriever(name, index_dir, chunks, pipeline.model())
        own = retriever_index_bytes(name, index_dir)
        for mode in (*MODES, ROUTED):
            summary = evaluate_retriever(retriever, chunks, passages, questions, mode,
                                         expander=expander, budgets=budgets, router=router).summary()
            if mode == ROUTED:   # scored against the questions' documents, which the router never saw
                summary["routing"] = routing_summary(router.last_routes, questions["question_id"].tolist(),
                                                     [list(v) if v is not None else [] for v in questions["doc_ids"]])
            entries.append({**base, "index_bytes_retriever": own, **summary})
            context.log.info(f"{config.name} {name} {mode}: recall@3 = {summary['curve'][2]['recall']:.3f}")
    return entries


def _evaluate_enrichment(context, config, ws, passages, questions, pipeline: PipelineResource,
                         entries: list[dict], store) -> dict:
    """An enriched chunk set's retrieval over each representation (evaluation/enrichment.py)."""
    from ..evaluation.enrichment import evaluate_enrichment
    from ..index.representations import load_representation, representation_exists

    index_dir = ws.index_dir(config.version_name)
    chunks = ws.chunks.read(config.chunks_version_name, columns=["chunk_id", "doc_id", "spans", "embedding_text",
                                                                 "source_text"])
    enrichment = store.read(config.version_name, columns=["chunk_id", "enrichment_text"])
    parsed = pq.read_table(ws.manifest_path).to_pandas()
    doc_meta = {r["doc_id"]: r for r in parsed.to_dict("records")}
    memo = {}

    def load(rep: str, name: str):
        if not representation_exists(rep, name, index_dir):
            return None
        if (rep, name) not in memo:
            memo[(rep, name)] = load_representation(rep, name, index_dir, chunks, pipeline.model(),
                                                    ws.settings.embeddings_dir)
        return memo[(rep, name)]

    manifest = store.manifest(config.version_name) or {}
    result = evaluate_enrichment(load, pipeline.retriever_names(), chunks, enrichment, passages, questions,
                                 doc_meta, entries, log=context.log.info)
    return {"enricher": manifest.get("enricher"), "enricher_version": manifest.get("enricher_version"),
            "describe": manifest.get("describe"), **result}


def _retrieval_evaluation(context: AssetExecutionContext, pipeline: PipelineResource, config) -> MaterializeResult:
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    from .enrichment import enrichment_store

    store = enrichment_store(ws)
    pipeline.pull(ws.manifest_path, ws.gold_passages_path, ws.settings.blocks_dir,
                  ws.chunks.dir(config.chunks_version_name), store.dir(config.version_name),
                  ws.index_dir(config.version_name), ws.evaluation_dir(config.version_name),
                  ws.root / "evaluations" / "history", ws.settings.embeddings_dir)
    manifest = ws.chunks.manifest(config.chunks_version_name)
    if manifest is None:
        raise RuntimeError(f"chunk set {config.chunks_version_name} is missing: materialize chunk_sets first")
    enrichment_manifest = None
    if config.enrich is not None:
        enrichment_manifest = store.manifest(config.version_name)
        if enrichment_manifest is None:
            raise RuntimeError(f"enrichment of {config.version_name} is missing: materialize chunk_enrichment first")
    base = {"name": config.name, "version": config.version_name, "strategy": config.strategy,
            "params": config.params, "header": config.header, "expand": config.expand,
            "family": STRATEGIES[config.strategy].family,
            **{k: manifest[k] for k in ("chunks", "mean_chars", "mean_tokens", "max_tokens",
                                        "over_limit_fraction", "duplication")},
            **{k: manifest.get(k) for k in ("char_bound", "split_to_bound", "over_bound", "notes")},
            "index_bytes": _dir_bytes(ws.index_dir(config.version_name)),
            "chunk_bytes": ws.chunks.path(config.chunks_version_name).stat().st_size,
            "enricher": enrichment_manifest["describe"] if enrichment_manifest else None}
    index_dir = ws.index_dir(config.version_name)
    routing = (f"{ROUTING_VERSION}-{Catalog.from_parquet(ws.manifest_path).fingerprint}"
               if ws.manifest_path.exists() else None)
    key = _inputs_key(manifest, index_dir, corpus, pipeline, config, enrichment_manifest, routing)
    path = ws.evaluation_dir(config.version_name) / "evaluation.json"
    previous = read_json(path) if path.exists() else None
    reused = previous is not None and previous.get("inputs") == key
    if reused:
        context.log.info(f"{config.version_name}: chunks, indexes, questions and evaluation code "
                         f"({EVALUATION_CODE}) unchanged: evaluation reused")
        payload = previous
        entries = payload["entries"]
    else:
        scope = resolution = None
        passages = gold_passages(ws)
        if corpus.labelled:
            if passages is None:
                raise RuntimeError(f"{ws.gold_passages_path} is missing: materialize parsed_blocks first")
            parsed = pq.read_table(ws.manifest_path, columns=["doc_id"]).column("doc_id").to_pylist()
            scope = scorable_questions(corpus.questions, passages, parsed)
            if scope.excluded_ids:
                context.log.warning(f"{len(scope.excluded_ids)} questions on rejected documents "
                                    f"{scope.missing_documents} left out of scoring")
            resolution = gold_resolution_summary(
                passages, {p for v in scope.questions["gold_passages"] if v is not None for p in v})
        entries = _evaluate(context, config, ws, passages, scope.questions, pipeline, base) if scope else []
        enrichment = (_evaluate_enrichment(context, config, ws, passages, scope.questions, pipeline, entries, store)
                      if scope is not None and enrichment_manifest is not None else None)
        if not corpus.labelled:
            context.log.warning(f"corpus {corpus.name} has no labelled questions: nothing to score")
        payload = {"corpus": corpus.name, "labelled": corpus.labelled,
                   "questions": 0 if corpus.questions is None else len(corpus.questions),
                   "excluded": scope.summary() if scope else None,
                   "gold_resolution": resolution,
                   "inputs": key, "chunk_set": base, "entries": entries, "enrichment": enrichment}
        write_json(path, payload)
        if entries:
            append_history(ws.root / "evaluations", config.name, config.version_name, entries)
        pipeline.push(ws.root / "evaluations" / "history", ws.evaluation_dir(config.version_name))
    md = {f"recall@3 {e['retriever']}/{e['mode']}": round(e["curve"][2]["recall"] or 0, 4) for e in entries}
    md.update({f"recall@5 {e['retriever']}/{e['mode']}": round(e["curve"][4]["recall"] or 0, 4) for e in entries})
    md.update({f"recall@1500ch {e['retriever']}/{e['mode']}": round(e["budget"][2]["recall"] or 0, 4)
               for e in entries if e.get("budget")})
    routing_entry = next((e["routing"] for e in entries if e.get("routing")), None)
    if routing_entry and routing_entry.get("accuracy") is not None:
        md["routing accuracy"] = round(routing_entry["accuracy"], 4)
    for e in (payload.get("enrichment") or {}).get("entries") or []:  # with / without enrichment
        if e.get("budget") and e["mode"] == "global":
            tag = "" if e["delivery"] == "evidence" else " +enrichment delivered"
            tag += "" if e["scope"] == "all" else " short-ambiguous"
            md[f"enriched R@1500ch {e['retriever']}/{e['representation']}{tag}"] = round(e["budget"][2]["recall"] or 0, 4)
    return MaterializeResult(
        metadata={"version": config.version_name, "corpus": ws.root.name, "labelled": corpus.labelled,
                  "reused": reused, "evaluation_code": EVALUATION_CODE,
                  "path": MetadataValue.path(str(path)),
                  "index_bytes": base["index_bytes"], "duplication": round(base["duplication"], 3), **md},
        data_version=DataVersion(stable_hash(payload)),
    )


@asset(
    group_name="evaluation",
    deps=[bm25_index, faiss_index],
    partitions_def=chunk_set_partitions,
    code_version=f"{EVALUATION_VERSION}-{EVALUATION_CODE}",
    description="recall@k (k = 1..10), full coverage and characters delivered; recall at character budgets "
                "(configurable; default 500..8000, context assembler: repeated evidence sent once); character precision / IoU and answer containment (k = 5 and 1500 chars), for "
                "one chunk set, per retriever, globally / filtered to the question's documents / routed by the query "
                "analyzer, with its routing accuracy (chunk sets declaring expand deliver bounded parents), "
                "overall, by question type and on the table and footnote slices.",
)
def retrieval_evaluation(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    config = pipeline.chunker_config(context.partition_key)
    with pipeline.claim(f"evaluation/{config.name}", context.log):  # built once, however many runs ask
        return _retrieval_evaluation(context, pipeline, config)


def _question_doc_types(corpus) -> dict[str, str]:
    """question id -> the doc_type of its (first) document: the slices of the recommendation."""
    if corpus.questions is None:
        return {}
    types = dict(zip(corpus.documents["doc_id"], corpus.documents["doc_type"]))
    out = {}
    for qid, doc_ids in zip(corpus.questions["question_id"], corpus.questions["doc_ids"]):
        docs = [d for d in (list(doc_ids) if doc_ids is not None else []) if d in types]
        if docs:
            out[qid] = str(types[docs[0]])
    return out


def _gold_lengths(corpus, passages) -> list[int]:
    """Characters of every gold passage the questions use (resolved ones)."""
    if corpus.questions is None or passages is None:
        return []
    gold = {p for v in corpus.questions["gold_passages"] if v is not None for p in v}
    rows = passages[passages["passage_id"].isin(gold)]
    return [int(e) - int(s) for s, e in zip(rows["start"], rows["end"]) if s is not None and e is not None and e > s]


def _answers_for_report(data: dict, configs) -> dict:
    """answers.json for the report: contexts shortened, and marked stale when a chunk set it
    compares has changed version (or is no longer declared) since."""
    current = {c.name: c.version_name for c in configs}
    data["stale"] = sorted({c["chunk_set"] for c in data.get("columns", []) if current.get(c["chunk_set"]) != c["version"]})
    for q in data.get("questions", []):
        for cell in q.get("cells", []):
            cell["context"] = (cell.get("context") or "")[:400]
    return data


@asset(
    group_name="evaluation",
    deps=[retrieval_evaluation, point_in_time_evaluation],
    automation_condition=AutomationCondition.eager(),
    description="Every declared chunk set side by side: evaluation.json and evaluation.md in the "
                "run output folder, the table shown here.",
)
def evaluation_report(context: AssetExecutionContext, pipeline: PipelineResource) -> MaterializeResult:
    ws = pipeline.workspace()
    corpus = pipeline.corpus()
    pipeline.pull(ws.root / "evaluations", ws.root / PIT_FILE)
    entries, missing, excluded, resolution, enriched = [], [], None, None, []
    for config in pipeline.chunker_configs():
        path = ws.evaluation_dir(config.version_name) / "evaluation.json"
        if not path.exists():
            missing.append(config.name)
            continue
        data = read_json(path)
        entries.extend(data["entries"] or [{**data["chunk_set"]}])
        if data.get("enrichment"):  # retrieval with / without enrichment (evaluation/enrichment.py)
            enriched.append({"name": config.name, "version": config.version_name, **data["enrichment"]})
        excluded = excluded or data.get("excluded")
        resolution = resolution or data.get("gold_resolution")
    if missing:
        context.log.warning(f"chunk sets not evaluated yet (materialize their partitions): {missing}")
    questions = 0 if corpus.questions is None else len(corpus.questions)
    doc_types, gold_lengths = _question_doc_types(corpus), _gold_lengths(corpus, gold_passages(ws))
    report = build_report(corpus.name, questions, entries, excluded, pipeline.budget_list(), doc_types, gold_lengths)
    if resolution is not None:  # pdf quotes resolved into the parsed text (evaluation/gold_resolution.py)
        report["gold_resolution"] = resolution
    if enriched:
        report["enrichment"] = enriched
    answers_file = ws.root / "answers" / "answers.json"  # the optional answers asset's output
    pipeline.pull(answers_file)
    if answers_file.exists():
        report["answers"] = _answers_for_report(read_json(answers_file), pipeline.chunker_configs())
    pit_path = ws.root / PIT_FILE
    if pit_path.exists():
        pit = read_json(pit_path)
        report["point_in_time"] = {k: pit[k] for k in ("total", "correct", "accuracy", "unparsed")}
    plots = {}
    try:
        plots = write_plots(report, ws.settings.out_dir)
    except ImportError as exc:  # matplotlib is a dependency; a broken install must not lose the report
        context.log.warning(f"plots skipped: {exc}")
    # evaluation.md sits next to the PNGs: it references them by file name
    js, md_path = write_report(report, ws.settings.out_dir, {k: Path(v).name for k, v in plots.items()})
    write_json(ws.root / "last_report.json", report)
    pipeline.push(ws.root / "last_report.json")
    return MaterializeResult(metadata={
        # the UI cannot reach local files: the plots are embedded in the Markdown as data: URIs
        "report": MetadataValue.md(render_markdown(report, {k: png_data_uri(v) for k, v in plots.items()})),
        "evaluation_json": MetadataValue.path(str(js)),
        "evaluation_md": MetadataValue.path(str(md_path)),
        **{f"plot_{k}": MetadataValue.path(v) for k, v in plots.items()},
        "chunk_sets": len({e["name"] for e in entries}),
        "not_evaluated": MetadataValue.json(missing),
    })
