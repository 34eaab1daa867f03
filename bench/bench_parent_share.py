"""A small-to-big set's parents sized to the context budget, measured out of fold (issue 32).

A set with ``expand: N`` delivers each retrieved unit as its bounded parent of up to N
characters, whatever the budget: at 1,500 characters an 800-character parent is half the
context (one wrong parent wastes half of it), at 5,000 a sixth (a statement page cannot come
whole). This bench delivers the same rankings with parents of up to ``budget / share``
characters instead (share 3: at least three pieces of evidence fit), and asks whether that
wins where the share was not chosen:

- per corpus and cell, the set at its own bound and at each share (the cell's retriever —
  BM25 unless the cell names another, e.g. hybrid — over the stored index, loaded as the
  evaluation loads it, the evaluation's own delivery and budget rule: at its own bound it must
  reproduce the stored evaluation exactly, and the page says whether it does);
- the best evidence-aware vs the best plain splitter, in sample and out of fold by document
  (evaluation/out_of_fold.py), with the share variants among the evidence-aware candidates;
- the share chosen leave-one-corpus-out (best mean rank over the other corpora's cells) and
  scored on the held-out corpus against its best plain splitter.

    python bench/bench_parent_share.py --run financebench_dev=../shared/devdata/financebench_dev:/tmp/fb/store \\
        --cell financebench_dev=bm25/filtered/2000 --cell financebench_dev=hybrid/filtered/2000 ... [--set evidence] [--shares 2,2.5,3,4] [--capped] \\
        [--chunkers data/chunkers-peers.yaml] [--title T] [--write [--append]]

With ``--capped`` the parents are min(the set's own bound, budget / share): what the pipeline
delivers since the share was adopted (evaluation/expander.py, share 3). The stored evaluations
then equal the capped share 3, and the page says so per cell.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from finchunk_pipeline import load_retriever  # noqa: E402
from finchunk_pipeline.builders.evaluation import document_reader  # noqa: E402
from finchunk_pipeline.chunk_sets import load_chunker_configs  # noqa: E402
from finchunk_pipeline.corpus import load_corpus  # noqa: E402
from finchunk_pipeline.evaluation.budget import score_budgets  # noqa: E402
from finchunk_pipeline.evaluation.chunk_set import HUMAN  # noqa: E402
from finchunk_pipeline.evaluation.compare import paired_bootstrap  # noqa: E402
from finchunk_pipeline.evaluation.expander import parent_bound, parent_expander  # noqa: E402
from finchunk_pipeline.evaluation.out_of_fold import Side, compare_out_of_fold, per_question  # noqa: E402
from finchunk_pipeline.evaluation.retrieval import delivery, gold_spans, question_languages  # noqa: E402
from finchunk_pipeline.evaluation.retriever_modes import CHUNK_COLUMNS  # noqa: E402
from finchunk_pipeline.index.registry import LoadRequest  # noqa: E402
from finchunk_pipeline.routing import Catalog  # noqa: E402
from finchunk_pipeline.settings import Settings  # noqa: E402
from finchunk_pipeline.storage.workspace import Workspace  # noqa: E402

from _docs import command, section, write_page  # noqa: E402
from _stored import declared_entries  # noqa: E402
from _vote import cell_ranks  # noqa: E402

OUT = ROOT / "docs" / "benchmarks" / "parent-share.md"
RETRIEVER = "bm25"   # a cell's retriever when it names none
DEPTH = 100


def variant(name: str, share: float | None, capped: bool = False) -> str:
    return name if share is None else f"{name} @{'min(own, ' if capped else ''}budget/{share:g}{')' if capped else ''}"


class Run:
    """One corpus's stored run: its questions, the stored evaluations and a chunk set's rankings."""

    def __init__(self, corpus: str, data: str, chunkers: str | None):
        settings = Settings.from_env(os.environ).with_paths(corpus=corpus, data=data, chunkers=chunkers)
        self.ws = Workspace(settings)
        self.configs = load_chunker_configs(settings.chunkers_file)
        self.corpus = load_corpus(self.ws.corpus_dir)
        self.stored = declared_entries(corpus, data, HUMAN, self.configs)   # by name (_stored.py)
        qs = self.corpus.questions.to_dict("records")
        self.questions = [q for q in qs if q["gold_passages"] is not None and len(q["gold_passages"])]
        self.gold = gold_spans(self.corpus.passages)
        self.question_docs = {q["question_id"]: list(q["doc_ids"])[0] for q in self.questions
                              if q["doc_ids"] is not None and len(q["doc_ids"])}

    def entries(self, retriever: str, mode: str) -> list[dict]:
        return [e for e in self.stored if e.get("retriever") == retriever and e.get("mode") == mode]

    def load(self, retriever: str, version: str, chunks):
        """The stored ``retriever`` of a chunk-set version, loaded as the evaluation loads it
        (builders/evaluation.py: the run's embedding cache and backend, the corpus's routing
        catalog for hybrid's per-query weights)."""
        settings = self.ws.settings
        catalog = Catalog.from_parquet(self.ws.manifest_path) if self.ws.manifest_path.exists() else None
        return load_retriever(retriever, self.ws.index_dir(version), LoadRequest(
            chunks, None, settings.embeddings_dir, embed_backend=settings.embed_backend or None, catalog=catalog))

    def recalls(self, name: str, cells: list[tuple[str, str, int]], shares: list[float], capped: bool = False) -> dict:
        """{(retriever, mode, budget): {share or None (own bound): {question id: recall}}} for chunk set ``name``."""
        cfg = next(c for c in self.configs if c.name == name)
        if not cfg.expand:
            raise SystemExit(f"{name}: no expand (a small-to-big set is needed)")
        chunks = self.ws.chunks.read(cfg.chunks_version_name, columns=CHUNK_COLUMNS)
        # one read per document, shared by the expanders of every bound
        reader = lru_cache(maxsize=None)(document_reader(self.ws.manifest_path, self.ws.blocks))
        deliveries = {}

        def deliver_at(bound: int):
            if bound not in deliveries:
                deliveries[bound] = delivery(chunks, parent_expander(chunks, reader, bound))
            return deliveries[bound]

        doc_ids = chunks["doc_id"].to_numpy()
        out: dict = {}
        for retriever_name, mode in dict.fromkeys((r, m) for r, m, _ in cells):
            retriever = self.load(retriever_name, cfg.version_name, chunks)
            langs = question_languages(retriever, self.questions)
            allowed = ([np.isin(doc_ids, list(q["doc_ids"])) for q in self.questions] if mode == "filtered"
                       else None)
            hits = retriever.search_many([q["question"] for q in self.questions], DEPTH, allowed,
                                         **({"languages": langs} if langs else {}))
            for r, m, budget in cells:
                if (r, m) != (retriever_name, mode):
                    continue
                cell = out.setdefault((r, mode, budget), {})
                for share in [None, *shares]:
                    # capped: never past the set's own bound; uncapped: up to the budget
                    deliver = deliver_at(cfg.expand if share is None else
                                         parent_bound(cfg.expand if capped else budget, budget, share))
                    rec = cell.setdefault(share, {})
                    for q, ranked in zip(self.questions, hits):
                        g = [self.gold[x] for x in q["gold_passages"]]
                        s = score_budgets(q["question_id"], q["question_type"], g, [deliver(r) for r, _ in ranked],
                                          (budget,))
                        rec[q["question_id"]] = round(s.retrieved[budget] / s.n_gold, 6)  # as stored
        return out


def stored_is(entry: dict | None, budget: int, by_share: dict, shares: list[float], capped: bool) -> str:
    """Which computed delivery the stored evaluation of the set equals, question by question
    (the check that this bench scores as the pipeline does): "own bound", a share, or "**neither**"."""
    if entry is None:
        return "not stored"
    stored = per_question(entry, budget)
    same = [s for s in [None, *shares] if by_share[s] == stored]
    if not same:
        return "**neither**"
    if len(same) == len(shares) + 1:
        return "own bound (= every share here)"
    return " = ".join("own bound" if s is None else variant("", s, capped).strip() for s in same)


def mean(d: dict[str, float]) -> float:
    return sum(d.values()) / len(d) if d else 0.0


def pct(x: float) -> str:
    return f"{100 * x:.1f}"


def pp(x: float) -> str:
    return f"{100 * x:+.1f}"


def mean_ranks(cells: dict, shares: list[float]) -> dict[float, float]:
    """Each share's mean rank over one corpus's cells ({cell: {share: {question: recall}}}), by
    mean recall in each cell (``_vote.cell_ranks``: tied shares share their mean rank)."""
    ranks = defaultdict(list)
    for by_share in cells.values():
        for s, rank in cell_ranks({s: mean(by_share[s]) for s in shares}).items():
            ranks[s].append(rank)
    return {s: float(np.mean(r)) for s, r in ranks.items()}


def choose_share(votes: list[dict[float, float]], shares: list[float]) -> float:
    """The share with the best mean rank over the corpora's votes (each corpus one vote); a tie
    goes to the smaller share (the wider parents: nearer the sets' fixed bounds)."""
    return min(shares, key=lambda s: (np.mean([v[s] for v in votes]), s))


def cell_name(retriever: str, mode: str, budget: int) -> str:
    return f"{'' if retriever == RETRIEVER else retriever + '/'}{mode} @{budget:,}"


def sides_with(run: Run, retriever: str, mode: str, budget: int,
               extra: dict[str, dict[str, float]]) -> tuple[Side, Side]:
    ev, pl = Side("evidence", dict(extra)), Side("plain", {})
    for e in run.entries(retriever, mode):
        side = {"evidence": ev, "plain": pl}.get(e.get("family") or "")
        if side is not None:
            side.recalls[e["name"]] = per_question(e, budget)
    return ev, pl


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", required=True, help="NAME=CORPUS:DATA (a stored `finchunk run`)")
    ap.add_argument("--cell", action="append", required=True, help="NAME=[RETRIEVER/]MODE/BUDGET (default bm25)")
    ap.add_argument("--chunkers", default="data/chunkers-peers.yaml")
    ap.add_argument("--set", default="evidence", help="the small-to-big chunk set whose parents are resized")
    ap.add_argument("--shares", default="2,2.5,3,4")
    ap.add_argument("--capped", action="store_true",
                    help="parents of min(the set's own bound, budget / share): a share only narrows them")
    ap.add_argument("--title", default=None, help="the section's title")
    ap.add_argument("--write", action="store_true", help=f"write {OUT.relative_to(ROOT)}")
    ap.add_argument("--append", action="store_true", help="with --write: add the section to the page")
    args = ap.parse_args(argv)
    shares = [float(s) for s in args.shares.split(",")]
    runs = {}
    for spec in args.run:
        name, _, paths = spec.partition("=")
        corpus, _, data = paths.rpartition(":")
        runs[name] = Run(corpus, data, args.chunkers)
    cells: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for spec in args.cell:
        name, _, cell = spec.partition("=")
        *retriever, mode, budget = cell.split("/")
        cells[name].append((retriever[0] if retriever else RETRIEVER, mode, int(budget)))
    retrievers = sorted({r for cs in cells.values() for r, _, _ in cs})

    recalls = {name: runs[name].recalls(args.set, cells[name], shares, args.capped) for name in runs}
    how = "min(own bound, budget / share)" if args.capped else "budget / share"
    label = "BM25" if retrievers == [RETRIEVER] else ", ".join(retrievers)
    lines = [f"### `{args.set}` at its own bound and with parents of {how} ({label})", "",
             "| corpus | cell | own bound | " + " | ".join(f"budget/{s:g}" for s in shares)
             + " | the stored evaluation is |", "|---|---|---:|" + "---:|" * len(shares) + "---|"]
    for name, run in runs.items():
        for (retriever, mode, budget), by_share in recalls[name].items():
            stored = next((e for e in run.entries(retriever, mode) if e["name"] == args.set), None)
            lines.append(f"| {name} | {cell_name(retriever, mode, budget)} | {pct(mean(by_share[None]))} | "
                         + " | ".join(pct(mean(by_share[s])) for s in shares)
                         + f" | {stored_is(stored, budget, by_share, shares, args.capped)} |")

    lines += ["", "### Best evidence-aware vs best plain splitter, the share variants among the evidence-aware "
              "candidates", "",
              "4 folds by document: each side's best set (evidence-aware: the stored sets and the share variants) "
              "chosen on 3 folds, scored on the 4th.", "",
              "| corpus | cell | without the variants: in sample / out of fold | with them: in sample | gain [95% CI] "
              "| out of fold | gain [95% CI] | chosen per fold (evidence-aware) |", "|---|---|---|---|---|---|---|---|"]
    for name, run in runs.items():
        for (retriever, mode, budget), by_share in recalls[name].items():
            a0, b0 = sides_with(run, retriever, mode, budget, {})
            r0 = compare_out_of_fold(a0, b0, run.question_docs)
            extra = {variant(args.set, s, args.capped): by_share[s] for s in shares}
            a1, b1 = sides_with(run, retriever, mode, budget, extra)
            r1 = compare_out_of_fold(a1, b1, run.question_docs)
            if r0 is None or r1 is None:
                lines.append(f"| {name} | {cell_name(retriever, mode, budget)} | – | | | | | |")
                continue
            i, o = r1["in_sample"], r1["out_of_fold"]
            chosen = "; ".join(c["a"] for c in o["chosen"])
            lines.append(f"| {name} | {cell_name(retriever, mode, budget)} | {pp(r0['in_sample']['gain'])} / "
                         f"{pp(r0['out_of_fold']['gain'])} [{pp(r0['out_of_fold']['ci_low'])}, "
                         f"{pp(r0['out_of_fold']['ci_high'])}] | {i['a']} {pct(i['a_recall'])} vs {i['b']} "
                         f"{pct(i['b_recall'])} | {pp(i['gain'])} [{pp(i['ci_low'])}, {pp(i['ci_high'])}] | "
                         f"{pct(o['a_recall'])} vs {pct(o['b_recall'])} | {pp(o['gain'])} [{pp(o['ci_low'])}, "
                         f"{pp(o['ci_high'])}] | {chosen} |")

    lines += ["", "### The share chosen leave-one-corpus-out, scored on the held-out corpus", "",
              "The share with the best mean rank over the other corpora (each corpus one vote: its cells' mean "
              "rank), against the held-out cell's best plain splitter and the set at its own bound.", "",
              "| held out | share chosen on the others | cell | at the share | own bound | best plain | gain over "
              "plain [95% CI] | gain over own bound [95% CI] |", "|---|---|---|---:|---:|---|---|---|"]
    for name, run in runs.items():
        others = [n for n in runs if n != name]
        if not others:
            continue
        share = choose_share([mean_ranks(recalls[n], shares) for n in others], shares)
        for (retriever, mode, budget), by_share in recalls[name].items():
            _, plain = sides_with(run, retriever, mode, budget, {})
            qs = sorted(by_share[share])
            best = plain.best(qs)
            a = [by_share[share][q] for q in qs]
            g, lo, hi = paired_bootstrap(a, [plain.recalls[best].get(q, 0.0) for q in qs])
            g2, lo2, hi2 = paired_bootstrap(a, [by_share[None][q] for q in qs])
            lines.append(f"| {name} | {share:g} | {cell_name(retriever, mode, budget)} | {pct(mean(by_share[share]))} | "
                         f"{pct(mean(by_share[None]))} | {best} {pct(mean({q: plain.recalls[best].get(q, 0.0) for q in qs}))} | "
                         f"{pp(g)} [{pp(lo)}, {pp(hi)}] | {pp(g2)} [{pp(lo2)}, {pp(hi2)}] |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.write:
        write_page(OUT, "Parents sized to the context budget (generated by bench/bench_parent_share.py)",
                   section(command("bench_parent_share.py", argv or sys.argv[1:]), table,
                           args.title or f"{args.set}: parents of {how}"), append=args.append)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
