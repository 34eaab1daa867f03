"""The synthetic corpus generator and the shipped default corpus (data/corpus/default)."""
from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.corpus import load_corpus
from finchunk_pipeline.corpus.synth import DEFAULT_SEED, generate

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "data" / "corpus" / "default"
FILES = ("documents.parquet", "passages.parquet", "questions.parquet", "xbrl_facts.parquet")
NOT_VERBATIM = {"calculation", "point_in_time", "unanswerable"}


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(DEFAULT)


@pytest.fixture(scope="module")
def texts(corpus):
    return dict(zip(corpus.documents["doc_id"], corpus.documents["text"]))


@pytest.fixture(scope="module")
def passage_text(corpus, texts):
    p = corpus.passages
    return {pid: texts[d][s:e] for pid, d, s, e in zip(p["passage_id"], p["doc_id"], p["start"], p["end"])}


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    out = tmp_path_factory.mktemp("synth")
    generate(out, seed=DEFAULT_SEED)
    return out


def test_default_corpus_loads(corpus):
    assert corpus.labelled
    assert not corpus.document_problems
    assert corpus.xbrl_facts_path is not None
    assert sum(f.stat().st_size for f in DEFAULT.iterdir()) < 3_000_000


def test_spans_exact_and_trimmed(passage_text):
    for pid, t in passage_text.items():
        assert t, pid
        assert t == t.strip(), pid


def test_no_overlaps_and_full_coverage(corpus, texts):
    fmt = dict(zip(corpus.documents["doc_id"], corpus.documents["format"]))
    for doc_id, group in corpus.passages.groupby("doc_id"):
        spans = sorted(zip(group["start"], group["end"]))
        for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
            assert e1 <= s2, (doc_id, s1, s2)
        if fmt[doc_id] in ("markdown", "text"):
            covered = [False] * len(texts[doc_id])
            for s, e in spans:
                covered[s:e] = [True] * (e - s)
            gaps = [i for i, ch in enumerate(texts[doc_id]) if not ch.isspace() and not covered[i]]
            assert not gaps, (doc_id, texts[doc_id][gaps[0]:gaps[0] + 40])
            # the text between passages is only blank-line / newline separators
            for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
                assert texts[doc_id][e1:s2] in ("\n", "\n\n"), (doc_id, e1)
    assert set(corpus.passages["doc_id"]) == set(corpus.documents["doc_id"])


def test_gold_answers_verbatim(corpus, passage_text):
    for q in corpus.questions.itertuples(index=False):
        gold = list(q.gold_passages)
        if q.question_type == "unanswerable":
            assert not gold and pd.isna(q.answer)
            continue
        assert gold and q.answer, q.question_id
        doc_ids = set(q.doc_ids)
        assert all(p.split("#")[0] in doc_ids for p in gold), q.question_id
        if q.question_type not in NOT_VERBATIM:
            assert q.answer in " ".join(passage_text[p] for p in gold), (q.question_id, q.answer)


def test_calculation_answers_are_numbers(corpus):
    calc = corpus.questions[corpus.questions["question_type"] == "calculation"]
    assert all(re.fullmatch(r"-?[\d,]+(\.\d+)?%?", a) for a in calc["answer"])


def test_question_type_minimums(corpus):
    counts = corpus.questions["question_type"].value_counts().to_dict()
    minimum = {t: 15 for t in ("text", "table", "footnote", "text_and_note", "table_and_note", "calculation",
                                "comparison", "transcript", "filing_period", "proxy_footnote",
                                "unanswerable", "point_in_time")}
    assert len(corpus.questions) >= 300
    for t, n in minimum.items():
        assert counts.get(t, 0) >= n, (t, counts.get(t, 0))
    pit = corpus.questions[corpus.questions["question_type"] == "point_in_time"]
    assert pit["as_of"].notna().all()
    assert corpus.questions[corpus.questions["question_type"] != "point_in_time"]["as_of"].isna().all()


def test_questions_name_issuer_and_year(corpus):
    issuers = dict(zip(corpus.documents["doc_id"], corpus.documents["issuer"]))
    for q in corpus.questions.itertuples(index=False):
        names = {issuers[d] for d in q.doc_ids}
        assert any(n in q.question for n in names) or q.question_type == "comparison", q.question
        assert re.search(r"\b20\d\d\b", q.question) or q.question_type in ("comparison",), q.question


def test_default_regenerates_identically(regenerated):
    for name in FILES:
        new, old = pq.read_table(regenerated / name), pq.read_table(DEFAULT / name)
        assert new.equals(old), name
    a = pq.read_table(regenerated / "documents.parquet").column("text").to_pylist()
    b = pq.read_table(DEFAULT / "documents.parquet").column("text").to_pylist()
    assert [t.encode() for t in a] == [t.encode() for t in b]


