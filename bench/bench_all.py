"""Every throughput goal of issue 16 in one command: ratios against baselines measured in the
same run, with the machine's load (``uptime``) before and after each section.

    FINCHUNK_DEVDATA=../shared/devdata python bench/bench_all.py              # everything but the cold run
    FINCHUNK_DEVDATA=../shared/devdata python bench/bench_all.py --cold-run   # + a cold `finchunk run` in a clean clone
    python bench/bench_all.py --quick                                         # smaller sizes, a first look

Sections (each also runs alone; see its script):
  1. parse + chunk throughput (bench_chunking.py) on complete filings (financebench_dev: 10-K/10-Q
     text, ~16 MB), real EDGAR HTML (sec_html_dev, ~8 MB) and the default corpus, against
     LangChain's RecursiveCharacterTextSplitter(500, 0, add_start_index=True); and the parse
     stage in one process and in one per core (bench_parse.py --workers);
  2. BM25 per-query time against bm25s at 100k chunks (bench_bm25.py), parity with rank_bm25;
  3. semantic chunking on tatqa_dev against the original v1 (bench_semantic.py);
  4. embedding: pipeline overhead over a bare encode, torch vs onnx vs onnx-int8 (bench_embed.py);
  5. scale: parse + chunk of 10,000 generated documents, time and peak RSS (bench_chunking.py);
  6. with --cold-run: `finchunk run` in a fresh clone of this checkout (bench_coldrun.py).
Without ../shared/devdata the devdata rows are skipped (and said so).

Ratios are of times in this run; absolute MB/s move with the machine's load. Tests assert
no times (speed claims live here only).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata")

GOALS: list[tuple[str, str, str, bool | None]] = []  # (goal, target, measured, met)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        load = os.getloadavg()
        return f"load average: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"


def section(title: str) -> None:
    print(f"\n## {title}\n\n`uptime`: {uptime()}\n", flush=True)


def goal(name: str, target: str, measured: str, met: bool | None) -> None:
    GOALS.append((name, target, measured, met))


def throughput(corpus: Path, label: str, strategies: list[str], repeat: int, min_s: float) -> dict:
    import bench_chunking

    rates: dict = {}
    table, notes = bench_chunking.throughput(corpus, repeat, strategies, min_s, rates)
    print(f"### {label}\n")
    print("\n".join(table))
    for n in notes:
        print(f"note: {n}")
    print()
    return rates


def parse_and_chunk(repeat: int, min_s: float) -> None:
    section("1. Parse and chunk throughput (x LangChain recursive splitter, same run)")
    chunk_rows = ["structure", "auto", "paragraph", "packed"]
    sets = []
    if (DEVDATA / "financebench_dev").is_dir():
        sets.append(("complete filings: financebench_dev (32 10-K/10-Q texts)", DEVDATA / "financebench_dev", "text"))
    if (DEVDATA / "sec_html_dev").is_dir():
        sets.append(("EDGAR HTML: sec_html_dev (4 inline-XBRL filings)", DEVDATA / "sec_html_dev", "html"))
    sets.append(("default corpus (41 documents)", ROOT / "data" / "corpus" / "default", None))
    if not (DEVDATA / "financebench_dev").is_dir():
        print(f"note: {DEVDATA} not found: the complete-filings and EDGAR rows are skipped (set FINCHUNK_DEVDATA)")
    for label, corpus, parser in sets:
        r = throughput(corpus, label, chunk_rows if parser != "html" else [], repeat, min_s)
        base, short = r["baseline"], label.split(":")[0].split(" (")[0]
        for p in ([parser] if parser else ["html", "markdown", "text"]):
            key = f"parse: {p}"
            if key in r:
                mbs = r[key]
                goal(f"parse {p} ({short})", ">= 20 MB/s and >= 1.5x", f"{mbs:.1f} MB/s, {mbs / base:.2f}x",
                     mbs >= 20 and mbs / base >= 1.5)
        for s in chunk_rows:
            key = f"chunk: {s}"
            if key in r:
                target = 0.5 if s == "packed" else 2.0
                goal(f"chunk {s} ({short})", f">= {target:g}x", f"{r[key] / base:.2f}x", r[key] / base >= target)
        key = "chunk: structure + token counting"
        if key in r:
            goal(f"structure + token counting ({short})", ">= 1x", f"{r[key] / base:.2f}x", r[key] / base >= 1.0)


def parse_stage(repeat: int) -> None:
    """The pipeline's parse stage (raw store in, blocks files out) in one process and in one
    per core, against LangChain's single-process split (bench_parse.py --workers)."""
    import tempfile

    import bench_parse
    from finchunk_pipeline.parse.corpus_parse import usable_cores

    cores = usable_cores()
    if cores < 2 or not (DEVDATA / "financebench_dev").is_dir():
        print("note: the parse stage in several processes needs 2 cores and financebench_dev; skipped\n")
        return
    with tempfile.TemporaryDirectory() as tmp:
        for label, mb, (one, many), (base,) in bench_parse._stage_cases(["financebench_dev"], cores, Path(tmp)):
            t1, tn, tb = bench_parse._best([one, many, base], repeat + 1)
            print(f"### parse stage, {cores} processes\n\n{label}: {mb:.2f} MB; 1 process {mb / t1:.2f} MB/s "
                  f"({tb / t1:.2f}x LangChain), {cores} processes {mb / tn:.2f} MB/s ({tb / tn:.2f}x LangChain, "
                  f"{t1 / tn:.2f}x one process)\n")
            goal(f"parse stage in {cores} processes (financebench_dev)", "(no goal: cores, not parser speed)",
                 f"{tb / tn:.2f}x LangChain, {t1 / tn:.2f}x one process", None)


