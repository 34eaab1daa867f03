"""The HTML parser's package split (issue 14): the tokenizer's events carry exact raw
positions, the table emitter works from a writer alone (no parser internals), and every
module / function stays small."""
from __future__ import annotations

from pathlib import Path

from finchunk_pipeline.parse import html as H
from finchunk_pipeline.parse.html.atoms import Atoms, add_raw_text
from finchunk_pipeline.parse.html.tables import Table, emit_table
from finchunk_pipeline.parse.html.tokenizer import tokenize
from finchunk_pipeline.parse.html.writer import BlockWriter
from finchunk_pipeline import BlockKind

PACKAGE = Path(H.__file__).parent


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple] = []

    def text(self, a, b):
        self.events.append(("text", a, b))

    def start_tag(self, tag, attrs, selfclose, pos):
        self.events.append(("start", tag, attrs, selfclose, pos))

    def end_tag(self, tag, pos):
        self.events.append(("end", tag, pos))

    def warn(self, message):
        self.events.append(("warn", message))


def events(raw: str) -> list[tuple]:
    r = Recorder()
    tokenize(raw, len(raw), r)
    return r.events


def test_tokenizer_events_have_exact_raw_positions():
    raw = '<!DOCTYPE html><P Class="x">A &amp; b<!-- c --><br/>d<script>if (a<b) x()</SCRIPT><![CDATA[e]]></p>'
    ev = events(raw)
    assert ev == [
        ("start", "p", ' Class="x"', False, 15),
        ("text", 28, 37),
        ("start", "br", "", True, raw.index("<br/>")),
        ("text", raw.index("d<script>"), raw.index("<script>")),
        ("start", "script", "", False, raw.index("<script>")),
        ("end", "script", raw.index("<![CDATA[")),  # raw-text end: reported after its end tag
        ("text", raw.index("e]]>"), raw.index("]]>")),
        ("end", "p", raw.index("</p>")),
    ]
    assert raw[28:37] == "A &amp; b"


def test_tokenizer_gives_up_on_unterminated_constructs_without_raising():
    assert events("x<!-- open")[-1] == ("warn", "unterminated comment at 1: rest of document ignored")
    assert events("<style>a{}")[-1][0] == "warn"
    assert events("a < b <c d")[0] == ("text", 0, 10)  # a "<" that starts no tag is text


def test_tables_emit_from_a_writer_alone():
    raw = "Revenue 1,000 2,000 Costs 500 600"
    table = Table(0)
    for label, a, b in (("Revenue", "1,000", "2,000"), ("Costs", "500", "600")):
        table.start_row()
        for word in (label, a, b):
            cell = table.start_cell(None)
            i = raw.index(word)
            add_raw_text(cell, raw, i, i + len(word), False, False)
        table.end_row()
    out = BlockWriter("t")
    flushed: list[Atoms] = []
    emit_table(out, table, flushed.append)
    assert not flushed
    kinds = [b.kind for b in out.blocks]
    assert kinds == [BlockKind.TABLE, BlockKind.TABLE_ROW, BlockKind.TABLE_ROW]
    assert [b.attrs["cells"] for b in out.blocks[1:]] == [["Revenue", "1,000", "2,000"], ["Costs", "500", "600"]]
    assert "".join(out.view) == "Revenue | 1,000 | 2,000\nCosts | 500 | 600"
