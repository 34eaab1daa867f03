"""Best evidence-aware set vs best plain splitter, in sample and out of fold (by document).

Reads the stored evaluations of a `finchunk run` (its data root and corpus) and, for each cell
(retriever / mode / budget), chooses each side's best chunk set on the questions of 3 of 4
folds of documents and scores it on the 4th (evaluation/out_of_fold.py), beside the in-sample
choice the report's Summary makes. Prints a Markdown table; --write appends it, with the
command, machine, date and commit, to docs/benchmarks/out-of-fold.md.

    python bench/bench_out_of_fold.py --corpus ../shared/devdata/financebench_dev --data /tmp/fb/store \\
        [--gold human|generated] [--cells bm25/filtered/2000,bm25/filtered/5000,bm25/global/5000] \\
        [--folds 4] [--label "financebench_dev"] [--write]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from finchunk_pipeline.chunk_sets import load_chunker_configs  # noqa: E402
from finchunk_pipeline.corpus import load_corpus  # noqa: E402
from finchunk_pipeline.evaluation.chunk_set import HUMAN  # noqa: E402
from finchunk_pipeline.evaluation.out_of_fold import FOLDS, compare_out_of_fold, sides  # noqa: E402
from finchunk_pipeline.storage.gold import GoldFiles  # noqa: E402
from finchunk_pipeline.settings import Settings  # noqa: E402
from finchunk_pipeline.storage.workspace import Workspace  # noqa: E402

from _docs import command, provenance, write_page  # noqa: E402
from _stored import declared_entries  # noqa: E402

DEFAULT_CELLS = "bm25/global/1500,bm25/filtered/2000,bm25/filtered/5000,bm25/global/5000"
OUT = ROOT / "docs" / "benchmarks" / "out-of-fold.md"


def question_documents(ws: Workspace, gold: str) -> dict[str, str]:
    if gold == HUMAN:
        q = load_corpus(ws.corpus_dir).questions
    else:
        q = GoldFiles(ws.generated_gold_dir).read()[0]
    return {qid: list(docs)[0] for qid, docs in zip(q["question_id"], q["doc_ids"]) if docs is not None and len(docs)}


def family(entry: dict) -> str | None:
    return entry.get("family") if entry.get("family") in ("evidence", "plain") else None


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def rows(result: dict, cell: str) -> str:
    i, o = result["in_sample"], result["out_of_fold"]
    chosen = "; ".join(f"{c['a']} / {c['b']}" for c in o["chosen"])
    return (f"| {cell} | {result['questions']} ({result['documents']} docs) | {i['a']} {pct(i['a_recall'])} vs "
            f"{i['b']} {pct(i['b_recall'])} | {pp(i['gain'])} [{pp(i['ci_low'])}, {pp(i['ci_high'])}] | "
            f"{pct(o['a_recall'])} vs {pct(o['b_recall'])} | {pp(o['gain'])} [{pp(o['ci_low'])}, {pp(o['ci_high'])}] "
            f"| {'**yes**' if o['win'] and o['gain'] >= 0.05 else 'no'} | {chosen} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--data", required=True, help="the run's data root")
    ap.add_argument("--chunkers", default=None, help="chunker file of the run (default: data/chunkers.yaml)")
    ap.add_argument("--gold", default=HUMAN, choices=(HUMAN, "generated"))
    ap.add_argument("--cells", default=DEFAULT_CELLS)
    ap.add_argument("--folds", type=int, default=FOLDS)
    ap.add_argument("--label", default=None)
    ap.add_argument("--write", action="store_true", help=f"append the table to {OUT.relative_to(ROOT)}")
    args = ap.parse_args(argv)

    settings = Settings.from_env(os.environ).with_paths(corpus=args.corpus, data=args.data, chunkers=args.chunkers)
    ws = Workspace(settings)
    configs = load_chunker_configs(settings.chunkers_file)
    entries = declared_entries(args.corpus, args.data, args.gold, configs)   # by name (_stored.py)
    qdocs = question_documents(ws, args.gold)
    label = args.label or f"{Path(args.corpus).name} ({args.gold} questions)"
    lines = [f"### {label}", "",
             "| cell | questions | in sample: best evidence-aware vs best plain | gain [95% CI] | out of fold: "
             "recall | gain [95% CI] | win (≥ +5, CI > 0) | chosen per fold (evidence / plain) |",
             "|---|---|---|---|---|---|---|---|"]
    for cell in args.cells.split(","):
        retriever, mode, budget = cell.split("/")
        a, b = sides(entries, retriever, mode, int(budget), family)
        result = compare_out_of_fold(a, b, qdocs, k=args.folds)
        if result is None:
            lines.append(f"| {cell} | – | not evaluated | | | | | |")
            continue
        lines.append(rows(result, cell))
    table = "\n".join(lines) + "\n"
    print(table)
    if args.write:
        block = (provenance(command("bench_out_of_fold.py", argv or sys.argv[1:], drop=("--write",)),
                            note=f"{args.folds} folds by document; a side's best set is chosen on 3 folds and scored "
                                 "on the 4th.") + table + "\n")
        write_page(OUT, "Out-of-fold comparisons (generated by bench/bench_out_of_fold.py)", block, append=True,
                   separator="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
