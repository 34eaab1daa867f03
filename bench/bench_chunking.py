"""Parsing and chunking throughput (MB/s) per parser and per strategy, as ratios to a plain baseline in the same run, then parse + chunk at scale with peak memory.

1. Throughput on a corpus folder: parse MB/s per parser over its documents; chunk MB/s of
   every strategy in STRATEGIES over the parsed documents (parse excluded, no token
   counting; "semantic" only with --with-semantic since it embeds), plus one row
   "structure + token counting" with the embedding model's tokenizer. Every row runs in
   rounds, each round timing every row once, the baselines included (interleaved: the load
   and the baseline's own swings hit every row alike). Baselines over the
   same raw texts: LangChain's RecursiveCharacterTextSplitter(500, 0, add_start_index=True)
   when langchain_text_splitters is importable, and always plain 500-character slicing.
   Every measurement is the best of --repeat runs (a run loops over the corpus until it lasts
   about --min-seconds; the time of one corpus pass is reported). MB = UTF-8 bytes of documents.text (the
   raw source), the same numerator for every row, so a ratio is a ratio of times;
   "view MB/s" divides the parsed text view instead (smaller than the source for HTML).
2. Scale: generate --scale-docs documents (finchunk_pipeline.corpus.synth, about 11 per
   issuer) in a temporary folder, then parse + chunk ("structure" and "packed", token
   counts as the pipeline's build_chunk_set does) every document streaming from
   documents.parquet (batches, nothing kept). Generation and the scale run are each a
   child process started before the throughput step, so the reported peak RSS
   (ru_maxrss; VmHWM of /proc/self/status as a cross-check) is the scale run's own. Started
   from a larger process (bench_all.py after its embedding sections), ru_maxrss is not: Linux
   carries the parent's across exec; VmHWM is then the figure.

    /work/venv/bin/python bench/bench_chunking.py                      # default corpus + 10,000 docs
    /work/venv/bin/python bench/bench_chunking.py --corpus /work/shared/devdata/sec_html_dev --scale-docs 0
    /work/venv/bin/python bench/bench_chunking.py --repeat 1 --scale-docs 22 --strategies fixed,structure
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[1]
META_FIELDS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end", "filed_at")
BASE_SIZE = 500


# ---------------------------------------------------------------- helpers

def rss_kb() -> dict[str, int]:
    """Peak RSS by getrusage (KB on Linux) and VmHWM / VmRSS of /proc/self/status (KB)."""
    out = {"ru_maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(("VmHWM:", "VmRSS:")):
                out[line.split(":")[0]] = int(line.split()[1])
    except OSError:
        pass
    return out


def interleaved_best(fns: list, repeat: int, min_seconds: float = 0.0) -> list[tuple[float, object]]:
    """Best seconds per run of each of ``fns``, in rounds: round r times every call once before
    round r+1. A call's run calls it k times, k chosen from an untimed first call so that a run
    lasts about ``min_seconds`` (small corpora would otherwise be timed at the millisecond
    level). Per call: (best seconds per call, the result of its untimed first call)."""
    firsts, ks = [], []
    for fn in fns:
        t = time.perf_counter()
        firsts.append(fn())
        first = time.perf_counter() - t
        ks.append(max(1, math.ceil(min_seconds / max(first, 1e-9))) if min_seconds > 0 else 1)
    best = [math.inf] * len(fns)
    for _ in range(max(1, repeat)):
        for i, (fn, k) in enumerate(zip(fns, ks)):
            t = time.perf_counter()
            for _ in range(k):
                fn()
            best[i] = min(best[i], (time.perf_counter() - t) / k)
    return list(zip(best, firsts))


def chunker_configs(names: list[str]):
    """One configuration per strategy: the first non-header entry of data/chunkers.yaml,
    else the strategy's defaults."""
    from finchunk_pipeline import ChunkerConfig, load_chunker_configs

    declared = {}
    yaml_path = ROOT / "data" / "chunkers.yaml"
    if yaml_path.exists():
        for c in load_chunker_configs(yaml_path):
            if not c.header:
                declared.setdefault(c.strategy, c)
    return {n: declared.get(n) or ChunkerConfig(name=n.replace("_", "-"), strategy=n) for n in names}


def meta_of(rec: dict) -> dict:
    return {k: rec.get(k) for k in META_FIELDS}


# ---------------------------------------------------------------- baselines

