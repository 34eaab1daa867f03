"""Which tokenizer under the HTML parser: our regex tokenizer, the standard library's
``html.parser.HTMLParser`` (positions from ``getpos``) or beautifulsoup4 (html.parser
builder; positions from ``Tag.sourceline`` / ``sourcepos``). Issue 14's rule: bs4 if the
whole parse stays within 1.3x of today's time, else HTMLParser if it does, else the regex.

    PYTHONPATH=. python bench/bench_html_tokenizer.py [--repeat 3]

For each input set: MB/s of the whole parse on each tokenizer, the bare tokenizer's MB/s
(no block building), and how many documents come out with exactly the same view and blocks
(text, kind, raw and view offsets, attrs) as the regex tokenizer — "exact offsets".

bs4 is measured as the tree build alone (``BeautifulSoup(raw, "html.parser")``): a lower
bound of any bs4-based parse, since the tree records where start tags begin but not where
text nodes or end tags are, which a parse with exact offsets would still have to find in
the raw string on top.
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq

from finchunk_pipeline.parse import html as H
from finchunk_pipeline.parse.html.tokenizer import RAWTEXT, TokenSink, tokenize

ROOT = Path(__file__).resolve().parents[1]
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or ROOT.parent / "shared" / "devdata")
SETS = {
    "default corpus (html)": ROOT / "data" / "corpus" / "default" / "documents.parquet",
    "sec_html_dev": DEVDATA / "sec_html_dev" / "documents.parquet",
}
HOSTILE = {  # the pathological inputs of bench_parse_html.py and test_parse_html.py
    "stray <": "a < b <c " * 40000,
    "unterminated quote": '<div class="x>text ' * 5000,
    "50k unclosed divs": "<div>" * 50000 + "x",
    "unclosed spans + cells": "<span>" * 20000 + "<td>x" * 20000,
    "malformed": ("<html><body><div><p>First para <b>bold <i>unclosed\n<p>Second para</div></span>"
                  "<table><tr><td>Revenue<td>1,000<td>2,000<tr><td>Costs<td>500<td>600</table>"
                  "<p>Tail &amp; end &bogus; <3 x < y</p><div style='display:none'>gone"),
}


class _StdlibEvents(HTMLParser):
    """HTMLParser -> our events. Text is the raw gap between two markup constructs (so
    entities stay encoded, as the block builder expects); positions are ``getpos`` turned
    into string offsets through a table of line starts."""

    def __init__(self, raw: str, sink: TokenSink) -> None:
        super().__init__(convert_charrefs=False)
        self.raw, self.sink = raw, sink
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", raw)]
        self.last = 0  # end of the last markup construct
        self.rawtext: str | None = None  # open raw-text element: its content is no text

    def _pos(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def _markup(self) -> int:
        """Position of the construct being reported; the text before it goes out first."""
        pos = self._pos()
        if pos > self.last and self.rawtext is None:
            self.sink.text(self.last, pos)
        return pos

    def _start(self, tag: str, selfclose: bool) -> None:
        pos = self._markup()
        raw_tag = self.get_starttag_text() or ""
        attrs = raw_tag[1 + len(tag):-2 if selfclose else -1]
        self.sink.start_tag(tag, attrs, selfclose, pos)
        self.last = pos + len(raw_tag)
        if tag in RAWTEXT and not selfclose:
            self.rawtext = tag
            self.set_cdata_mode(tag)

    def handle_starttag(self, tag, attrs) -> None:
        self._start(tag, False)

    def handle_startendtag(self, tag, attrs) -> None:
        self._start(tag, True)

    def handle_endtag(self, tag) -> None:
        pos = self._markup()
        end = self.raw.find(">", pos) + 1
        if self.rawtext is not None:
            self.rawtext = None
            self.sink.end_tag(tag, end)  # as the regex tokenizer reports it: after the end tag
        else:
            self.sink.end_tag(tag, pos)
        self.last = end

    def handle_comment(self, data) -> None:
        pos = self._markup()
        self.last = pos + 4 + len(data) + 3

    def handle_decl(self, decl) -> None:
        pos = self._markup()
        self.last = self.raw.find(">", pos) + 1

    handle_pi = handle_decl

    def unknown_decl(self, data) -> None:
        pos = self._markup()
        end = self.raw.find("]]>", pos)
        if data.startswith("CDATA["):
            self.sink.text(pos + 9, end)
        self.last = end + 3


def stdlib_tokenize(raw: str, n: int, sink: TokenSink) -> None:
    p = _StdlibEvents(raw[:n], sink)
    p.feed(raw[:n])
    p.close()
    if p.last < n and p.rawtext is None:
        sink.text(p.last, n)


class _NoSink:
    def text(self, a, b): pass
    def start_tag(self, tag, attrs, selfclose, pos): pass
    def end_tag(self, tag, pos): pass
    def warn(self, message): pass


def bs4_tree(raw: str, n: int, sink: TokenSink) -> None:
    """The bs4 tree build alone (no events): a lower bound of a bs4-based parse."""
    from bs4 import BeautifulSoup

    BeautifulSoup(raw[:n], "html.parser")


def _signature(doc) -> tuple:
    return doc.view_text, [(b.kind, b.text, b.start, b.end, b.vstart, b.vend, b.section_path, b.attrs)
                           for b in doc.blocks]


def _timed(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _parse_all(docs: list[tuple[str, str]], tokenizer) -> list:
    out = []
    for doc_id, text in docs:
        try:
            out.append(_signature(H.parse(doc_id, text, {}, tokenizer=tokenizer)))
        except Exception as exc:  # noqa: BLE001 - a tokenizer that raises is a finding
            out.append(f"raised {type(exc).__name__}: {exc}")
    return out


def _tokenize_all(docs: list[tuple[str, str]], tokenizer) -> None:
    for _, text in docs:
        tokenizer(text, len(text), _NoSink())


def bench_set(name: str, docs: list[tuple[str, str]], repeat: int) -> None:
    mb = sum(len(t) for _, t in docs) / 1e6
    print(f"{name}: {len(docs)} documents, {mb:.2f} MB")
    ref = _parse_all(docs, tokenize)
    t_ref = _timed(lambda: _parse_all(docs, tokenize), repeat)
    print(f"  {'tokenizer':28} {'parse MB/s':>10} {'x regex':>8} {'tokens MB/s':>11} {'same blocks':>12}")
    t_regex_tok = _timed(lambda: _tokenize_all(docs, tokenize), repeat)
    t_tok = {tokenize: t_regex_tok, stdlib_tokenize: _timed(lambda: _tokenize_all(docs, stdlib_tokenize), repeat)}
    t_parse = {tokenize: t_ref, stdlib_tokenize: _timed(lambda: _parse_all(docs, stdlib_tokenize), repeat)}
    for label, tok in (("regex (today)", tokenize), ("stdlib HTMLParser", stdlib_tokenize)):
        same = sum(a == b for a, b in zip(ref, _parse_all(docs, tok), strict=True))
        t = t_parse[tok]
        print(f"  {label:28} {mb / t:10.2f} {t / t_ref:8.2f} {mb / t_tok[tok]:11.2f} {same:>7}/{len(docs)}")
    try:
        import bs4  # noqa: F401 - measured only where installed (the package does not depend on it)
    except ImportError:
        print("  bs4: not installed (pip install beautifulsoup4 to measure it)")
        return
    # bs4: today's block building + the tree build (instead of the regex tokenizer), a lower bound
    t_tree = _timed(lambda: _tokenize_all(docs, bs4_tree), repeat)
    lower = (t_ref - t_regex_tok + t_tree) / t_ref
    print(f"  {'bs4 html.parser (tree only)':28} {'-':>10} {'>=' + format(lower, '.2f'):>8} {mb / t_tree:11.2f} "
          f"{'n/a':>12}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cap", type=float, default=30, help="seconds allowed per hostile input")
    ap.add_argument("--hostile", help=argparse.SUPPRESS)  # one hostile input, in a child process
    args = ap.parse_args()
    if args.hostile:
        hostile_case(args.hostile)
        return
    for name, path in SETS.items():
        if not path.exists():
            print(f"{name}: not present ({path})")
            continue
        rows = pq.read_table(path, columns=["doc_id", "format", "text"]).to_pylist()
        bench_set(name, [(r["doc_id"], r["text"]) for r in rows if r["format"] == "html"], args.repeat)
    print(f"hostile markup, HTMLParser tokenizer: same blocks as the regex one? (each capped at {args.cap} s)")
    for name in HOSTILE:
        cmd = [sys.executable, __file__, "--hostile", name]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=args.cap)
            print(f"  {name:24} {res.stdout.strip() or res.stderr.strip()[-200:]}")
        except subprocess.TimeoutExpired:
            print(f"  {name:24} not finished after {args.cap} s (regex tokenizer: see bench_parse_html.py)")


def hostile_case(name: str) -> None:
    raw = HOSTILE[name]
    t = time.perf_counter()
    ref = _parse_all([(name, raw)], tokenize)
    t_ref = time.perf_counter() - t
    t = time.perf_counter()
    got = _parse_all([(name, raw)], stdlib_tokenize)
    dt = time.perf_counter() - t
    print(f"{'same' if ref == got else 'DIFFERENT'} blocks; regex {t_ref:.2f} s, HTMLParser {dt:.2f} s")


if __name__ == "__main__":
    main()
