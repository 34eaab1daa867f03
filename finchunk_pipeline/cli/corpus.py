"""``finchunk corpus synth --out DIR --seed N [--issuers N]``, ``finchunk corpus validate DIR`` and
``finchunk corpus from-files DIR --out CORPUS [--metadata meta.csv] [--questions q.csv]`` and
``finchunk corpus gold-from-xbrl CORPUS --out CORPUS2 [--per-filing N|all] [--evidence row+header|row]``."""
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
    synth.add_argument("--language", default="en", choices=("en", "es"),
                       help="en: the default corpus (data/corpus/default); es: the Spanish corpus (data/corpus/es)")
    synth.add_argument("-v", "--verbose", action="store_true")
    synth.set_defaults(func=_synth)

    validate = sub.add_parser("validate", help="load a corpus folder and report problems or counts")
    validate.add_argument("dir")
    validate.add_argument("-v", "--verbose", action="store_true")
    validate.set_defaults(func=_validate)

    ff = sub.add_parser("from-files", help="a corpus folder from a folder of PDF / HTML / Markdown / text files")
    ff.add_argument("dir", help="folder of documents (searched recursively)")
    ff.add_argument("--out", required=True, help="corpus folder to write")
    ff.add_argument("--metadata", default=None, help="CSV: file, then any documents column (title, doc_type, ...)")
    ff.add_argument("--questions", default=None,
                    help="CSV: question_id, question, file, [question_type, answer, page, quote]")
    ff.add_argument("--follow-links", action="store_true",
                    help="read what symbolic links point to (by default they are listed as skipped)")
    ff.add_argument("-v", "--verbose", action="store_true")
    ff.set_defaults(func=_from_files)

    gx = sub.add_parser("gold-from-xbrl",
                        help="a copy of a corpus with questions generated from its filings' inline-XBRL facts")
    gx.add_argument("dir", help="corpus folder (its inline-XBRL HTML filings are read)")
    gx.add_argument("--out", required=True, help="corpus folder to write (documents copied, questions generated)")
    gx.add_argument("--per-filing", default="150", help="questions per filing, or 'all' (default 150)")
    gx.add_argument("--evidence", default="row+header", choices=("row+header", "row"),
                    help="gold of a table figure: its row and the table's column headers (default), or the row")
    gx.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    gx.set_defaults(func=_gold_from_xbrl)


def _synth(args: argparse.Namespace) -> int:
    from finchunk_pipeline.corpus.synth import DEFAULT_SEED, generate
    seed = DEFAULT_SEED if args.seed is None else args.seed
    t0 = time.perf_counter()
    if getattr(args, "language", "en") == "es":
        from finchunk_pipeline.corpus.synth.es import generate_es

        if args.issuers is not None:
            print("--issuers applies to the English corpus only")
            return 2
        counts = generate_es(args.out, seed=seed)
    else:
        counts = generate(args.out, seed=seed, issuers=args.issuers)
    print(f"wrote {args.out} (seed {seed}) in {time.perf_counter() - t0:.1f} s: "
          + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def _gold_from_xbrl(args: argparse.Namespace) -> int:
    from finchunk_pipeline.corpus import CorpusError
    from finchunk_pipeline.builders.xbrl_gold import REPORT, gold_from_xbrl

    per = None if str(args.per_filing).lower() == "all" else int(args.per_filing)
    t0 = time.perf_counter()
    try:
        gold = gold_from_xbrl(args.dir, args.out, seed=args.seed, per_document=per, evidence=args.evidence)
    except (CorpusError, ValueError) as exc:
        print(exc)
        return 1
    rep = gold.report
    for f in rep["filings"]:
        print(f"  {f['doc_id']}: {sum(f['questions'].values())} questions; tagged figures located "
              f"{f['located']}/{f['to_locate']}; rejected: "
              + (", ".join(f"{k} {v}" for k, v in f["rejected"].items()) or "none"))
    for doc_id, why in rep["skipped"].items():
        print(f"  {doc_id}: no questions ({why})")
    print(f"wrote {args.out} in {time.perf_counter() - t0:.1f} s: {rep['questions']} questions "
          f"({', '.join(f'{k} {v}' for k, v in rep['by_type'].items())}), evidence {rep['evidence']}; "
          f"report {args.out}/{REPORT}")
    return 0 if rep["questions"] else 1


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


def _from_files(args: argparse.Namespace) -> int:
    from finchunk_pipeline.corpus import load_corpus
    from finchunk_pipeline.corpus.from_files import build_corpus

    t0 = time.perf_counter()
    result = build_corpus(args.dir, args.out, args.metadata, args.questions, follow_links=args.follow_links)
    for rel, why in result.skipped.items():
        print(f"skipped {rel}: {why}")
    for note in result.notes:
        print(f"note: {note}")
    corpus = load_corpus(args.out)  # what the pipeline will read: validated now
    formats = corpus.documents["format"].value_counts().to_dict()
    print(f"wrote {args.out} in {time.perf_counter() - t0:.1f} s: {result.documents} documents "
          f"({', '.join(f'{n} {f}' for f, n in sorted(formats.items()))})"
          + (f", {result.questions} questions, {result.passages} passages" if args.questions else ""))
    for doc_id, why in corpus.document_problems.items():
        print(f"unusable document {doc_id}: {why}")
    print(f"next: finchunk run --corpus {args.out}")
    return 0
