"""Routed retrieval against global and filtered retrieval on chunk sets already built by
``finchunk run`` (this reads chunk sets, indexes and the parsed manifest; it builds nothing).

Recall at character budgets of your choice (passed to ``evaluate_retriever``; the pipeline
scores its configured budgets, FINCHUNK_BUDGETS), per chunk set x retriever x mode side by
side, the routed/filtered ratio and routed − global, the routing accuracy, with ``--by-type``
recall by question type and with ``--diff`` the questions where routed and filtered differ.

    .venv/bin/finchunk run --corpus ../shared/devdata/financebench_dev --chunk-sets fixed,structure-h --retrievers bm25
    .venv/bin/python bench/bench_routing.py --corpus ../shared/devdata/financebench_dev \
        --chunk-sets fixed,structure-h --retrievers bm25 --budgets 2000,5000
    .venv/bin/python bench/bench_routing.py --by-type --budgets 1500      # the default corpus
    .venv/bin/python bench/bench_routing.py --routing-only --corpus DIR   # routing accuracy only, nothing built
"""
from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from finchunk_pipeline import load_corpus  # noqa: E402
from finchunk_pipeline.evaluation import budget as budget_mod  # noqa: E402
from finchunk_pipeline.evaluation import retrieval as retrieval_mod  # noqa: E402
from finchunk_pipeline.evaluation.scope import scorable_questions  # noqa: E402
from finchunk_pipeline.index import registry  # noqa: E402
from finchunk_pipeline.routing import Catalog  # noqa: E402
from finchunk_pipeline.routing.search import Router, routing_summary  # noqa: E402
from finchunk_pipeline import Settings  # noqa: E402
from finchunk_pipeline.storage.files import write_json  # noqa: E402
from finchunk_pipeline import Workspace  # noqa: E402

MODES = ("global", "filtered", "routed")


def evaluate(retriever, chunks, passages, questions, mode, router, budgets):
    """(evaluation, summary) of evaluate_retriever at ``budgets``: passed as an argument when
    the function takes one, else through the module constant it reads."""
    if "budgets" in inspect.signature(retrieval_mod.evaluate_retriever).parameters:
        ev = retrieval_mod.evaluate_retriever(retriever, chunks, passages, questions, mode, router=router,
                                              budgets=budgets)
        return ev, ev.summary()
    saved = retrieval_mod.BUDGETS
    retrieval_mod.BUDGETS = budgets
    try:
        ev = retrieval_mod.evaluate_retriever(retriever, chunks, passages, questions, mode, router=router)
        return ev, ev.summary()
    finally:
        retrieval_mod.BUDGETS = saved


