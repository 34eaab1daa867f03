"""Parse throughput of the text and HTML parsers as ratios to LangChain's splitter, timed
in the same run (parse and split in turn, best of N rounds), so the load of a shared
machine mostly cancels.

    FINCHUNK_DEVDATA=/work/shared/devdata PYTHONPATH=. python bench/bench_parse.py [--rounds 5] [--html] [--workers 2]

Prints MB/s of source (UTF-8 bytes) per row and its ratio to
RecursiveCharacterTextSplitter(500, 0, add_start_index=True) over the same texts; the goal
of issue 16 is >= 1.5x. Absolute MB/s move with the machine's load; the ratio is the figure.

With ``--workers N`` it also times the pipeline's parse stage (builders/blocks.py: raw
store in, blocks files written) over the same documents in one process and in N processes
(each round into an empty block store; starting the processes is counted), against the same
single-process LangChain split. The parsers are the same; N processes use N cores.
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata")


def _load(name: str) -> list[dict]:
    return pq.read_table(DEVDATA / name / "documents.parquet").to_pylist()


def _cases(sets: list[str]) -> list[tuple[str, float, list, list]]:
    """Per set: its label, MB, a parse call and a LangChain call (one element lists)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from finchunk_pipeline import select_parser

    splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0, add_start_index=True)
    out = []
    for name in sets:
        recs = _load(name)
        mb = sum(len(r["text"].encode("utf-8")) for r in recs) / 1e6
        spec = select_parser(recs[0]["doc_type"], recs[0]["format"])
        texts = [r["text"] for r in recs]
        # as bench_chunking times them: every document in one call (LangChain's split of a
        # list also pays the collector's scans of the Documents it keeps)
        parse = [lambda: [spec.fn(r["doc_id"], r["text"], r) for r in recs]]
        base = [lambda: splitter.create_documents(texts)]
        out.append((f"{name} ({spec.name})", mb, parse, base))
    return out


def _stage_cases(sets: list[str], workers: int, tmp: Path) -> list[tuple[str, float, list, list]]:
    """Per set: the parse stage in 1 and in ``workers`` processes, and LangChain's split."""
    import pandas as pd
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    from finchunk_pipeline import BlockStore, RawStore, parse_documents

    splitter = RecursiveCharacterTextSplitter(chunk_size=500, chunk_overlap=0, add_start_index=True)
    out = []
    for name in sets:
        recs = _load(name)
        raw = RawStore(tmp / name / "raw")
        rows = []
        for r in recs:
            sha, _ = raw.put(r["text"], r["format"])
            rows.append({k: r.get(k) for k in ("doc_id", "doc_type", "format", "language")} | {"sha": sha})
        docs = pd.DataFrame(rows)
        mb = sum(len(r["text"].encode("utf-8")) for r in recs) / 1e6
        texts = [r["text"] for r in recs]

        def stage(w: int, name=name, raw=raw, docs=docs):
            root = tmp / name / f"blocks-{w}"
            shutil.rmtree(root, ignore_errors=True)
            report = parse_documents(docs, raw, BlockStore(root), workers=w)
            assert report.failed == 0 and report.workers == w, (report.failed, report.workers)

        calls = [lambda: stage(1), lambda: stage(workers)]
        out.append((f"{name} parse stage", mb, calls, [lambda: splitter.create_documents(texts)]))
    return out


def _best(calls: list, rounds: int) -> list[float]:
    """Per call, its best time over ``rounds`` (round r of every call before round r+1)."""
    best = [float("inf")] * len(calls)
    for _ in range(rounds):
        for k, call in enumerate(calls):
            t = time.perf_counter()
            call()
            best[k] = min(best[k], time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--html", action="store_true", help="also sec_html_dev")
    ap.add_argument("--no-text", action="store_true", help="skip financebench_dev")
    ap.add_argument("--workers", type=int, default=0,
                    help="also the parse stage in 1 and in N processes (0: not timed)")
    args = ap.parse_args()
    sets = ([] if args.no_text else ["financebench_dev"]) + (["sec_html_dev"] if args.html else [])
    for label, mb, parse, base in _cases(sets):
        # parse and split in turn, every round: a burst of load on the shared machine
        # hits both sides alike, and the best of the rounds drops it
        calls = [c for pair in zip(parse, base) for c in pair]
        best = _best(calls, args.rounds + 1)  # + 1: the first round warms up
        bp, bb = sum(best[0::2]), sum(best[1::2])
        print(f"{label}: {mb:.2f} MB  parse {mb / bp:.2f} MB/s  LangChain {mb / bb:.2f} MB/s  "
              f"ratio {bb / bp:.3f}x  (best of {args.rounds})")
    if args.workers > 1:
        with tempfile.TemporaryDirectory() as tmp:
            for label, mb, (one, many), (base,) in _stage_cases(sets, args.workers, Path(tmp)):
                t1, tn, tb = _best([one, many, base], args.rounds + 1)
                print(f"{label}: {mb:.2f} MB  1 process {mb / t1:.2f} MB/s ({tb / t1:.3f}x LangChain)  "
                      f"{args.workers} processes {mb / tn:.2f} MB/s ({tb / tn:.3f}x LangChain, "
                      f"{t1 / tn:.2f}x one process)  LangChain {mb / tb:.2f} MB/s  (best of {args.rounds}, "
                      f"load average {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
