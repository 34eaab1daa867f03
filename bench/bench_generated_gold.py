"""Generated gold as a judge: how it ranks chunk sets against people's questions.

Reads the reports (evaluation.json) of `finchunk run`s and writes
docs/benchmarks/generated-gold.md (command, machine, date, commit, tables):

1. the generator on a corpus of iXBRL filings: figures located at their exact span per
   filing, questions by type, time to generate every candidate;
2. per cell (retriever / mode / budget), Spearman's rank correlation of the chunk sets
   common to the runs: generated gold (row+header) vs generated gold (row alone), and
   generated gold vs human questions on documents of the same kind;
3. per cell, best evidence-aware vs best plain splitter on each question set (the reports'
   Summary, with their 95% intervals).

    python bench/bench_generated_gold.py --corpus ../shared/devdata/sec_html_dev \\
        --generated /tmp/g/out/evaluation.json --row /tmp/g-row/out/evaluation.json \\
        --human /tmp/fb/out/evaluation.json --human-label financebench_dev [--write]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from finchunk_pipeline.evaluation.cells import at_budget  # noqa: E402
from finchunk_pipeline.evaluation.generated_report import spearman  # noqa: E402

from _docs import command, section, write_page  # noqa: E402

OUT = ROOT / "docs" / "benchmarks" / "generated-gold.md"
CELLS = ("bm25/global/1500", "bm25/filtered/2000", "bm25/filtered/5000", "bm25/global/5000")


def recalls(report: dict, retriever: str, mode: str, budget: int) -> dict[str, float]:
    if "restricted" in report:  # per-question recalls restricted to some documents' questions
        return report["restricted"](retriever, mode, budget)
    return {e["name"]: at_budget(e.get("budget"), budget) for e in report["chunk_sets"]
            if e.get("retriever") == retriever and e.get("mode") == mode and e.get("budget")}


def restricted(corpus: str, data: str, chunkers: str | None, report: dict, docs: set[str] | None,
               gold: str = "human") -> dict:
    """``report`` whose recalls are recomputed from the run's stored per-question recalls on
    question set ``gold`` ("human": the corpus's own; "generated"), on the questions about
    ``docs`` only when given (both question sets on the same documents)."""
    from finchunk_pipeline.chunk_sets import load_chunker_configs
    from finchunk_pipeline.corpus import load_corpus
    from _stored import declared_entries
    from finchunk_pipeline.evaluation.out_of_fold import per_question
    from finchunk_pipeline.settings import Settings
    from finchunk_pipeline.storage.workspace import Workspace

    from finchunk_pipeline.storage.gold import GoldFiles

    settings = Settings.from_env(os.environ).with_paths(corpus=corpus, data=data, chunkers=chunkers)
    ws = Workspace(settings)
    q = load_corpus(corpus).questions if gold == "human" else GoldFiles(ws.generated_gold_dir).read()[0]
    keep = {qid for qid, d in zip(q["question_id"], q["doc_ids"])
            if d is not None and len(d) and (docs is None or set(d) <= docs)}
    entries = declared_entries(corpus, data, gold, load_chunker_configs(settings.chunkers_file))  # by name

    def fn(retriever, mode, budget):
        out = {}
        for e in entries:
            if e.get("retriever") == retriever and e.get("mode") == mode:
                r = [v for qid, v in per_question(e, budget).items() if qid in keep]
                if r:
                    out[e["name"]] = sum(r) / len(r)
        return out

    qdocs = {qid: list(d)[0] for qid, d in zip(q["question_id"], q["doc_ids"]) if qid in keep}

    def fam(retriever, mode, budget):
        from finchunk_pipeline.evaluation.out_of_fold import compare_out_of_fold, sides

        kept = [{**e, "per_question": {"ids": [i for i in e["per_question"]["ids"] if i in keep],
                                       "recall": {str(budget): [v for i, v in zip(e["per_question"]["ids"],
                                                  e["per_question"]["recall"][str(budget)]) if i in keep]}}}
                for e in entries if e.get("per_question") and str(budget) in e["per_question"].get("recall", {})]
        r = compare_out_of_fold(*sides(kept, retriever, mode, budget, lambda e: e.get("family")), qdocs)
        if r is None:
            return "–"
        i, o = r["in_sample"], r["out_of_fold"]
        return (f"{i['a']} {100 * i['a_recall']:.1f} vs {i['b']} {100 * i['b_recall']:.1f}, {100 * i['gain']:+.1f} "
                f"[{100 * i['ci_low']:+.1f}, {100 * i['ci_high']:+.1f}]; out of fold {100 * o['gain']:+.1f} "
                f"[{100 * o['ci_low']:+.1f}, {100 * o['ci_high']:+.1f}]")

    return {**report, "restricted": fn, "family": fam, "kept_questions": len(keep)}


def family_row(report: dict, retriever: str, mode: str, budget: int) -> str:
    if "family" in report:
        return report["family"](retriever, mode, budget)
    for r in (report.get("summary") or {}).get("families") or []:
        if (r["retriever"], r["mode"], r["budget"]) == (retriever, mode, budget):
            return (f"{r['evidence']} {100 * r['evidence_recall']:.1f} vs {r['plain']} {100 * r['plain_recall']:.1f}, "
                    f"{100 * r['gain']:+.1f} [{100 * r['ci_low']:+.1f}, {100 * r['ci_high']:+.1f}]")
    return "–"


def generator_lines(corpus: str) -> list[str]:
    from finchunk_pipeline.evaluation.xbrl_gold import FilingInput, generate
    from finchunk_pipeline.evaluation.xbrl_gold.corpus import parsed_filings

    skipped: dict[str, str] = {}
    items = list(parsed_filings(Path(corpus), skipped))
    t0 = time.perf_counter()
    every = generate(items, per_document=None)
    seconds = time.perf_counter() - t0
    sample = generate(items)
    lines = ["| filing | tagged figures | located at their span | candidates | sampled | label words not all in the row |",
             "|---|---:|---:|---:|---:|---:|"]
    for f in sample.report["filings"]:
        lines.append(f"| {f['doc_id']} | {f['to_locate']} | {f['located']} ({100 * f['located_share']:.1f}%) | "
                     f"{sum(f['candidates'].values())} | {sum(f['questions'].values())} | "
                     f"{100 * f['label_not_in_row_share']:.0f}% |")
    types = ", ".join(f"{k} {v}" for k, v in sample.report["by_type"].items())
    return lines + ["", f"Every candidate: {len(every.questions)} questions generated in {seconds:.1f} s (parsed "
                        f"filings in memory); the default sample: {len(sample.questions)} ({types}).", ""]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="the iXBRL corpus the generated gold came from")
    ap.add_argument("--generated", required=True, help="evaluation.json of the run on generated gold (row+header)")
    ap.add_argument("--generated-stored", nargs=2, metavar=("CORPUS", "DATA"), default=None,
                    help="read the generated gold's recalls from that run's stored evaluation-generated.json files "
                         "(a corpus with questions of its own, whose report holds the corpus's questions)")
    ap.add_argument("--row", default=None, help="evaluation.json of the run on generated gold (row alone)")
    ap.add_argument("--human", default=None, help="evaluation.json of a run on human questions")
    ap.add_argument("--human-label", default="human questions")
    ap.add_argument("--human-on-generated-docs", nargs=2, metavar=("CORPUS", "DATA"), default=None,
                    help="rank the human run's chunk sets on its questions about the filings of the generated "
                         "gold only (the run's corpus and data root; both question sets on the same documents)")
    ap.add_argument("--cells", default=",".join(CELLS))
    ap.add_argument("--chunkers", default=None, help="the runs' chunker file (for the stored evaluations' versions)")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--append", action="store_true", help="with --write: add to the file instead of replacing it")
    ap.add_argument("--title", default=None, help="a heading for this part of the file")
    args = ap.parse_args(argv)
    gen = json.loads(Path(args.generated).read_text())
    if args.generated_stored:
        gen = restricted(*args.generated_stored, args.chunkers, gen.get("generated_gold", {}).get("report") or gen, None,
                         gold="generated")
    row = json.loads(Path(args.row).read_text()) if args.row else None
    human = json.loads(Path(args.human).read_text()) if args.human else None
    if human is not None and args.human_on_generated_docs:
        from finchunk_pipeline.evaluation.xbrl_gold.corpus import parsed_filings

        docs = {f.doc.doc_id for f in parsed_filings(Path(args.corpus), {})}
        human = restricted(*args.human_on_generated_docs, args.chunkers, human, docs)
        args.human_label += f" ({human['kept_questions']} on the same {len(docs)} filings)"
    lines = ["## The generator", ""] + generator_lines(args.corpus)
    lines += ["## Rankings of the chunk sets (Spearman), and best evidence-aware vs best plain", "",
              "| cell | sets | row+header vs row | generated vs " + args.human_label + " | generated: best vs best | "
              + (f"{args.human_label}: best vs best |" if human else "|"),
              "|---|---:|---:|---:|---|" + ("---|" if human else "")]
    disagreements = []
    for cell in args.cells.split(","):
        retriever, mode, budget = cell.split("/")
        budget = int(budget)
        g = recalls(gen, retriever, mode, budget)
        common = sorted(n for n in g if g[n] is not None)
        rho_row = rho_h = None
        if row:
            r = recalls(row, retriever, mode, budget)
            names = [n for n in common if r.get(n) is not None]
            rho_row = spearman([g[n] for n in names], [r[n] for n in names])
        n_h = ""
        if human:
            h = recalls(human, retriever, mode, budget)
            names = [n for n in common if h.get(n) is not None]
            n_h = str(len(names))
            rho_h = spearman([g[n] for n in names], [h[n] for n in names])
            rank_g = {n: i for i, n in enumerate(sorted(names, key=lambda n: -g[n]))}
            rank_h = {n: i for i, n in enumerate(sorted(names, key=lambda n: -h[n]))}
            far = sorted(names, key=lambda n: -abs(rank_g[n] - rank_h[n]))[:4]
            disagreements.append(f"- {cell}: " + "; ".join(
                f"`{n}` {rank_g[n] + 1} vs {rank_h[n] + 1} ({100 * g[n]:.1f} / {100 * h[n]:.1f})" for n in far))
        fmt = lambda x: "–" if x is None else f"{x:+.2f}"  # noqa: E731
        lines.append(f"| {cell} | {n_h or len(common)} | {fmt(rho_row)} | {fmt(rho_h)} | "
                     f"{family_row(gen, retriever, mode, budget)} |"
                     + (f" {family_row(human, retriever, mode, budget)} |" if human else ""))
    if disagreements:
        lines += ["", f"Largest rank differences (rank on generated gold vs on {args.human_label}; recall %):", "",
                  *disagreements]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        block = section(command("bench_generated_gold.py", argv or sys.argv[1:]),
                        text.replace("## ", "### ") if args.title else text, title=args.title)
        write_page(OUT, "Generated gold as a judge (generated by bench/bench_generated_gold.py)", block,
                   append=args.append)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