def at(curve, chars):
    return next((p["recall"] for p in curve if p["chars"] == chars), None)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", help="corpus folder (default: the embedded corpus)")
    ap.add_argument("--data", help="data root (default: data/store)")
    ap.add_argument("--chunkers", help="chunker config (default: data/chunkers.yaml)")
    ap.add_argument("--chunk-sets", help="comma-separated chunk-set names (default: every built one declared)")
    ap.add_argument("--retrievers", default="bm25", help="comma-separated (default bm25)")
    ap.add_argument("--budgets", default="2000,5000", help="character budgets (default 2000,5000)")
    ap.add_argument("--by-type", action="store_true", help="also recall by question type at the first budget")
    ap.add_argument("--json", help="write every number to this JSON file")
    ap.add_argument("--routing-only", action="store_true",
                    help="only the routing accuracy, from documents.parquet and questions.parquet (nothing built)")
    ap.add_argument("--diff", action="store_true",
                    help="list the questions where routed and filtered recall differ (first budget)")
    args = ap.parse_args(argv)

    settings = Settings().with_paths(args.corpus, args.data, args.chunkers)
    ws = Workspace(settings)
    corpus = load_corpus(settings.corpus_dir)
    if not corpus.labelled:
        sys.exit(f"{settings.corpus_dir}: no labelled questions, nothing to measure")
    if args.routing_only:
        return routing_only(corpus)
    if not ws.gold_passages_path.exists():
        sys.exit(f"{ws.gold_passages_path} is missing: run `finchunk run --corpus {settings.corpus_dir}` first")
    import pyarrow.parquet as pq

    from finchunk_pipeline import load_chunker_configs

    passages = pq.read_table(ws.gold_passages_path).to_pandas()
    parsed = pq.read_table(ws.manifest_path, columns=["doc_id"]).column("doc_id").to_pylist()
    questions = scorable_questions(corpus.questions, passages, parsed).questions
    catalog = Catalog.from_parquet(ws.manifest_path)
    budgets = tuple(sorted({int(b) for b in args.budgets.split(",")} | {budget_mod.REPORT_BUDGET}))
    shown = [int(b) for b in args.budgets.split(",")]
    wanted = [s.strip() for s in args.chunk_sets.split(",")] if args.chunk_sets else None
    configs = [c for c in load_chunker_configs(settings.chunkers_file) if wanted is None or c.name in wanted]
    if wanted:
        unknown = set(wanted) - {c.name for c in configs}
        if unknown:
            sys.exit(f"chunk sets not declared in {settings.chunkers_file}: {sorted(unknown)}")
    results, routing, by_type, per_question = [], None, {}, {}
    t0 = time.perf_counter()
    for config in configs:
        stored = getattr(config, "chunks_version_name", config.version_name)   # an enriched set: its chunking-only version
        if ws.chunks.manifest(stored) is None:
            print(f"{config.name}: not built under {ws.root} — skipped (run finchunk run first)", file=sys.stderr)
            continue
        chunks = ws.chunks.read(stored, columns=["chunk_id", "doc_id", "spans", "embedding_text", "source_text"])
        router = Router(catalog, chunks["doc_id"].tolist())
        for name in [r.strip() for r in args.retrievers.split(",")]:
            if not registry.index_exists(name, ws.index_dir(config.version_name)):
                print(f"{config.name}: no {name} index — skipped", file=sys.stderr)
                continue
            request = registry.LoadRequest(chunks, Settings().model())
            retriever = registry.load_retriever(name, ws.index_dir(config.version_name), request)
            row = {"chunk_set": config.name, "retriever": name}
            for mode in MODES:
                ev, s = evaluate(retriever, chunks, passages, questions, mode, router, budgets)
                per_question.setdefault((config.name, name), {})[mode] = {
                    x.question_id: {b: x.retrieved[b] / x.n_gold for b in shown}
                    for x in ev.values["budget"] if x.n_gold}
                for b in shown:
                    row[f"{mode}@{b}"] = at(s["budget"], b)
                if args.by_type:
                    by_type.setdefault((config.name, name), {})[mode] = {
                        t: v.get("recall_at_budget") for t, v in s["by_type"].items()}
                if mode == "routed":
                    routing = routing_summary(router.last_routes, questions["question_id"].tolist(),
                                              [list(v) if v is not None else [] for v in questions["doc_ids"]])
            results.append(row)
    seconds = time.perf_counter() - t0
    print(f"corpus {corpus.name}: {len(questions)} scorable questions "
          f"({sum(1 for g in questions['gold_passages'] if g is not None and len(g))} answerable), "
          f"budgets {shown}, {seconds:.0f} s\n")
    head = "| chunk set | retriever | " + " | ".join(
        f"{m} R@{b}" for b in shown for m in MODES) + " | " + " | ".join(f"routed/filtered @{b}" for b in shown) \
        + " | " + " | ".join(f"routed−global @{b} (pts)" for b in shown) + " |"
    print(head)
    print("|---|---|" + "---:|" * (len(shown) * (len(MODES) + 2)))
    for r in results:
        cells = [f"{100 * r[f'{m}@{b}']:.1f}" if r[f"{m}@{b}"] is not None else "–" for b in shown for m in MODES]
        ratios = [f"{r[f'routed@{b}'] / r[f'filtered@{b}']:.2f}" if r[f"filtered@{b}"] else "–" for b in shown]
        diffs = [f"{100 * (r[f'routed@{b}'] - r[f'global@{b}']):+.1f}" if r[f"global@{b}"] is not None else "–"
                 for b in shown]
        print(f"| {r['chunk_set']} | {r['retriever']} | " + " | ".join(cells + ratios + diffs) + " |")
    if routing:
        print(f"\nrouting (analyzer v{routing['version']}): accuracy {100 * routing['accuracy']:.1f}% of "
              f"{routing['questions']} questions; routed {routing['routed']} (filter {routing['filter']}, boost "
              f"{routing['boost']}), accuracy among routed "
              + (f"{100 * routing['accuracy_routed']:.1f}%" if routing["accuracy_routed"] is not None else "–")
              + f"; not routed {routing['none']}; misses {routing['misses']}")
    if args.by_type:
        b0 = budget_mod.REPORT_BUDGET
        for (cs, rname), modes in by_type.items():
            types = sorted(modes["global"])
            print(f"\n{cs} / {rname}: recall at {b0} chars by question type (global → routed, points)")
            print("| question type | global | filtered | routed | routed − global |\n|---|---:|---:|---:|---:|")
            for t in types:
                g, f_, r_ = (modes[m].get(t) for m in MODES)
                if g is None:
                    continue
                print(f"| {t} | {100 * g:.1f} | {100 * f_:.1f} | {100 * r_:.1f} | {100 * (r_ - g):+.1f} |")
    if args.diff:
        b0 = shown[0]
        texts = dict(zip(questions["question_id"], questions["question"]))
        for (cs, rname), modes in per_question.items():
            diff = [(q, modes["filtered"][q][b0], modes["routed"][q][b0]) for q in modes["filtered"]
                    if modes["filtered"][q][b0] != modes["routed"][q][b0]]
            print(f"\n{cs} / {rname}: {len(diff)} questions where routed ≠ filtered at {b0} chars")
            for q, f_, r_ in diff:
                print(f"  {q}: filtered {f_:.2f} routed {r_:.2f} | {texts[q][:110]}")
    if args.json:
        write_json(Path(args.json), {"results": results, "routing": routing,
                                     "by_type": {f"{k[0]}/{k[1]}": v for k, v in by_type.items()}})
    return 0


def routing_only(corpus) -> int:
    from finchunk_pipeline.routing import analyze

    catalog = Catalog.from_frame(corpus.documents)
    qs = corpus.questions
    t0 = time.perf_counter()
    routes = [analyze(q, catalog) for q in qs["question"]]
    seconds = time.perf_counter() - t0
    s = routing_summary(routes, qs["question_id"].tolist(), [list(v) if v is not None else [] for v in qs["doc_ids"]])
    print(f"corpus {corpus.name}: {len(catalog.docs)} documents, {len(qs)} questions, "
          f"{1000 * seconds / max(1, len(qs)):.2f} ms per question")
    print(json.dumps({k: v for k, v in s.items() if k != "misses"}, indent=1))
    texts = dict(zip(qs["question_id"], qs["question"]))
    for qid in s["misses"]:
        print(f"  miss {qid}: {texts[qid][:120]}")
    unrouted = [(qid, r) for qid, r in zip(qs["question_id"], routes) if r.action == "none"]
    for qid, _ in unrouted[:20]:
        print(f"  not routed {qid}: {texts[qid][:120]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
