"""Bounded expansion: table header / section neighbours, never beyond max_chars."""
from __future__ import annotations

from finchunk_pipeline.chunking.context import build_chunks
from finchunk_pipeline.chunking.expand import expand_chunk
from finchunk_pipeline import SPAN_JOINER
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline.parse import html, markdown

MD = ("# Report\n\n## Segments\n\nRevenue by segment (in € millions):\n\n| Segment | 2024 | 2023 |\n|---|---|---|\n"
      + "\n".join(f"| Segment {i} | {100 + i}.0 | {90 + i}.5 |" for i in range(30))
      + "\n\nSegments grew in the year.\n\n## Outlook\n\n" + "The outlook is stable. " * 40 + "\n")


def test_expand_row_group_gets_header_and_neighbours_within_budget():
    doc = markdown.parse("m", MD)
    pieces = STRATEGIES["sentence"].pieces(doc, {"n": 2, "overlap": 0}, {})
    chunks = build_chunks(doc, {}, pieces, chunk_set="s", header=False, context_fields=())
    row_chunk = next(c for c in chunks if "Segment 15 |" in c.source_text)
    assert "| Segment | 2024 | 2023 |" not in row_chunk.source_text
    spans, text = expand_chunk({"view_spans": [{"start": s, "end": e} for s, e in row_chunk.view_spans]}, doc, 400)
    assert "| Segment | 2024 | 2023 |" in text and "Segment 15 |" in text and "Segment 16 |" in text
    assert len(text) <= 400
    assert SPAN_JOINER.join(MD[s:e] for s, e in spans) == text
    assert "Outlook" not in text  # never leaves the section


def test_expand_text_stays_in_section_and_bounded():
    doc = markdown.parse("m", MD)
    chunks = build_chunks(doc, {}, STRATEGIES["sentence"].pieces(doc, {"n": 1, "overlap": 0}, {}),
                          chunk_set="s", header=False, context_fields=())
    c = next(c for c in chunks if c.source_text == "Segments grew in the year.")
    spans, text = expand_chunk(c, doc, 10_000)
    assert "## Segments" in text and "Segment 29" in text and "outlook is stable" not in text
    small_spans, small = expand_chunk(c, doc, 10)  # already larger than the bound: unchanged
    assert small == c.source_text


def test_a_table_too_large_to_add_whole_gives_the_rows_nearest_the_chunk():
    """A neighbouring table of the same section that does not fit whole used to stop the
    parent at its edge (financebench: a cash-flow statement split by the parser into a small
    and a 2,200-character table; the parent of a row of the first held 921 characters under a
    2,000 bound). Its rows nearest the chunk come now, the parent still one contiguous piece."""
    doc = markdown.parse("m", MD)
    chunks = build_chunks(doc, {}, STRATEGIES["sentence"].pieces(doc, {"n": 1, "overlap": 0}, {}),
                          chunk_set="s", header=False, context_fields=())
    after = next(c for c in chunks if c.source_text == "Segments grew in the year.")
    spans, text = expand_chunk(after, doc, 300)
    assert len(text) <= 300 and "Segments grew in the year." in text
    assert "| Segment 29 |" in text and "| Segment 28 |" in text   # the table's last rows: nearest
    assert "| Segment 0 |" not in text and "Outlook" not in text
    assert text.endswith("| Segment 29 | 129.0 | 119.5 |\n\nSegments grew in the year.")  # contiguous

    before = next(c for c in chunks if c.source_text == "Revenue by segment (in € millions):")
    _, text = expand_chunk(before, doc, 300)
    assert len(text) <= 300 and "| Segment | 2024 | 2023 |" in text and "| Segment 0 |" in text  # first rows
    assert "| Segment 29 |" not in text and "Segments grew" not in text


def test_expand_html_returns_raw_spans():
    raw = ("<html><body><h2>Results</h2><p>Revenue rose.</p><table><tr><th>Item</th><th>2024</th></tr>"
           + "".join(f"<tr><td>Line {i}</td><td>{i},000</td></tr>" for i in range(20))
           + "</table><p>End of results.</p></body></html>")
    doc = html.parse("h", raw)
    row = next(b for b in doc.blocks if b.kind == "table_row" and b.text.startswith("Line 10"))
    spans, text = expand_chunk({"view_spans": [(row.vstart, row.vend)]}, doc, 200)
    assert "Item | 2024" in text and "Line 10" in text and len(text) <= 200
    view_spans = [(s, e) for s, e in spans]
    assert all(0 <= s < e <= len(raw) for s, e in view_spans)
    assert "Line 10" in "".join(raw[s:e] for s, e in spans)


TWO_TABLES = ("# Report\n\n## Segments\n\n"
              + "".join(f"Table {t} (in € millions):\n\n| Item {t} | 2024 | 2023 |\n|---|---|---|\n"
                        + "\n".join(f"| Row {t}.{i} | {100 + i}.0 | {90 + i}.5 |" for i in range(12)) + "\n\n"
                        for t in ("A", "B")))

_EXPAND_IN_A_PROCESS = """
import json, sys
from finchunk_pipeline.chunking.expand import expand_chunk
from finchunk_pipeline.parse import markdown
doc = markdown.parse("m", sys.stdin.read())
view = doc.view_text
start, end = view.index("| Row A.10"), view.index("| Row B.1 |") + len("| Row B.1 |")
print(json.dumps(expand_chunk({"view_spans": [{"start": start, "end": end}]}, doc, 520)[1]))
"""


def test_a_chunk_over_two_tables_expands_the_same_in_every_process():
    """The tables a chunk touches are expanded in the order it touches them, not in the order
    of a set of their ids (string hashing differs per process: PYTHONHASHSEED)."""
    import os
    import subprocess
    import sys

    outs = {subprocess.run([sys.executable, "-c", _EXPAND_IN_A_PROCESS], input=TWO_TABLES, text=True,
                           capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(6)}
    assert len(outs) == 1, outs
    text = outs.pop()
    assert "Item A" in text   # the first table touched gets its header first