def slice_baseline(texts: list[str], size: int = BASE_SIZE) -> int:
    n = 0
    for text in texts:
        windows = [(i, text[i:i + size]) for i in range(0, len(text), size)]
        n += len(windows)
    return n


def langchain_baseline():
    try:
        from langchain_text_splitters import RecursiveCharacterTextSplitter
    except ImportError:
        return None
    splitter = RecursiveCharacterTextSplitter(chunk_size=BASE_SIZE, chunk_overlap=0, add_start_index=True)

    def run(texts: list[str]) -> int:
        return len(splitter.create_documents(texts))
    return run


# ---------------------------------------------------------------- 1. throughput

def throughput(corpus: Path, repeat: int, strategies: list[str], min_s: float,
               rates: dict | None = None) -> tuple[list[str], list[str]]:
    """The table and notes; ``rates`` (if given) receives MB/s per row label and the
    LangChain baseline's under "baseline"."""
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import token_counter
    from finchunk_pipeline import select_parser

    records = pq.read_table(corpus / "documents.parquet").to_pylist()
    notes: list[str] = []
    by_parser: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        by_parser[select_parser(rec["doc_type"], rec["format"]).name].append(rec)
    src_bytes = {r["doc_id"]: len(r["text"].encode("utf-8")) for r in records}

    # parse: one untimed pass finds failures and keeps the parsed documents for chunking
    parsed, failed = [], []
    for name, recs in by_parser.items():
        spec = select_parser(recs[0]["doc_type"], recs[0]["format"])
        ok = []
        for rec in recs:
            try:
                doc = spec.fn(rec["doc_id"], rec["text"], rec)
            except Exception as exc:  # a failing document is reported, not measured
                failed.append(f"{rec['doc_id']} ({name}): {type(exc).__name__}: {exc}")
                continue
            ok.append(rec)
            parsed.append((doc, meta_of(rec)))
        by_parser[name] = ok
    if failed:
        notes.append(f"{len(failed)} document(s) failed to parse and are left out: " + "; ".join(failed[:3]))
    kept = {doc.doc_id for doc, _ in parsed}
    texts = [r["text"] for r in records if r["doc_id"] in kept]
    total_mb = sum(src_bytes[d] for d in kept) / 1e6
    view_mb = sum(len(doc.view_text.encode("utf-8")) for doc, _ in parsed) / 1e6

    # every row is a task; the tasks run in rounds, each round every task once (LangChain's pass
    # beside each row's), and a row's time is its best round: the machine's load, and the
    # baseline's own swings (its pass moved 1.6x between two processes), hit every row alike
    tasks: list[tuple] = []  # (label, docs, fn, mb, view_mb, is_ratio_row)
    tasks.append(("baseline: slice 500-char windows", len(texts), lambda: slice_baseline(texts), total_mb, None, True))
    lc = langchain_baseline()
    if lc is not None:
        tasks.append(("baseline: LangChain recursive 500/0", len(texts), lambda: lc(texts), total_mb, None, True))
    else:
        notes.append("langchain_text_splitters is not installed: ratios are to plain 500-character slicing")
    parse_labels = []
    for name in sorted(by_parser):
        recs = by_parser[name]
        if not recs:
            continue
        spec = select_parser(recs[0]["doc_type"], recs[0]["format"])
        mb = sum(src_bytes[r["doc_id"]] for r in recs) / 1e6
        tasks.append((f"parse: {name}", len(recs), lambda spec=spec, recs=recs: [spec.fn(r["doc_id"], r["text"], r) for r in recs],
                      mb, None, False))
        parse_labels.append(f"parse: {name}")
    configs = chunker_configs(strategies)
    counted = []
    if "structure" in configs:
        counted.append(("chunk: structure + token counting", configs["structure"], token_counter()))
    for label, config, counter in [(f"chunk: {n}", c, None) for n, c in configs.items()] + counted:
        try:
            chunk_document(config.chunker, *parsed[0], counter=counter)   # warm-up: lazy imports, tokenizer
        except Exception as exc:
            notes.append(f"{label}: {type(exc).__name__}: {exc}")
            continue
        tasks.append((label, len(parsed), lambda config=config, counter=counter: sum(
            len(chunk_document(config.chunker, d, m, counter=counter)) for d, m in parsed), total_mb, view_mb, True))

    timed = interleaved_best([t[2] for t in tasks], repeat, min_s)
    rows: list[tuple] = []   # (label, docs, s, mb, view_mb, chunks, is_ratio_row)
    base: dict[str, float] = {}
    for (label, docs, _, mb, vmb, is_ratio), (s, result) in zip(tasks, timed):
        parse = label in parse_labels
        rows.append((label, docs, s, mb, vmb, None if parse else result, is_ratio))  # result: a chunk count
        if label == "baseline: slice 500-char windows":
            base["slicing"] = total_mb / s
        elif label == "baseline: LangChain recursive 500/0":
            base["LangChain recursive"] = total_mb / s
        if parse and label == parse_labels[-1]:
            rows.append(("parse: all parsers", len(texts), sum(r[2] for r in rows if r[0] in parse_labels),
                         total_mb, None, None, True))

    notes.append(f"ratios are times on the same corpus (MB/s over the {total_mb:.2f} MB source for every row); "
                 f"the baselines split the raw source, the strategies the {view_mb:.2f} MB parsed view")
    ratio_cols = list(base)[::-1]  # LangChain first when present
    head = ["step", "docs", f"ms/pass (best of {repeat})", "MB/s", "view MB/s", "chunks"] + [f"x {b}" for b in ratio_cols]
    table = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for label, docs, s, mb, vmb, chunks, with_ratio in rows:
        mbs = mb / s
        cells = [label, f"{docs:,}", f"{s * 1000:.2f}", f"{mbs:.2f}", f"{vmb / s:.2f}" if vmb else "",
                 f"{chunks:,}" if chunks is not None else ""]
        cells += [f"{mbs / base[b]:.3g}x" if with_ratio else "" for b in ratio_cols]
        table.append("| " + " | ".join(cells) + " |")
    if rates is not None:
        rates.update({label: mb / s for label, _, s, mb, _, _, _ in rows})
        rates["baseline"] = base.get("LangChain recursive") or base["slicing"]
        rates["baseline_name"] = "LangChain recursive" if "LangChain recursive" in base else "slicing"
    intro = (f"corpus {corpus}: {len(texts):,} documents, {total_mb:.2f} MB source, {view_mb:.2f} MB parsed view; "
             f"parsers: " + ", ".join(f"{k} {len(v)}" for k, v in sorted(by_parser.items())))
    from finchunk_pipeline.models.tokens import accelerated

    notes.append("token counting: " + ("the C word table (models/_wordcount.c; FINCHUNK_PURE_PYTHON=1 for the "
                                       "Python reference)" if accelerated() else
                                       "pure Python (the C word table is not built, or FINCHUNK_PURE_PYTHON is set)"))
    return [intro, ""] + table, notes


