"""``finchunk corpus synth --out DIR --seed N [--issuers N]`` and ``finchunk corpus validate DIR``."""
from __future__ import annotations

import argparse
import time


def register(subparsers) -> None:
    parser = subparsers.add_parser("corpus", help="generate or validate an evaluation corpus")
    sub = parser.add_subparsers(dest="corpus_command", required=True)

    synth = sub.add_parser("synth", help="write the deterministic synthetic corpus")
    synth.add_argument("--out", required=True, help="output folder")
    synth.add_argument("--seed", type=int, default=None, help="random seed (default: the shipped corpus seed)")
    synth.add_argument("--issuers", type=int, default=None,
                       help="scale: N issuers per document class (default: the shipped default corpus)")
    synth.add_argument("-v", "--verbose", action="store_true")
    synth.set_defaults(func=_synth)

    validate = sub.add_parser("validate", help="load a corpus folder and report problems or counts")
    validate.add_argument("dir")
    validate.add_argument("-v", "--verbose", action="store_true")
    validate.set_defaults(func=_validate)


def _synth(args: argparse.Namespace) -> int:
    from finchunk_pipeline.corpus.synth import DEFAULT_SEED, generate
    seed = DEFAULT_SEED if args.seed is None else args.seed
    t0 = time.perf_counter()
    counts = generate(args.out, seed=seed, issuers=args.issuers)
    print(f"wrote {args.out} (seed {seed}) in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def _validate(args: argparse.Namespace) -> int:
    from finchunk_pipeline.corpus import CorpusError, load_corpus
    try:
        corpus = load_corpus(args.dir)
    except CorpusError as exc:
        print(exc)
        return 1
    docs = corpus.documents
    print(f"{corpus.path}: {len(docs)} documents")
    for t, n in docs["doc_type"].value_counts().sort_index().items():
        print(f"  {t}: {n}")
    if corpus.passages is not None:
        print(f"{len(corpus.passages)} passages")
        for t, n in corpus.passages["kind"].value_counts().sort_index().items():
            print(f"  {t}: {n}")
    if corpus.questions is not None:
        print(f"{len(corpus.questions)} questions")
        for t, n in corpus.questions["question_type"].value_counts().sort_index().items():
            print(f"  {t}: {n}")
    if corpus.xbrl_facts_path is not None:
        import pyarrow.parquet as pq
        print(f"{pq.ParquetFile(corpus.xbrl_facts_path).metadata.num_rows} xbrl facts")
    for doc_id, why in corpus.document_problems.items():
        print(f"unusable document {doc_id}: {why}")
    return 0