def bm25(size: int, repeat: int) -> None:
    import bench_bm25

    section(f"2. BM25 per query at {size:,} chunks (x bm25s, same run)")
    r = bench_bm25.run(size, 100, 10, repeat, with_rank_bm25=size <= 20_000)
    print("\n".join(r["lines"]))
    if "bm25s_ms" in r:
        goal(f"BM25 query at {size // 1000}k chunks", "<= 1.5x bm25s",
             f"{r['ours_ms']:.2f} vs {r['bm25s_ms']:.2f} ms/query: {r['ours_vs_bm25s']:.2f}x", r["ours_vs_bm25s"] <= 1.5)
    if "identical" in r:
        goal("BM25 = rank_bm25 (top-10)", "100/100", f"{r['identical']}/100", r["identical"] == 100)


def semantic(n_docs: int | None, backends: tuple[str, ...]) -> None:
    import bench_semantic

    corpus = DEVDATA / "tatqa_dev"
    section("3. Semantic chunking on tatqa_dev (x the original v1, same run)")
    if not corpus.is_dir():
        print(f"note: {corpus} not found: skipped")
        return
    r = bench_semantic.run(corpus, n_docs, backends)
    print("\n".join(r["lines"]))
    goal("semantic on tatqa_dev" + (f" ({n_docs} docs)" if n_docs else ""), ">= 5x original",
         f"{r['speedup_vs_original']:.2f}x (cold cache), chunks {'identical' if r['torch_same_as_before'] else 'DIFFER'}",
         r["speedup_vs_original"] >= 5)


def embedding(n: int, backends: tuple[str, ...]) -> None:
    import bench_embed

    section(f"4. Embedding: pipeline overhead and backends ({n} texts)")
    r = bench_embed.run(bench_embed.synthetic_texts(n), backends)
    print("\n".join(r["lines"]))
    t = r["backends"]["torch"]
    goal("embedding overhead over bare encode (torch)", "<= 10%", f"{t['overhead'] * 100:+.1f}%", t["overhead"] <= 0.10)
    for b in backends[1:]:
        x = r["backends"][b]
        goal(f"embedding backend {b}", "faster than torch", f"{x['speedup_vs_first']:.2f}x torch, cosine >= {x['cos_min']:.4f}",
             x["speedup_vs_first"] > 1)


def scale(n_docs: int) -> None:
    import bench_chunking

    section(f"5. Scale: parse + chunk (structure, packed, token counts) of {n_docs:,} generated documents")
    r: dict = {}
    lines = bench_chunking.scale(n_docs, r)
    print("\n".join(lines))
    # VmHWM, not ru_maxrss: Linux carries the forking parent's ru_maxrss across exec, and this
    # process is large by now (the embedding sections), so the child's ru_maxrss is this one's
    hwm = r["after"].get("VmHWM", r["after"]["ru_maxrss"]) / 1024
    growth = hwm - r["before"].get("VmHWM", r["before"]["ru_maxrss"]) / 1024
    goal(f"scale {n_docs:,} docs", "faster than 69 s (issue), flat memory",
         f"{r['seconds']:.1f} s, peak VmHWM {hwm:.0f} MB (+{growth:.0f} MB while streaming)", None)


def cold_run() -> None:
    import bench_coldrun

    section("6. Cold `finchunk run` in a clean clone (default corpus, all chunk sets and retrievers)")
    r = bench_coldrun.run()
    print("\n".join(r["lines"]))
    goal("cold finchunk run", "<= 120 s, peak RSS <= 1.5 GB",
         f"{r['seconds']:.0f} s, peak RSS {r['peak_rss_mb']:.0f} MB (load {r['load_before']}); CPU "
         f"{r['cpu_seconds']:.0f} s: >= {r['cpu_seconds'] / r['cores']:.0f} s on {r['cores']} cores",
         r["ok"] and r["seconds"] <= 120 and r["peak_rss_mb"] <= 1536)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (20k BM25, 60 semantic docs, 2,000 scale docs)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cold-run", action="store_true", help="also time a cold `finchunk run` in a fresh clone")
    ap.add_argument("--skip", default="", help="comma-separated sections to skip: parse,bm25,semantic,embed,scale")
    ap.add_argument("--backends", default="torch,onnx,onnx-int8,static", help="embedding backends to compare")
    args = ap.parse_args()
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    from finchunk_pipeline.models.embed import backend_available

    backends = tuple(b for b in args.backends.split(",") if b and backend_available(b))
    print(f"$ {' '.join(['python'] + sys.argv)}\nstarted {time.strftime('%Y-%m-%d %H:%M:%S')}; `uptime`: {uptime()}")
    t0 = time.perf_counter()
    if "parse" not in skip:
        parse_and_chunk(1 if args.quick else args.repeat, 0.2)
        parse_stage(1 if args.quick else args.repeat)
    if "bm25" not in skip:
        bm25(20_000 if args.quick else 100_000, args.repeat)
    if "semantic" not in skip:
        semantic(60 if args.quick else None, backends[:1] + tuple(b for b in backends if b == "onnx-int8"))
    if "embed" not in skip:
        embedding(100 if args.quick else 300, backends)
    if "scale" not in skip:
        scale(2_000 if args.quick else 10_000)
    if args.cold_run:
        cold_run()
    section("Summary: the goals of issue 16")
    print("| goal | target | measured | met |\n|---|---|---|---|")
    for name, target, measured, met in GOALS:
        print(f"| {name} | {target} | {measured} | {'yes' if met else ('no' if met is False else 'see text')} |")
    print(f"\nfinished in {time.perf_counter() - t0:.0f} s; `uptime`: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