# ---------------------------------------------------------------- 2. scale (child processes)

def child_generate(out_dir: str, n_docs: int) -> dict:
    from finchunk_pipeline.corpus.synth import generate

    issuers = max(1, math.ceil(n_docs / 11))
    t = time.perf_counter()
    counts = generate(out_dir, issuers=issuers)
    return {"issuers": issuers, "counts": counts, "seconds": time.perf_counter() - t}


def child_scale(corpus_dir: str, batch_size: int = 64) -> dict:
    from finchunk_pipeline import chunk_document
    from finchunk_pipeline import token_counter
    from finchunk_pipeline import select_parser

    configs = chunker_configs(["structure", "packed"])
    from finchunk_pipeline.parse.registry import parsers

    counter = token_counter()
    parsers()  # every parser module imported and the tokenizer loaded before the "before" RSS
    before = rss_kb()
    stage = {"parse": 0.0, "structure": 0.0, "packed": 0.0}
    docs = chunks = src = view = 0
    chunk_counts = {"structure": 0, "packed": 0}
    failed: list[str] = []
    t0 = time.perf_counter()
    for batch in pq.ParquetFile(Path(corpus_dir) / "documents.parquet").iter_batches(batch_size=batch_size):
        for rec in batch.to_pylist():
            src += len(rec["text"].encode("utf-8"))
            try:
                t = time.perf_counter()
                doc = select_parser(rec["doc_type"], rec["format"]).fn(rec["doc_id"], rec["text"], rec)
                stage["parse"] += time.perf_counter() - t
                meta = meta_of(rec)
                for name, config in configs.items():
                    t = time.perf_counter()
                    n = len(chunk_document(config.chunker, doc, meta, counter=counter))
                    stage[name] += time.perf_counter() - t
                    chunk_counts[name] += n
                    chunks += n
            except Exception as exc:
                failed.append(f"{rec['doc_id']}: {type(exc).__name__}: {exc}")
                continue
            view += len(doc.view_text)
            docs += 1
            del doc
    seconds = time.perf_counter() - t0
    return {"docs": docs, "failed": failed[:5], "n_failed": len(failed), "src_bytes": src, "view_chars": view,
            "seconds": seconds, "stage": stage, "chunks": chunk_counts, "before": before, "after": rss_kb()}


