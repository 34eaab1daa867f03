import pytest

from finchunk_pipeline.parse import transcript as TR
from finchunk_pipeline import BlockKind
from finchunk_pipeline import select_parser

TEXT = """ExampleCo Q2 2025 Earnings Call

Prepared Remarks

Operator: Good morning and welcome to the ExampleCo second quarter call.

Jane Roe -- Chief Executive Officer: Thanks, operator. Revenue grew 12%.

We also expanded margins.

JOHN DOE:
Thank you Jane. Turning to cash flow.

Free cash flow was $1.2 billion.

Questions and Answers

Operator: Our first question comes from Alex Kim with Morgan Stanley. Please go ahead.

Alex Kim -- Analyst, Morgan Stanley: Can you talk about pricing?

Jane Roe -- Chief Executive Officer: Sure. Pricing was up 3%.

Operator: Next question comes from Bo Li with UBS.

Bo Li (UBS): What about China?

John Doe (ExampleCo): China was flat.

Mary Major - Analyst: One more on margins?

John Doe - CFO: Margins were 30%.

Operator: The next question is from Sam Park of Jefferies.

Sam Park:
How is demand?

John Doe:
Demand is solid.
"""

FOOL = """# Acme Corp (ACME) Q1 2025 Earnings Call Transcript

## Prepared Remarks:

**Operator**

Good day, and welcome to the Acme first quarter conference call.

**Pat Smith** -- Vice President, Investor Relations

Thank you. With me today is our CEO.

**Lee Wong** -- Chief Executive Officer

We delivered record revenue of $3.4 billion.

Gross margin was 45%.

## Questions & Answers:

**Operator**

Our first question comes from Dana White with Goldman Sachs.

**Dana White** -- Goldman Sachs -- Analyst

How should we think about the second half?

**Lee Wong** -- Chief Executive Officer

We expect continued growth.

## Call participants:

Pat Smith -- Vice President, Investor Relations
Lee Wong -- Chief Executive Officer
Dana White -- Goldman Sachs -- Analyst
"""


def _parse(raw, issuer):
    doc = TR.parse("tr", raw, {"doc_type": "earnings_call", "issuer": issuer})
    for b in doc.blocks:
        assert b.text == raw[b.start:b.end] == doc.view_text[b.vstart:b.vend]
        assert (b.start, b.end) == (b.vstart, b.vend)
    assert doc.offsets.is_identity and doc.parser == "transcript"
    return doc


def _turns(doc):
    return [b for b in doc.blocks if b.kind == BlockKind.TURN]


def test_speaker_conventions_and_roles():
    doc = _parse(TEXT, "ExampleCo Inc.")
    turns = _turns(doc)
    got = [(t.attrs["speaker"], t.attrs["role"]) for t in turns]
    assert got == [
        ("Operator", "operator"), ("Jane Roe", "executive"), ("JOHN DOE", "executive"),
        ("Operator", "operator"), ("Alex Kim", "analyst"), ("Jane Roe", "executive"),
        ("Operator", "operator"), ("Bo Li", "analyst"), ("John Doe", "executive"),
        ("Mary Major", "analyst"), ("John Doe", "executive"), ("Operator", "operator"),
        ("Sam Park", "analyst"), ("John Doe", "executive"),
    ]
    assert [t.attrs["turn_index"] for t in turns] == list(range(len(turns)))
    assert turns[4].attrs["firm"] == "Morgan Stanley" and turns[7].attrs["firm"] == "UBS"
    assert turns[12].attrs["firm"] == "Jefferies"  # learnt from the operator's introduction
    # a multi-paragraph turn stays one block
    assert turns[1].attrs["n_paragraphs"] == 2 and turns[1].text.endswith("We also expanded margins.")
    assert turns[2].text.startswith("JOHN DOE:\n") and turns[2].attrs["n_paragraphs"] == 2
    heads = [b for b in doc.blocks if b.kind == BlockKind.HEADING]
    assert heads[0].attrs.get("event_title") and heads[0].text == "ExampleCo Q2 2025 Earnings Call"
    assert turns[0].section_path == ("ExampleCo Q2 2025 Earnings Call", "Prepared Remarks")
    assert turns[4].section_path[-1] == "Questions and Answers"


def test_motley_fool_markdown():
    doc = _parse(FOOL, "Acme Corp")
    turns = _turns(doc)
    assert [(t.attrs["speaker"], t.attrs["role"]) for t in turns] == [
        ("Operator", "operator"), ("Pat Smith", "executive"), ("Lee Wong", "executive"),
        ("Operator", "operator"), ("Dana White", "analyst"), ("Lee Wong", "executive"),
    ]
    assert turns[4].attrs["firm"] == "Goldman Sachs"
    assert turns[2].attrs["n_paragraphs"] == 2 and turns[2].attrs["title"] == "Chief Executive Officer"
    roster = doc.blocks[-1]
    assert roster.kind == BlockKind.LIST and roster.section_path[-1] == "Call participants"


def test_analyst_never_executive_without_title():
    raw = ("Q3 call\n\nQ&A\n\nOperator: Next question comes from Ann Lee with Barclays.\n\n"
           "ANN LEE:\nWhat is the outlook?\n\nTOM CHIEF:\nStrong.\n\nANN LEE:\nThanks.\n")
    turns = _turns(_parse(raw, "Q Co"))
    assert [(t.attrs["speaker"], t.attrs["role"]) for t in turns] == [
        ("Operator", "operator"), ("ANN LEE", "analyst"), ("TOM CHIEF", "executive"), ("ANN LEE", "analyst")]


def test_registry_and_errors():
    assert select_parser("earnings_call", "text").name == "transcript"
    assert select_parser("earnings_call", "markdown").name == "transcript"
    with pytest.raises(ValueError):
        TR.parse("e", "\n\n", {})


def test_synthetic_calls_match_gold_turns(tmp_path):
    pd = pytest.importorskip("pandas")
    synth = pytest.importorskip("finchunk_pipeline.corpus.synth")
    synth.generate(tmp_path)
    docs = pd.read_parquet(tmp_path / "documents.parquet")
    passages = pd.read_parquet(tmp_path / "passages.parquet")
    calls = docs[docs.doc_type == "earnings_call"]
    assert len(calls)
    for r in calls.itertuples():
        doc = _parse(r.text, r.issuer)
        turns = {(b.start, b.end): b for b in _turns(doc)}
        gold = passages[(passages.doc_id == r.doc_id) & (passages.kind == "turn")]
        assert len(gold) == len(turns)
        for g in gold.itertuples():
            b = turns[(g.start, g.end)]
            label = r.text[g.start:g.end].split(":", 1)[0]
            expected = "operator" if label == "Operator" else "analyst" if "Analyst" in label else "executive"
            assert b.attrs["role"] == expected, (label, b.attrs)
