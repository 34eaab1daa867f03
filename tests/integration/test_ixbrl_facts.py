"""Inline-XBRL facts located by the HTML parser (parse/ixbrl): values, exact spans in the raw
text and the view, the block that holds each figure, and EDGAR's quirks."""
from __future__ import annotations


import pytest

from finchunk_pipeline.parse import html
from finchunk_pipeline.parse.ixbrl import VERSION as IXBRL_VERSION
from finchunk_pipeline.parse.ixbrl import located_share
from finchunk_pipeline.parse.ixbrl.transforms import number
from finchunk_pipeline.types.offsets import OffsetMap
from finchunk_pipeline import BlockStore

from tests.ixbrl_docs import filing_html


@pytest.fixture(scope="module")
def parsed():
    raw = filing_html()
    return raw, html.parse("w", raw)


def facts_by_id(doc):
    return {f.fact_id: f for f in doc.facts}


def test_numbers_values_scale_sign_and_units(parsed):
    _, doc = parsed
    f = facts_by_id(doc)
    assert f["f-4"].value == 4_210_000_000 and f["f-4"].unit == "USD" and f["f-4"].scale == 6
    assert f["f-8"].value == -35_000_000 and f["f-8"].sign == "-"      # shown as (35)
    assert f["f-3"].value == 0.0 and f["f-3"].display == "—"           # ixt:fixed-zero
    assert f["f-12"].value == 3.41 and f["f-12"].unit == "USD/shares"  # a divide unit
    assert f["f-17"].value is None and f["f-17"].problem.startswith("nil")


def test_contexts_periods_and_dimensions(parsed):
    _, doc = parsed
    f = facts_by_id(doc)
    assert (f["f-4"].period_start, f["f-4"].period_end) == ("2024-01-01", "2024-12-31")
    assert (f["f-14"].period_start, f["f-14"].period_end) == (None, "2024-12-31")  # an instant
    assert f["f-5"].period_end == "2023-12-31"
    assert f["f-20"].dimensions == [["us-gaap:StatementBusinessSegmentsAxis", "wdgt:GizmoWorksMember"]]
    assert f["f-4"].entity == "0000999999"


def test_every_visible_figure_sits_at_its_exact_span(parsed):
    raw, doc = parsed
    numeric = [x for x in doc.facts if x.kind == "numeric" and x.located]
    assert len(numeric) == 18
    for x in numeric:
        (s, e), = x.spans
        (vs, ve), = x.vspans
        assert raw[s:e] == x.display, x.fact_id
        assert doc.view_text[vs:ve] == x.display, x.fact_id
    assert located_share(doc.facts) == (18, 18)  # nil and hidden-without-display are not counted


def test_block_of_each_figure(parsed):
    _, doc = parsed
    blocks = {b.block_id: b for b in doc.blocks}
    f = facts_by_id(doc)
    row = blocks[f["f-10"].block_id]
    assert row.kind == "table_row" and row.text.startswith("Net income")
    assert blocks[f["f-2"].block_id].kind == "paragraph"


def test_text_block_with_continuation_nested_fact_and_exclude(parsed):
    raw, doc = parsed
    f = facts_by_id(doc)
    note = f["f-18"]
    assert note.kind == "text" and len(note.spans) == 2  # its own text and its continuation
    assert "Shipping costs billed" in raw[note.spans[1][0]:note.spans[1][1]]
    assert "Page 12" not in note.display  # ix:exclude
    assert f["f-19"].within == "f-18"  # the figure inside the note knows its note


def test_hidden_facts_placed_where_a_visible_element_displays_them(parsed):
    raw, doc = parsed
    f = facts_by_id(doc)
    shown = f["h-2"]
    assert shown.hidden and shown.located
    assert raw[shown.spans[0][0]:shown.spans[0][1]] == "Other assets, noncurrent"
    assert f["h-3"].value == 7_000_000 and not f["h-3"].spans and f["h-3"].problem.startswith("hidden")


def test_any_prefix_bound_to_the_inline_xbrl_namespace():
    doc = html.parse("w", filing_html(ix="ixq"))
    assert located_share(doc.facts) == (18, 18)


def test_documents_without_inline_xbrl_have_no_facts():
    doc = html.parse("p", "<html><body><p>Net sales were $4,210 million.</p></body></html>")
    assert doc.facts == []


def test_transformation_rules():
    assert number("1,234.5", "ixt:num-dot-decimal") == 1234.5
    assert number("1.234,5", "ixt:num-comma-decimal") == 1234.5
    assert number("no", "ixt-sec:numwordsen") == 0 and number("three", "ixt-sec:numwordsen") == 3
    assert number("twenty-one", "ixt-sec:numwordsen") == 21
    assert number("-", "ixt:fixed-zero") == 0 and number("—", None) == 0
    with pytest.raises(ValueError, match="not supported"):
        number("12", "ixt:date-monthday-en")


def test_offset_map_raw_to_view():
    m = OffsetMap()
    m.add(0, 10, 5)   # view 0..5 <- raw 10..15
    m.add(7, 30, 4)   # view 7..11 <- raw 30..34
    assert m.to_view(10, 15) == (0, 5)
    assert m.to_view(12, 32) == (2, 9)
    assert m.to_view(16, 29) is None    # markup only
    assert m.to_view(15, 31) == (7, 8)  # starts between runs


def test_facts_stored_with_the_blocks_and_the_parser_version_names_them(tmp_path, parsed):
    _, doc = parsed
    store = BlockStore(tmp_path)
    store.write("html-x", doc)
    back = store.read_facts("html-x", doc.doc_sha, doc_id="other")
    assert [x.fact_id for x in back] == [x.fact_id for x in doc.facts]
    assert back[9].block_id.startswith("other#")  # re-labelled as blocks are
    assert store.read("html-x", doc.doc_sha).facts == []  # chunking never reads them
    assert html.VERSION.endswith(IXBRL_VERSION) and html.VERSION != "1"