def run_child(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def scale(n_docs: int, result: dict | None = None) -> list[str]:
    """The scale table; ``result`` (if given) receives the child's measurements."""
    with tempfile.TemporaryDirectory(prefix="bench_chunking_") as tmp:
        gen = run_child("--_generate", tmp, str(n_docs))
        r = run_child("--_scale", tmp)
    if result is not None:
        result.update(r)
    mb = r["src_bytes"] / 1e6
    b, a = r["before"], r["after"]
    st = r["stage"]
    lines = [
        f"generated {gen['counts']['docs']:,} documents ({gen['issuers']:,} issuers) in {gen['seconds']:.1f} s "
        f"(child process); parse + chunk structure + packed, token counts on, streaming in a second child",
        "",
        "| docs | source MB | s | docs/s | MB/s | parse s | structure s | packed s | chunks structure | chunks packed "
        "| RSS before (MB) | peak RSS (MB) | growth (MB) | peak VmHWM (MB) |",
        "|" + "|".join(["---:"] * 14) + "|",
        f"| {r['docs']:,} | {mb:.1f} | {r['seconds']:.1f} | {r['docs'] / r['seconds']:.1f} | {mb / r['seconds']:.2f} "
        f"| {st['parse']:.1f} | {st['structure']:.1f} | {st['packed']:.1f} | {r['chunks']['structure']:,} "
        f"| {r['chunks']['packed']:,} | {b['ru_maxrss'] / 1024:.0f} | {a['ru_maxrss'] / 1024:.0f} "
        f"| {(a['ru_maxrss'] - b['ru_maxrss']) / 1024:.0f} | {a.get('VmHWM', 0) / 1024:.0f} |",
    ]
    if r["n_failed"]:
        lines.append(f"{r['n_failed']} document(s) failed: " + "; ".join(r["failed"]))
    return lines


# ---------------------------------------------------------------- main

def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] in ("--_generate", "--_scale"):
        result = (child_generate(sys.argv[2], int(sys.argv[3])) if sys.argv[1] == "--_generate"
                  else child_scale(sys.argv[2]))
        print(json.dumps(result, default=str))
        return 0
    from finchunk_pipeline import STRATEGIES

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, default=ROOT / "data" / "corpus" / "default",
                    help="corpus folder with documents.parquet (default: data/corpus/default)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best is kept")
    ap.add_argument("--min-seconds", type=float, default=0.2,
                    help="a run repeats the corpus until it lasts about this long (per-call time is reported)")
    ap.add_argument("--scale-docs", type=int, default=10_000, help="generated documents for the scale run (0: skip)")
    ap.add_argument("--strategies", default="", help="comma-separated subset of strategies (default: all)")
    ap.add_argument("--with-semantic", action="store_true", help="also time 'semantic' (embeds every sentence)")
    args = ap.parse_args()
    names = [n.strip() for n in args.strategies.split(",") if n.strip()] or list(STRATEGIES)
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        ap.error(f"unknown strategies {unknown}; known: {sorted(STRATEGIES)}")
    if not args.with_semantic:
        names = [n for n in names if n != "semantic"]

    print(f"$ {' '.join(['python'] + sys.argv)}")
    # the scale children run first, while this process is still small: a child started by
    # fork/vfork + exec may inherit the parent's peak RSS in ru_maxrss
    scale_lines = scale(args.scale_docs) if args.scale_docs > 0 else []
    table, notes = throughput(args.corpus, args.repeat, names, args.min_seconds)
    print("\n## Throughput (parse and chunk, MB/s; ratios to baselines in the same run)\n")
    print("\n".join(table))
    for note in notes:
        print(f"note: {note}")
    if scale_lines:
        print(f"\n## Scale: parse + chunk over {args.scale_docs:,} generated documents\n")
        print("\n".join(scale_lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
