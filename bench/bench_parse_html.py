"""HTML parser speed: linear growth on large synthetic filings, pathological markup, and the
real EDGAR filings of devdata (when present). Times are reported, never asserted by the
tests (tests/unit/test_parse_html.py checks only what the parser produces).

    /work/venv/bin/python bench/bench_parse_html.py [--repeat 3]

Linearity: the synthetic document at 1x, 2x and 4x its size; "ms per 100 KB" should stay
flat (a ratio of 2x/1x near 2.0, not 4.0).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from finchunk_pipeline.parse import html as H

ROOT = Path(__file__).resolve().parents[1]
SEC = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata") / "sec_html_dev" / "documents.parquet"

PARA = '<div><span style="font-weight:400">Lorem ipsum &amp; dolor sit amet, 1,234.</span></div>\n'
ROW = '<tr><td>Label</td><td>$</td><td>1,234&#160;</td><td/></tr>'
PATHOLOGICAL = {
    "stray <": "a < b <c " * 40000,
    "unterminated quote": '<div class="x>text ' * 5000,
    "50k unclosed divs": "<div>" * 50000 + "x",
    "unclosed spans + cells": "<span>" * 20000 + "<td>x" * 20000,
}


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("synthetic filing (20 paragraphs + a 20-row table, repeated)")
    base = None
    for mult in (1, 2, 4):
        raw = "<html><body>" + (PARA * 20 + "<table>" + ROW * 20 + "</table>") * 300 * mult + "</body></html>"
        dt = best(lambda: H.parse("big", raw, {}), args.repeat)
        base = base or dt
        print(f"  {300 * mult:>5} tables {len(raw) / 1e6:6.2f} MB  {dt:7.3f} s  "
              f"{1000 * dt / (len(raw) / 1e5):6.1f} ms/100KB  x{dt / base:.2f} of 1x")
    print("pathological markup")
    for name, raw in PATHOLOGICAL.items():
        dt = best(lambda: H.parse("bad", raw, {}), args.repeat)
        print(f"  {name:24} {len(raw) / 1e6:6.2f} MB  {dt:7.3f} s")
    if SEC.exists():
        import pandas as pd

        print("real EDGAR filings (devdata sec_html_dev)")
        for r in pd.read_parquet(SEC).itertuples():
            dt = best(lambda: H.parse(r.doc_id, r.text, {"format": r.format, "doc_type": r.doc_type}), 1)
            print(f"  {r.doc_id:40} {len(r.text) / 1e6:6.2f} MB  {dt:7.3f} s")


if __name__ == "__main__":
    main()