def test_seed_changes_numbers_not_structure(tmp_path):
    generate(tmp_path, seed=DEFAULT_SEED + 1)
    other = load_corpus(tmp_path)
    base = load_corpus(DEFAULT)
    assert list(other.documents["doc_id"]) == list(base.documents["doc_id"])
    assert list(other.documents["text"]) != list(base.documents["text"])


def test_xbrl_matches_filings(corpus, texts):
    facts = pq.read_table(corpus.xbrl_facts_path).to_pandas()
    docs = corpus.documents
    by_acc = {}
    for doc_id, uri, filed in zip(docs["doc_id"], docs["source_uri"], docs["filed_at"]):
        m = re.search(r"/(\d{18})/", uri) if isinstance(uri, str) else None
        if m:
            by_acc[m.group(1)] = (doc_id, filed)
    assert len(facts) and facts["ticker"].nunique() == 3
    for f in facts.itertuples(index=False):
        doc_id, filed = by_acc[f.accession.replace("-", "")]
        assert pd.Timestamp(f.filed_at) == pd.Timestamp(filed), f
        printed = f"{f.value:.2f}" if f.unit == "USD/shares" else f"{f.value / 1e6:,.1f}"
        assert f">{printed}<" in texts[doc_id], (f.concept, printed, doc_id)
    # no fourth-quarter fact: Q4 must be derived from FY minus nine months
    durations = facts[facts["period_start"].notna()]
    days = (pd.to_datetime(durations["period_end"]) - pd.to_datetime(durations["period_start"])).dt.days
    q4 = durations[(days < 100) & (durations["fp"] == "FY")]
    assert q4.empty and "Q4" not in set(facts["fp"])
    assert set(facts["form"]) >= {"10-K", "10-Q", "10-Q/A"}
    # the amendment is filed later and changes a value
    amended = facts[facts["form"] == "10-Q/A"]
    key = ["ticker", "concept", "period_start", "period_end"]
    merged = amended.merge(facts[facts["form"] == "10-Q"], on=key, suffixes=("_a", "_o"))
    assert (merged["filed_at_a"] > merged["filed_at_o"]).all()
    assert (merged["value_a"] != merged["value_o"]).any()
    # at least one issuer's fiscal year does not end in December
    fy = facts[facts["fp"] == "FY"]
    assert (pd.to_datetime(fy["period_end"]).dt.month != 12).any()


def test_point_in_time_answers_follow_the_amendment(corpus, texts):
    docs = corpus.documents.set_index("doc_id")
    pit = corpus.questions[corpus.questions["question_type"] == "point_in_time"]
    for q in pit.itertuples(index=False):
        as_of = pd.Timestamp(q.as_of).tz_localize("UTC")
        for p in q.gold_passages:
            assert docs.loc[p.split("#")[0], "filed_at"] <= as_of, q.question_id
        # the gold comes from the latest filing known at that date
        known = [d for d in q.doc_ids if docs.loc[d, "filed_at"] <= as_of]
        latest = max(known, key=lambda d: docs.loc[d, "filed_at"])
        assert all(p.startswith(latest + "#") for p in q.gold_passages), q.question_id


def test_markdown_conventions(corpus, texts, passage_text):
    p = corpus.passages
    ar = corpus.documents[corpus.documents["doc_type"] == "annual_report"]
    assert ar["issuer"].nunique() >= 4 and ar["fiscal_year"].nunique() >= 2
    for doc_id in ar["doc_id"]:
        rows = p[(p["doc_id"] == doc_id)]
        kinds = collections.Counter(rows["kind"])
        assert kinds["table_row"] >= 5 and kinds["note"] >= 3 and kinds["list"] >= 1
        notes = [passage_text[x] for x in rows[rows["kind"] == "note"]["passage_id"]]
        assert all(n[0] in "¹²³⁴⁵⁶⁷⁸⁹" for n in notes)
    for pid, kind, section in zip(p["passage_id"], p["kind"], p["section"]):
        if kind == "table_row" and passage_text[pid].startswith("|"):
            assert passage_text[pid].endswith("|")


def test_transcript_turns(corpus, passage_text):
    p = corpus.passages
    calls = set(corpus.documents[corpus.documents["doc_type"] == "earnings_call"]["doc_id"])
    assert len(calls) >= 3
    turns = p[p["doc_id"].isin(calls) & (p["kind"] == "turn")]
    speaker = re.compile(r"^(Operator|[A-Z][\w.' -]+ -- [^:\n]+): ")
    for pid in turns["passage_id"]:
        assert speaker.match(passage_text[pid]), passage_text[pid][:60]


def test_scaled_generation_streams(tmp_path):
    counts = generate(tmp_path, seed=3, issuers=12)
    c = load_corpus(tmp_path)
    assert len(c.documents) == counts["docs"] > 100
    assert c.documents["doc_id"].is_unique


