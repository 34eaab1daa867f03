import html as _html
import re

import pytest

from finchunk_pipeline.parse import html as H
from finchunk_pipeline import BlockKind



TEN_Q = """<html><head><title>ACME 10-Q</title><style>p { color: red } <b>not text</b></style>
<script>var x = "<p>hidden script</p>";</script></head>
<body>
<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:Flag">HIDDENFACT</ix:nonNumeric></ix:hidden></ix:header></div>
<h1>ACME Corp Form 10-Q</h1>
<div><span style="font-weight:700">PART I &#8212; FINANCIAL INFORMATION</span></div>
<div><span style="font-weight:700">Item&#160;2.&#160;&#160;Management&#8217;s Discussion and Analysis</span></div>
<p>Revenue grew in R&amp;D-heavy segments&nbsp;and   services<sup>1</sup>.</p>
<div><span style="font-weight:700">Results of Operations</span></div>
<div>(In millions)</div>
<table>
<tr><td></td><td colspan="3">Three Months Ended</td><td></td><td colspan="3">Six Months Ended</td></tr>
<tr><td></td><td colspan="2">June 30,<br/>2025</td><td></td><td></td><td colspan="2">June 30, 2025</td><td></td></tr>
<tr><td>Net sales<sup>(2)</sup></td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues">94,036</ix:nonFraction></td><td></td><td></td><td>$</td><td>189,000</td><td></td></tr>
<tr><td>Cost of sales</td><td></td><td>50,318</td><td></td><td></td><td></td><td>(101,000</td><td>)</td></tr>
<tr><td>Gross margin</td><td>$</td><td>43,718</td><td></td><td></td><td>$</td><td>88,000</td><td></td></tr>
</table>
<div><span>(2)</span><span>Net sales include services.</span></div>
<p><sup>1</sup> Services include AppleCare &amp; cloud.</p>
<div><span style="font-weight:700">Liquidity</span></div>
<p>Cash was strong &#8220;as expected.&#8221;</p>
</body></html>"""


def _strip(raw: str) -> str:
    s = re.sub(r"<(script|style)\b.*?</\1\s*>", " ", raw, flags=re.S | re.I)
    s = re.sub(r"<[^>]*>", " ", s)
    return _html.unescape(s)


def check_invariants(doc, raw):
    view = doc.view_text
    for b in doc.blocks:
        assert b.text == view[b.vstart:b.vend], b
        assert (b.start, b.end) == doc.offsets.to_raw(b.vstart, b.vend), b
        assert 0 <= b.start <= b.end <= len(raw)
        assert b.block_id == f"{doc.doc_id}#b{b.seq:05d}"
    assert [b.seq for b in doc.blocks] == list(range(len(doc.blocks)))
    assert all(a.vstart <= b.vstart for a, b in zip(doc.blocks, doc.blocks[1:]))


def _alnum(s: str) -> str:
    return "".join(c for c in s if c.isalnum())


def words_in_raw(doc, raw, blocks=None):
    """The raw span holds exactly the block's words: tag-stripped, unescaped raw[start:end] equals
    the block text modulo whitespace and inserted separators (compared on letters and digits)."""
    for b in blocks or doc.blocks:
        assert _alnum(_strip(raw[b.start:b.end])) == _alnum(b.text), (b.text[:200], raw[b.start:b.end][:500])


def test_snippet_invariants_and_view():
    doc = H.parse("acme-q", TEN_Q, {"format": "html"})
    check_invariants(doc, TEN_Q)
    words_in_raw(doc, TEN_Q)
    v = doc.view_text
    for hidden in ("HIDDENFACT", "hidden script", "color: red", "not text", "ACME 10-Q"):
        assert hidden not in v
    assert "R&D-heavy segments and services" in v  # entities decoded, whitespace collapsed
    assert "94,036" in v  # ix:nonFraction keeps its text
    assert doc.parser == "html" and doc.parser_version == H.VERSION


