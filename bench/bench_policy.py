"""One policy for complete filings, chosen where it is not scored (issue 32).

Reads the stored evaluations of `finchunk run`s on several dev sets and writes
docs/benchmarks/policy.md (command, machine, date, commit, tables):

1. per dev set and cell: the best evidence-aware set against the best plain splitter (every
   plain set stored for that set: each library and size), in sample and out of fold by
   document (evaluation/out_of_fold.py), under each retriever given;
2. leave one dev set out: the evidence-aware policy with the best mean rank over the *other*
   sets' cells, scored on the held-out set against that set's best plain splitter (chosen in
   sample: the plain side gets the benefit of the doubt) — a policy nobody tuned on the set
   it is scored on.

A run is LABEL=CORPUS:DATA[:gold] (gold "human", the default, or "generated"); the same label
may be given several times (e.g. the evidence-aware sets from one run, the peer grid from
another on the same corpus): their entries are merged, later runs winning for a chunk set
stored by both. A cell is LABEL=retriever/mode/budget.

    python bench/bench_policy.py \\
      --run fb=../shared/devdata/financebench_dev:/tmp/peers/store --run fb=../shared/devdata/financebench_dev:/tmp/final/store \\
      --cell fb=bm25/filtered/2000 --cell fb=bm25/filtered/5000 --cell fb=bm25/global/5000 ... [--write]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from finchunk_pipeline.corpus import load_corpus  # noqa: E402
from finchunk_pipeline.evaluation.compare import paired_bootstrap  # noqa: E402
from finchunk_pipeline.evaluation.out_of_fold import compare_out_of_fold, per_question, sides  # noqa: E402
from finchunk_pipeline.storage.gold import GoldFiles  # noqa: E402
from finchunk_pipeline.storage.workspace import corpus_key  # noqa: E402

from _docs import command, section, write_page  # noqa: E402
from _stored import stored_entries  # noqa: E402
from _vote import cell_ranks  # noqa: E402

OUT = ROOT / "docs" / "benchmarks" / "policy.md"


def question_documents(corpus: str, data: str, gold: str) -> dict[str, str]:
    if gold == "generated":
        q = GoldFiles(Path(data) / "corpora" / corpus_key(Path(corpus)) / "generated_gold").read()[0]
    else:
        q = load_corpus(corpus).questions
    return {i: list(d)[0] for i, d in zip(q["question_id"], q["doc_ids"]) if d is not None and len(d)}


def family(e: dict) -> str | None:
    return e.get("family") if e.get("family") in ("evidence", "plain") else None


def cell_recalls(entries: list[dict], retriever: str, mode: str, budget: int) -> dict[str, dict[str, float]]:
    return {e["name"]: per_question(e, budget) for e in entries
            if e.get("retriever") == retriever and e.get("mode") == mode}


def significant_wins(recalls: dict[str, dict[str, float]], names: list[str]) -> dict[str, int]:
    """{candidate: the candidates it beats minus those that beat it} in one cell, a pair counting
    only when its paired bootstrap 95% interval (the questions both answered) excludes 0."""
    names = [n for n in names if n in recalls]
    wins = {n: 0 for n in names}
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            qs = sorted(set(recalls[a]) & set(recalls[b]))
            _, lo, hi = paired_bootstrap([recalls[a][q] for q in qs], [recalls[b][q] for q in qs])
            if lo > 0 or hi < 0:
                winner, loser = (a, b) if lo > 0 else (b, a)
                wins[winner] += 1
                wins[loser] -= 1
    return wins


def pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", required=True, help="LABEL=CORPUS:DATA[:gold]")
    ap.add_argument("--cell", action="append", required=True, help="LABEL=retriever/mode/budget")
    ap.add_argument("--group", default=None,
                    help="LABEL,LABEL,...: leave one out within these sets only (one document type: e.g. the SEC "
                         "filings), the others reported but never used to choose")
    ap.add_argument("--vote", choices=("rank", "significant"), default="rank",
                    help="how a cell ranks the candidates: by mean recall (rank), or by the differences outside "
                         "the noise only (significant: a candidate's score is the candidates it beats minus those "
                         "that beat it, a pair counting only when its paired 95%% interval excludes 0)")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--append", action="store_true", help="with --write: add to the file instead of replacing it")
    ap.add_argument("--title", default=None, help="a heading for this table in the file")
    args = ap.parse_args(argv)
    group = set(args.group.split(",")) if args.group else None

    runs: dict[str, dict] = {}
    for spec in args.run:
        label, rest = spec.split("=", 1)
        corpus, data, *gold = rest.split(":")
        gold = gold[0] if gold else "human"
        r = runs.setdefault(label, {"entries": {}, "qdocs": None, "gold": gold})
        r["entries"].update(stored_entries(corpus, data, gold))
        r["qdocs"] = r["qdocs"] or question_documents(corpus, data, gold)
    cells = [(c.split("=", 1)[0], *c.split("=", 1)[1].split("/")) for c in args.cell]

    lines = ["## Best evidence-aware vs best plain splitter, per dev set", "",
             "| set | cell | questions (documents) | in sample | gain [95% CI] | out of fold (by document) | "
             "plain sets compared |", "|---|---|---|---|---|---|---:|"]
    table: dict[tuple, dict[str, dict[str, float]]] = {}
    for label, retriever, mode, budget in cells:
        entries = [e for es in runs[label]["entries"].values() for e in es]
        a, b = sides(entries, retriever, mode, int(budget), family)
        r = compare_out_of_fold(a, b, runs[label]["qdocs"])
        table[(label, retriever, mode, int(budget))] = {**a.recalls, **b.recalls}
        if r is None:
            continue
        i, o = r["in_sample"], r["out_of_fold"]
        lines.append(f"| {label} | {retriever}/{mode}/{int(budget):,} | {r['questions']} ({r['documents']}) | "
                     f"{i['a']} {100 * i['a_recall']:.1f} vs {i['b']} {100 * i['b_recall']:.1f} | "
                     f"{pp(i['gain'])} [{pp(i['ci_low'])}, {pp(i['ci_high'])}] | "
                     f"{pp(o['gain'])} [{pp(o['ci_low'])}, {pp(o['ci_high'])}] | {len(b.recalls)} |")

    # leave one dev set out: the policy with the best mean rank over the other sets' cells
    evidence_names = set.intersection(*[{n for n, es in r["entries"].items() if es and family(es[0]) == "evidence"}
                                        for r in runs.values()])
    lines += ["", "## Leave one dev set out: a policy chosen on the other sets, scored on this one", "",
              f"Candidates: the evidence-aware sets stored for every set ({', '.join(sorted(evidence_names))}); "
              + ("rank = the candidate's rank by recall among the candidates in a cell; " if args.vote == "rank" else
                 "rank = the candidate's rank by significant wins in a cell (the candidates it beats minus those that "
                 "beat it, a pair counting only when its paired 95% interval excludes 0); ")
              + "the policy is the best "
              "mean rank over the other sets (each set one vote: its cells' mean rank), the plain side the "
              "held-out cell's best plain splitter.", "",
              "| held out | chosen on the others | cell | policy | recall | best plain | recall | gain [95% CI] |",
              "|---|---|---|---|---:|---|---:|---|"]
    if group:
        lines[-4:-4] = [f"Within one document type: {', '.join(sorted(group))} (the policy is chosen on the others of "
                        "these only).", ""]
    for held in runs:
        if group and held not in group:
            continue
        # each other dev set one vote: a candidate's mean rank over that set's cells, then the
        # mean over the sets (a set evaluated at four budgets must not outvote one at one)
        ranks: dict[str, dict[str, list[float]]] = {n: {} for n in sorted(evidence_names)}
        for (label, retriever, mode, budget), recalls in table.items():
            if label == held or (group and label not in group):
                continue
            means = ({n: np.mean(list(recalls[n].values())) for n in sorted(evidence_names) if n in recalls}
                     if args.vote == "rank" else significant_wins(recalls, sorted(evidence_names)))
            for n, rank in cell_ranks(means).items():   # rank 1 = the highest recall (the most wins)
                ranks[n].setdefault(label, []).append(rank)
        scored = {n: np.mean([np.mean(v) for v in per_set.values()]) for n, per_set in ranks.items() if per_set}
        if not scored:
            continue
        policy = min(sorted(scored), key=lambda n: scored[n])
        for (label, retriever, mode, budget), recalls in table.items():
            if label != held or policy not in recalls:
                continue
            entries = [e for es in runs[label]["entries"].values() for e in es]
            _, b = sides(entries, retriever, mode, budget, family)
            qs = sorted(q for q in recalls[policy] if all(q in r for r in b.recalls.values()))
            plain = b.best(qs)
            x, y = [recalls[policy][q] for q in qs], [b.recalls[plain][q] for q in qs]
            g, lo, hi = paired_bootstrap(x, y)
            lines.append(f"| {held} | mean rank {scored[policy]:.1f} | {retriever}/{mode}/{budget:,} | {policy} | "
                         f"{100 * np.mean(x):.1f} | {plain} | {100 * np.mean(y):.1f} | {pp(g)} [{pp(lo)}, {pp(hi)}] |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        body = text.replace("\n## ", "\n### ").replace("## ", "### ", 1) + "\n"
        block = section(command("bench_policy.py", argv or sys.argv[1:]), body, title=args.title)
        write_page(OUT, "One policy for filings, chosen where it is not scored (generated by bench/bench_policy.py)",
                   block, append=args.append, separator="\n" if args.title else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