def test_cli(tmp_path, capsys):
    from finchunk_pipeline.cli import corpus as cli
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["corpus", "synth", "--out", str(tmp_path / "c"), "--seed", "5", "--issuers", "2"])
    assert args.func(args) == 0
    args = parser.parse_args(["corpus", "validate", str(tmp_path / "c")])
    assert args.func(args) == 0
    assert "documents" in capsys.readouterr().out
    (tmp_path / "bad").mkdir()
    args = parser.parse_args(["corpus", "validate", str(tmp_path / "bad")])
    assert args.func(args) == 1
    assert "required file missing" in capsys.readouterr().out


HTML_ELEMENT = re.compile(r"^<(h[1-3]|p|tr|ul)[ >].*</\1>$", re.S)
HTML_KIND = {"tr": {"table_row"}, "ul": {"list"}, "p": {"text", "note"}, "h1": {"heading"}, "h2": {"heading"},
             "h3": {"heading"}}


def test_html_passages_are_whole_elements(corpus, passage_text):
    fmt = dict(zip(corpus.documents["doc_id"], corpus.documents["format"]))
    p = corpus.passages
    html = p[p["doc_id"].map(fmt) == "html"]
    assert len(html)
    for pid, kind in zip(html["passage_id"], html["kind"]):
        m = HTML_ELEMENT.match(passage_text[pid])
        assert m and kind in HTML_KIND[m.group(1)], (pid, passage_text[pid][:60])
        if kind == "note":
            assert passage_text[pid].startswith('<p class="footnote"><sup>')
    # 10-Q statements: two header rows (period, then years with the unit) above the figures
    tenq = corpus.documents[corpus.documents["doc_type"] == "10-Q"]
    for doc_id, text in zip(tenq["doc_id"], tenq["text"]):
        assert re.search(r"<th colspan=\"2\">Three months ended [A-Z][a-z]+ \d+</th>", text)
        assert "(in millions, except per-share amounts)" in text


def test_annual_reports_share_one_template(corpus, passage_text):
    p = corpus.passages
    ar = corpus.documents[corpus.documents["doc_type"] == "annual_report"]["doc_id"]
    shapes = set()
    for doc_id in ar:
        rows = p[p["doc_id"] == doc_id]
        headings = [passage_text[x] for x in rows[rows["kind"] == "heading"]["passage_id"]][1:]
        table = [re.sub(r"\|[^|]*\d[^|]*", "|#", passage_text[x])
                 for x in rows[rows["kind"] == "table_row"]["passage_id"]]
        shapes.add((tuple(headings), tuple(rows["kind"]), tuple(table)))
    assert len(shapes) == 1


def test_issuer_numbers_stable_when_scaling(tmp_path):
    generate(tmp_path, seed=DEFAULT_SEED, issuers=5)
    big = dict(zip(*pq.read_table(tmp_path / "documents.parquet", columns=["doc_id", "text"]).to_pydict().values()))
    small = dict(zip(*pq.read_table(DEFAULT / "documents.parquet", columns=["doc_id", "text"]).to_pydict().values()))
    shared = set(big) & set(small)
    assert len(shared) >= 30
    assert all(big[d] == small[d] for d in shared)


def test_sec_filings_carry_their_facts_as_inline_xbrl(corpus, texts):
    """Each US filing tags in place exactly the facts xbrl_facts.parquet reports for it, and the
    tags are markup only: the parsed text is what an untagged filing gives."""
    from finchunk_pipeline.parse import html
    from finchunk_pipeline.parse.ixbrl import located_share

    facts = pq.read_table(corpus.xbrl_facts_path).to_pandas()
    docs = corpus.documents
    tagged = 0
    for doc_id, uri in zip(docs["doc_id"], docs["source_uri"]):
        m = re.search(r"/(\d{18})/", uri) if isinstance(uri, str) else None
        if not m:
            continue
        parsed = html.parse(doc_id, texts[doc_id])
        mine = facts[facts["accession"].str.replace("-", "") == m.group(1)]
        got = {(f.concept, f.period_start, f.period_end, round(f.value, 2)) for f in parsed.facts if f.kind == "numeric"}
        want = {(r.concept, None if pd.isna(r.period_start) else str(r.period_start)[:10], str(r.period_end)[:10],
                 round(r.value, 2)) for r in mine.itertuples()}
        assert got == want, doc_id
        assert located_share(parsed.facts) == (len(want), len(want))
        names = [f.display for f in parsed.facts if f.concept == "dei:EntityRegistrantName"]
        assert names == [docs.set_index("doc_id").loc[doc_id, "issuer"]]
        untagged = re.sub(r"</?ix:[^>]*>", "", texts[doc_id].split('<div style="display:none"><ix:header>')[0])
        assert parsed.view_text == html.parse(doc_id, untagged).view_text
        tagged += 1
    assert tagged == 15