def test_headings_and_sections():
    doc = H.parse("acme-q", TEN_Q, {})
    heads = [(b.text, b.attrs["level"]) for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[0] == ("ACME Corp Form 10-Q", 1)
    assert ("PART I — FINANCIAL INFORMATION", 1) in heads
    assert ("Item 2. Management’s Discussion and Analysis", 2) in heads
    assert ("Results of Operations", 3) in heads
    table = next(b for b in doc.blocks if b.kind == BlockKind.TABLE)
    assert table.section_path == ("PART I — FINANCIAL INFORMATION", "Item 2. Management’s Discussion and Analysis",
                                  "Results of Operations")
    last = doc.blocks[-1]
    assert last.section_path[-1] == "Liquidity"
    # a block ending with an entity: its raw span covers the whole entity
    assert TEN_Q[last.start:last.end].endswith("&#8221;")


def test_table_header_columns_rows():
    doc = H.parse("acme-q", TEN_Q, {})
    table = next(b for b in doc.blocks if b.kind == BlockKind.TABLE)
    rows = [b for b in doc.blocks if b.parent_id == table.block_id]
    assert all(r.kind == BlockKind.TABLE_ROW for r in rows)
    assert [r.attrs["is_header"] for r in rows] == [True, True, False, False, False]
    assert table.attrs["columns"] == ["", "Three Months Ended June 30, 2025", "Six Months Ended June 30, 2025"]
    vs, ve = table.attrs["header_vspan"]
    assert doc.view_text[vs:ve] == table.attrs["header"]
    assert table.attrs["header"].startswith("Three Months Ended | Six Months Ended")
    assert table.attrs["unit"] == "(In millions)"
    net = rows[2]
    assert net.attrs["cells"] == ["Net sales (2)", "$94,036", "$189,000"]
    assert net.text == "Net sales (2) | $94,036 | $189,000"
    assert rows[3].attrs["cells"] == ["Cost of sales", "50,318", "(101,000)"]
    assert net.attrs["cites"] == ["2"]
    assert "2" in table.attrs["cites"]
    assert table.text == "\n".join(r.text for r in rows)


def test_footnote_notes():
    doc = H.parse("acme-q", TEN_Q, {})
    para = next(b for b in doc.blocks if b.text.startswith("Revenue grew"))
    assert para.attrs["cites"] == ["1"]
    notes = [b for b in doc.blocks if b.kind == BlockKind.NOTE]
    assert [n.attrs["mark"] for n in notes] == ["2", "1"]
    table = next(b for b in doc.blocks if b.kind == BlockKind.TABLE)
    assert notes[0].attrs["refers_to"] == table.block_id
    assert notes[0].text == "(2) Net sales include services."
    assert notes[1].attrs["refers_to"] == para.block_id


def test_malformed_markup_degrades():
    raw = ("<html><body><div><p>First para <b>bold <i>unclosed\n<p>Second para</div></span>"
           "<table><tr><td>Revenue<td>1,000<td>2,000<tr><td>Costs<td>500<td>600</table>"
           "<p>Tail &amp; end &bogus; <3 x < y</p><div style='display:none'>gone")
    doc = H.parse("bad", raw, {})
    check_invariants(doc, raw)
    words_in_raw(doc, raw)
    texts = [b.text for b in doc.blocks]
    assert "First para bold unclosed" in texts
    assert "Second para" in texts
    rows = [b for b in doc.blocks if b.kind == BlockKind.TABLE_ROW]
    assert [r.attrs["cells"] for r in rows] == [["Revenue", "1,000", "2,000"], ["Costs", "500", "600"]]
    assert "Tail & end &bogus; <3 x < y" in texts
    assert "gone" not in doc.view_text
    assert doc.warnings  # unmatched end tags / unclosed elements recorded


def test_unterminated_comment_and_no_text():
    doc = H.parse("c", "<p>Visible text</p><!-- never closed <p>lost</p>", {})
    assert [b.text for b in doc.blocks] == ["Visible text"]
    assert any("comment" in w for w in doc.warnings)
    with pytest.raises(ValueError):
        H.parse("empty", "   ", {})
    with pytest.raises(ValueError):
        H.parse("hidden", "<html><head><title>t</title></head><body><script>x</script></body></html>", {})


def test_layout_and_footnote_tables():
    raw = ("<table><tr><td><b>Item 1A. Risk Factors</b></td></tr><tr><td>Our business is risky.</td></tr></table>"
           "<table><tr><td>Revenue<sup>*</sup></td><td>10</td><td>12</td></tr>"
           "<tr><td>Costs</td><td>5</td><td>6</td></tr></table>"
           "<table><tr><td>*</td><td>Unaudited.</td></tr></table>")
    doc = H.parse("lay", raw, {})
    check_invariants(doc, raw)
    kinds = [b.kind for b in doc.blocks]
    assert kinds[:2] == [BlockKind.HEADING, BlockKind.PARAGRAPH]
    assert doc.blocks[1].section_path == ("Item 1A. Risk Factors",)
    note = doc.blocks[-1]
    assert note.kind == BlockKind.NOTE and note.attrs["mark"] == "*"


def test_large_and_pathological_markup_parse():
    """Large and pathological inputs parse completely (their speed is measured in
    bench/bench_parse_html.py, never asserted here)."""
    para = '<div><span style="font-weight:400">Lorem ipsum &amp; dolor sit amet, 1,234.</span></div>\n'
    row = '<tr><td>Label</td><td>$</td><td>1,234&#160;</td><td/></tr>'
    raw = "<html><body>" + (para * 20 + "<table>" + row * 20 + "</table>") * 300 + "</body></html>"
    doc = H.parse("big", raw, {})
    assert doc.counts()["table"] == 300
    # stray "<", unterminated quotes, deep unclosed nesting: no recursion error, text kept
    for bad in ("a < b <c " * 40000, '<div class="x>text ' * 5000, "<div>" * 50000 + "x",
                "<span>" * 20000 + "<td>x" * 20000):
        doc = H.parse("bad", bad, {})
        assert doc.blocks


def test_lists_and_outer_spans():
    raw = ('<h2>Item 1A. Risk Factors</h2>\n<p><b>PART I</b></p>\n'
           '<ul><li>One <b>a</b></li><li><p>Two</p><ul><li>Nested</li></ul></li></ul>\n'
           '<table border="1">\n<tr><th></th><th colspan="2">Three months ended June 30</th></tr>\n'
           '<tr><td>Revenues<sup>1</sup></td><td align="right">1,234.5</td><td align="right">1,100.0</td></tr>\n'
           '</table>\n<p class="footnote"><sup>1</sup> Net of returns.</p>\n')
    doc = H.parse("o", raw, {})
    check_invariants(doc, raw)
    words_in_raw(doc, raw)
    by_text = {b.text: b for b in doc.blocks}
    lst = by_text["One a\nTwo\nNested"]
    assert lst.kind == BlockKind.LIST and lst.attrs["items"] == 3

    def outer(b):
        s, e = b.attrs.get("outer", (b.start, b.end))
        return raw[s:e]
    assert outer(by_text["PART I"]) == "<p><b>PART I</b></p>"
    assert outer(by_text["Item 1A. Risk Factors"]) == "<h2>Item 1A. Risk Factors</h2>"
    assert outer(by_text["Three months ended June 30"]) == \
        '<tr><th></th><th colspan="2">Three months ended June 30</th></tr>'
    assert outer(by_text["Revenues 1 | 1,234.5 | 1,100.0"]).startswith("<tr><td>Revenues")
    note = next(b for b in doc.blocks if b.kind == BlockKind.NOTE)
    assert outer(note) == '<p class="footnote"><sup>1</sup> Net of returns.</p>'
    assert lst.attrs["outer"][1] - lst.attrs["outer"][0] == len(
        "<ul><li>One <b>a</b></li><li><p>Two</p><ul><li>Nested</li></ul></li></ul>")


def test_synthetic_filings_match_gold_passages(tmp_path):
    import pandas as pd

    synth = pytest.importorskip("finchunk_pipeline.corpus.synth")
    synth.generate(tmp_path)
    docs = pd.read_parquet(tmp_path / "documents.parquet")
    passages = pd.read_parquet(tmp_path / "passages.parquet")
    html_docs = docs[docs.format == "html"]
    assert len(html_docs)
    for r in html_docs.itertuples():
        doc = H.parse(r.doc_id, r.text, {})
        check_invariants(doc, r.text)
        outer = {tuple(b.attrs.get("outer", (b.start, b.end))) for b in doc.blocks}
        for g in passages[passages.doc_id == r.doc_id].itertuples():
            assert (g.start, g.end) in outer, (g.kind, r.text[g.start:g.end][:120])
