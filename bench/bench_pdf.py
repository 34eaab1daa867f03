"""PDF path benchmarks, ratios against baselines in the same run (issue 11).

1. speed: pages/s of text extraction on a folder of PDFs (default
   ../shared/devdata/financebench_pdf_dev/files) — pypdf (the baseline), bare PDFium text
   (pypdfium2 ``get_text_range``), our layout extraction (parse/pdf_layout.py) and our full
   pdf parser (layout + blocks), each over the same pages in one process;
2. quote resolution: the corpus's page + quote gold passages resolved (evaluation/
   gold_resolution.py) in our pdf parser's text and in pypdf's page text;
3. memory: peak RSS of parsing a generated N-page PDF (fpdf2), in a fresh process per size,
   to show it grows with the text, not with pages held open;
4. recall: after ``finchunk run`` on the text corpus (financebench_dev) and on the PDF corpus
   (financebench_pdf_dev) with --retrievers bm25, BM25 recall in filtered mode at 2,000 and
   5,000 characters on the question ids both corpora share, per chunk set present in both
   (computed here: the evaluation's budgets stop at 3,000).

  python bench/bench_pdf.py speed [--files DIR] [--limit N]
  python bench/bench_pdf.py resolution [--corpus DIR]
  python bench/bench_pdf.py memory [--pages 50 500 1000]
  python bench/bench_pdf.py recall --text-data D1 --pdf-data D2 [--text-corpus C1] [--pdf-corpus C2]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA", ROOT.parent / "shared" / "devdata"))


def _pypdf_pages(data: bytes) -> list[str]:
    import io

    from pypdf import PdfReader
    return [p.extract_text() or "" for p in PdfReader(io.BytesIO(data)).pages]


def _pdfium_pages(data: bytes) -> list[str]:
    import pypdfium2 as pdfium
    pdf = pdfium.PdfDocument(data)
    out = []
    for i in range(len(pdf)):
        page = pdf[i]
        tp = page.get_textpage()
        out.append(tp.get_text_range())
        tp.close()
        page.close()
    pdf.close()
    return out


def _layout_pages(data: bytes) -> list[str]:
    from finchunk_pipeline.parse.pdf import extract
    pages, _ = extract(data)
    return ["\n".join(line.text for line in p.lines) for p in pages]


def _parse(data: bytes) -> list[str]:
    from finchunk_pipeline.parse.pdf import parse
    from finchunk_pipeline.parse.pdf_layout import page_ranges
    doc = parse("bench", data, {})
    return [doc.view_text[s:e] for s, e in page_ranges(doc.view_text)]


EXTRACTORS = {"pypdf": _pypdf_pages, "pdfium-text": _pdfium_pages, "finchunk-layout": _layout_pages,
              "finchunk-parse": _parse}


def speed(args) -> dict:
    files = sorted(Path(args.files).glob("*.pdf"))[: args.limit or None]
    blobs = [f.read_bytes() for f in files]
    out = {}
    for name, fn in EXTRACTORS.items():
        t0 = time.perf_counter()
        pages = chars = 0
        for data in blobs:
            texts = fn(data)
            pages += len(texts)
            chars += sum(len(t) for t in texts)
        dt = time.perf_counter() - t0
        out[name] = {"pages": pages, "seconds": round(dt, 2), "pages_per_s": round(pages / dt, 1), "chars": chars}
    base = out["pypdf"]["pages_per_s"]
    for name in out:
        out[name]["x_pypdf"] = round(out[name]["pages_per_s"] / base, 1)
    print(f"{len(files)} PDFs from {args.files}")
    print(f"{'extractor':18} {'pages':>6} {'s':>7} {'pages/s':>8} {'x pypdf':>8} {'chars':>10}")
    for name, r in out.items():
        print(f"{name:18} {r['pages']:>6} {r['seconds']:>7} {r['pages_per_s']:>8} {r['x_pypdf']:>8} {r['chars']:>10,}")
    return out


def resolution(args) -> dict:

    from finchunk_pipeline.corpus import load_corpus
    from finchunk_pipeline.evaluation.gold_resolution import resolve_passages, summary

    corpus = load_corpus(args.corpus)
    docs = corpus.documents.set_index("doc_id")
    passages = corpus.passages
    wanted = sorted(set(passages["doc_id"]))
    out = {}
    for name in ("finchunk-parse", "pypdf"):
        views = {d: "\n\f".join(EXTRACTORS[name]((corpus.path / docs.loc[d, "path"]).read_bytes())) for d in wanted}
        s = summary(resolve_passages(passages, views.get))
        s.pop("problems", None)
        out[name] = s
        print(f"{name:16} passages {s['passages']}: exact {s['exact']}, whole page {s['whole_page']}, "
              f"unresolved {s['unresolved']} -> resolved {100 * (s['exact'] + s['whole_page']) / max(1, s['passages']):.1f}%"
              + (f" (unresolved: {s['unresolved_ids']})" if s["unresolved"] else ""))
    return out


def _rss_child(pages: int) -> None:
    sys.path.insert(0, str(ROOT))
    from finchunk_pipeline.parse.pdf import parse
    from tests.pdfs import long_pdf
    data = long_pdf(pages)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    doc = parse("long", data, {})
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"pages": pages, "bytes": len(data), "view_chars": len(doc.view_text),
                      "rss_before_mb": round(before / 1024, 1), "rss_peak_mb": round(after / 1024, 1),
                      "growth_mb": round((after - before) / 1024, 1)}))


def memory(args) -> list[dict]:
    rows = []
    for n in args.pages:
        res = subprocess.run([sys.executable, __file__, "_rss", str(n)], capture_output=True, text=True, check=True)
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(f"{r['pages']:>6} pages ({r['bytes'] / 1e6:.1f} MB file): peak RSS {r['rss_peak_mb']} MB, "
              f"growth while parsing {r['growth_mb']} MB")
    return rows


def _recall_rows(data_root: Path, corpus_dir: Path, qids: set[str], budgets=(2000, 5000)) -> dict[str, dict]:
    """BM25, filtered mode: recall at each budget per chunk set, on questions ``qids``."""
    import numpy as np
    import pyarrow.parquet as pq

    from finchunk_pipeline import Settings, Workspace, load_chunker_configs
    from finchunk_pipeline.corpus import load_corpus
    from finchunk_pipeline.evaluation.assembler import DeliveredChunk
    from finchunk_pipeline.evaluation.budget import score_budgets
    from finchunk_pipeline.evaluation.retrieval import DEPTH
    from finchunk_pipeline.index import registry
    from finchunk_pipeline.types.chunks import spans_of

    ws = Workspace(Settings(corpus_dir=corpus_dir.resolve(), data_root=data_root.resolve()))
    corpus = load_corpus(corpus_dir)
    gold = pq.read_table(ws.gold_passages_path).to_pandas()
    spans = {p: (d, int(s), int(e)) for p, d, s, e in zip(gold["passage_id"], gold["doc_id"], gold["start"], gold["end"])}
    qs = corpus.questions[corpus.questions["question_id"].isin(qids)].to_dict("records")
    out = {}
    for config in load_chunker_configs(ROOT / "data" / "chunkers.yaml"):
        index_dir = ws.index_dir(config.version_name)
        if not ws.chunks.path(config.chunks_version_name).exists() or not registry.index_exists("bm25", index_dir):
            continue
        chunks = ws.chunks.read(config.chunks_version_name, columns=["doc_id", "spans", "embedding_text", "source_text"])
        retriever = registry.load_retriever("bm25", index_dir, registry.LoadRequest(chunks))
        doc_ids = chunks["doc_id"].to_numpy()
        n_chars = chunks["embedding_text"].str.len().to_numpy()
        header = np.maximum(0, n_chars - chunks["source_text"].str.len().to_numpy())
        cspans = [spans_of(v) for v in chunks["spans"]]
        allowed = [np.isin(doc_ids, list(q["doc_ids"])) for q in qs]
        hits = retriever.search_many([q["question"] for q in qs], DEPTH, allowed)
        sums = {b: 0.0 for b in budgets}
        for q, ranked in zip(qs, hits):
            gl = [spans[p] for p in q["gold_passages"]]
            delivered = [DeliveredChunk(doc_ids[r], cspans[r], int(n_chars[r]), int(header[r])) for r, _ in ranked]
            score = score_budgets(q["question_id"], q["question_type"], gl, delivered, budgets)
            for b in budgets:
                sums[b] += score.retrieved[b] / len(gl)
        out[config.name] = {b: round(100 * sums[b] / len(qs), 1) for b in budgets}
    return out


def recall(args) -> dict:
    import pandas as pd

    text_q = pd.read_parquet(Path(args.text_corpus) / "questions.parquet")
    pdf_q = pd.read_parquet(Path(args.pdf_corpus) / "questions.parquet")
    qids = set(text_q["question_id"]) & set(pdf_q["question_id"])
    text = _recall_rows(Path(args.text_data), Path(args.text_corpus), qids)
    pdf = _recall_rows(Path(args.pdf_data), Path(args.pdf_corpus), qids)
    print(f"BM25, filtered mode, {len(qids)} shared questions: recall % at 2,000 / 5,000 characters")
    print(f"{'chunk set':22} {'text@2000':>9} {'pdf@2000':>9} {'text@5000':>9} {'pdf@5000':>9}")
    rows = {}
    for name in text:
        if name not in pdf:
            continue
        t, p = text[name], pdf[name]
        rows[name] = {"text": t, "pdf": p}
        print(f"{name:22} {t[2000]:>9} {p[2000]:>9} {t[5000]:>9} {p[5000]:>9}")
    if rows:
        for b in (2000, 5000):
            mt = sum(r["text"][b] for r in rows.values()) / len(rows)
            mp = sum(r["pdf"][b] for r in rows.values()) / len(rows)
            print(f"{'mean':22} " + (f"{mt:>9.1f} {mp:>9.1f}" if b == 2000 else f"{'':>19} {mt:>9.1f} {mp:>9.1f}"))
    return rows


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "_rss":
        _rss_child(int(sys.argv[2]))
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--files", default=str(DEVDATA / "financebench_pdf_dev" / "files"))
    s.add_argument("--limit", type=int, default=0)
    r = sub.add_parser("resolution")
    r.add_argument("--corpus", default=str(DEVDATA / "financebench_pdf_dev"))
    m = sub.add_parser("memory")
    m.add_argument("--pages", type=int, nargs="+", default=[50, 500, 1000])
    c = sub.add_parser("recall")
    c.add_argument("--text-data", required=True)
    c.add_argument("--pdf-data", required=True)
    c.add_argument("--text-corpus", default=str(DEVDATA / "financebench_dev"))
    c.add_argument("--pdf-corpus", default=str(DEVDATA / "financebench_pdf_dev"))
    args = ap.parse_args()
    {"speed": speed, "resolution": resolution, "memory": memory, "recall": recall}[args.cmd](args)


if __name__ == "__main__":
    main()
