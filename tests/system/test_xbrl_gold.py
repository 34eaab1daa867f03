"""Every filing is its own gold (evaluation/xbrl_gold): questions generated from inline-XBRL
facts, their gold evidence, the sample, the words, the corpus command and a new user's path
from a folder of iXBRL filings to a report with a recommended policy."""
from __future__ import annotations

import json
import re
from datetime import date

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.corpus import load_corpus, schema
from finchunk_pipeline.evaluation.generated_report import spearman
from finchunk_pipeline.evaluation.xbrl_gold import FilingInput, generate
from finchunk_pipeline.builders.xbrl_gold import REPORT, gold_from_xbrl
from finchunk_pipeline.evaluation.xbrl_gold.options import GoldOptions
from finchunk_pipeline.evaluation.xbrl_gold.words import concept_words, member_words, period_words, topic_words
from finchunk_pipeline.parse import html
from finchunk_pipeline import Settings

from tests.ixbrl_docs import documents_rows


def filings(n=1):
    out = []
    for r in documents_rows(n):
        doc = html.parse(r["doc_id"], r["text"])
        out.append(FilingInput(r, doc, doc.facts))
    return out


def by_fact(gold):
    return {q["question_id"].rsplit(":", 1)[1]: q for q in gold.questions}


def test_question_types_and_their_gold_evidence():
    gold = generate(filings(), per_document=None)
    q = by_fact(gold)
    # a table figure: the table's header rows, then the row that holds it
    assert q["f-10"]["question_type"] == "xbrl_table"
    assert q["f-10"]["gold_passages"] == ["wdgt-10k-2024#b00008:header", "wdgt-10k-2024#b00013"]
    assert q["f-11"]["question_type"] == "xbrl_prior_period" and "fiscal year 2023" in q["f-11"]["question"]
    assert q["f-20"]["question_type"] == "xbrl_segment" and "GizmoWorks" in q["f-20"]["question"]
    assert q["f-19"]["question_type"] == "xbrl_text_figure"
    assert q["f-19"]["gold_passages"] == ["wdgt-10k-2024#b00022"]
    assert q["f-18"]["question_type"] == "xbrl_note" and "revenue recognition" in q["f-18"]["question"]
    assert q["f-18"]["gold_passages"] == ["wdgt-10k-2024#b00021", "wdgt-10k-2024#b00027"]  # with its continuation
    assert q["f-10"]["answer"] == "915 million USD" and q["f-8"]["answer"] == "-35 million USD"
    assert q["f-3"]["answer"] == "0"


def test_gold_spans_are_the_blocks_and_the_header_covers_the_header_rows():
    (item,) = filings()
    gold = generate([item], per_document=None)
    raw = documents_rows(1)[0]["text"]
    blocks = {b.block_id: b for b in item.doc.blocks}
    head = gold.passages["wdgt-10k-2024#b00008:header"]
    assert (head.start, head.end) == (blocks["wdgt-10k-2024#b00009"].start, blocks["wdgt-10k-2024#b00009"].end)
    row = gold.passages["wdgt-10k-2024#b00013"]
    assert "Net income" in raw[row.start:row.end] and "915" in raw[row.start:row.end]
    lenient = generate([item], per_document=None, evidence="row")
    assert by_fact(lenient)["f-10"]["gold_passages"] == ["wdgt-10k-2024#b00013"]


def test_a_figure_tagged_twice_is_one_question_with_both_places():
    gold = generate(filings(), per_document=None)
    revenue = [q for q in gold.questions if q["answer"] == "4,210 million USD"]
    assert len(revenue) == 1
    assert set(revenue[0]["gold_passages"]) == {"wdgt-10k-2024#b00004", "wdgt-10k-2024#b00008:header",
                                                "wdgt-10k-2024#b00010"}


def test_questions_never_hold_the_answer_and_ask_in_the_concepts_words():
    gold = generate(filings(), per_document=None)
    for q in gold.questions:
        if q["answer"] and q["answer"] != "0":
            figure = q["answer"].split()[0].lstrip("-")
            assert not re.search(rf"(?<![\d,.]){re.escape(figure)}(?![\d,.])", q["question"]), q
    rep = gold.report["filings"][0]
    assert 0 < rep["label_not_in_row_share"] <= 1   # measured: most asked labels are not the row's words


def test_rejections_are_counted_with_their_reason():
    gold = generate(filings(), per_document=None)
    rejected = gold.report["filings"][0]["rejected"]
    assert rejected == {"hidden": 1, "nil": 1}
    assert gold.report["filings"][0]["located_share"] == 1.0


def test_the_sample_is_seeded_and_spread_over_the_types():
    items = filings(2)
    a = generate(items, per_document=5, seed=1)
    assert [q["question_id"] for q in a.questions] == [q["question_id"] for q in generate(items, per_document=5, seed=1).questions]
    assert [q["question"] for q in a.questions] != [q["question"] for q in generate(items, per_document=5, seed=2).questions]
    for f in a.report["filings"]:
        assert sum(f["questions"].values()) == 5 and len(f["questions"]) == 5  # one of each type


def test_the_generated_corpus_is_valid_and_passages_never_overlap(tmp_path):
    src = tmp_path / "filings"
    src.mkdir()
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(documents_rows(2)), schema=schema.DOCUMENTS,
                                        preserve_index=False), src / "documents.parquet")
    before = (src / "documents.parquet").read_bytes()
    gold = gold_from_xbrl(src, tmp_path / "gold", per_document=None)
    corpus = load_corpus(tmp_path / "gold")  # the loader rejects overlapping or out-of-range passages
    assert corpus.labelled and len(corpus.questions) == len(gold.questions) == 36
    assert (src / "documents.parquet").read_bytes() == before and not (src / "questions.parquet").exists()
    assert json.loads((tmp_path / "gold" / REPORT).read_text())["questions"] == 36
    with pytest.raises(ValueError, match="is the source corpus"):
        gold_from_xbrl(src, src)


def test_words():
    assert concept_words("us-gaap:PropertyPlantAndEquipmentNet") == "property plant and equipment, net"
    assert concept_words("us-gaap:NetIncomeLoss") == "net income (loss)"
    assert concept_words("us-gaap:IncreaseDecreaseInAccountsReceivable") == "increase (decrease) in accounts receivable"
    assert topic_words("us-gaap:IncomeTaxDisclosureTextBlock") == "income tax"
    assert member_words("aapl:IPhoneMember", "Sales of iPhone rose.") == "iPhone"
    assert member_words("us-gaap:StatementBusinessSegmentsAxis") == "statement business segments"
    assert period_words("2023-10-01", "2024-09-28", date(2024, 9, 28), 2024) == "fiscal year 2024"
    assert period_words("2022-09-25", "2023-09-30", date(2024, 9, 28), 2024) == "fiscal year 2023"
    assert period_words("2025-03-30", "2025-06-28") == "the three months ended June 28, 2025"
    assert period_words("2024-12-29", "2025-06-28") == "the six months ended June 28, 2025"
    assert period_words(None, "2024-09-28") == "September 28, 2024"


def test_options_from_settings_name_the_variable():
    assert GoldOptions.from_settings(Settings.from_env({})) == GoldOptions()
    opts = GoldOptions.from_settings(Settings.from_env({"FINCHUNK_GOLD_PER_FILING": "all",
                                                        "FINCHUNK_GENERATED_GOLD": "off"}))
    assert opts.per_filing is None and not opts.enabled
    for var, value in (("FINCHUNK_GOLD_PER_FILING", "many"), ("FINCHUNK_GOLD_EVIDENCE", "page"),
                       ("FINCHUNK_GENERATED_GOLD", "maybe"), ("FINCHUNK_GOLD_SEED", "x")):
        with pytest.raises(ValueError, match=var):
            GoldOptions.from_settings(Settings.from_env({var: value}))


def test_spearman():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties take average ranks, as scipy.stats.spearmanr (0.94868..., 0.19885...)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(0.948683, abs=1e-6)
    assert spearman([3, 1, 4, 1, 5, 9, 2, 6], [2, 7, 1, 8, 2, 8, 1, 8]) == pytest.approx(0.198854, abs=1e-6)
    assert spearman([1, 1, 1], [1, 2, 3]) is None and spearman([1, 2], [1, 2]) is None


@pytest.mark.slow
def test_a_new_users_path_from_ixbrl_filings_to_a_recommended_policy(tmp_path, monkeypatch, capsys):
    """A folder of iXBRL filings, no questions: finchunk run evaluates on generated gold, says so at
    the top of the report, and recommends a policy from it."""
    from finchunk_pipeline.cli import main

    folder = tmp_path / "filings"
    folder.mkdir()
    for r in documents_rows(2):
        (folder / f"{r['doc_id']}.htm").write_text(r["text"])
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(["corpus", "from-files", str(folder), "--out", str(tmp_path / "corpus")]) == 0
    assert not (tmp_path / "corpus" / "questions.parquet").exists()
    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text("chunk_sets:\n"
                        "  - {name: fixed, strategy: fixed, params: {size: 500, overlap: 50}, dense: false}\n"
                        "  - {name: evidence, strategy: structure, params: {max_chars: 300, table_max_chars: 150,"
                        " link_notes_chars: 0}, header: true, token_safe: true, expand: 800, dense: false}\n")
    assert main(["run", "--corpus", str(tmp_path / "corpus"), "--out", str(tmp_path / "out"), "--data",
                 str(tmp_path / "store"), "--chunkers", str(chunkers), "--retrievers", "bm25"]) == 0
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    assert report["gold"] == "generated" and report["questions"] == 36
    assert report["summary"]["recommendations"], "a recommended policy from generated gold"
    md = (tmp_path / "out" / "evaluation.md").read_text()
    assert "**Evaluated on generated gold.**" in md.split("## Summary")[0]


class _Remote:
    """A remote data root: push copies local files there, pull copies them back."""

    def __init__(self, local, remote):
        self.local, self.remote = local, remote

    def _copy(self, paths, src, dst):
        import shutil

        for p in paths:
            rel = p.relative_to(src)
            if p.exists():
                (dst / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(p, dst / rel)

    def push(self, *paths):
        self._copy([p for p in paths], self.local, self.remote)

    def pull(self, *paths):
        self._copy([self.remote / p.relative_to(self.local) for p in paths], self.remote, self.local)


def test_a_corpus_without_tagged_facts_stores_no_questions_even_through_a_remote(tmp_path):
    """Generated gold that became empty (the filings replaced, or generation switched off) must
    not come back from a remote data root's copy (it did: the empty set was pushed, removed
    locally only, pulled back, and the evaluation failed on it)."""
    import shutil

    from finchunk_pipeline.builders.xbrl_gold import build_generated_gold
    from finchunk_pipeline.storage.gold import GoldFiles
    from finchunk_pipeline import BlockStore

    local, remote = tmp_path / "local", tmp_path / "remote"
    blocks = BlockStore(local / "blocks")
    rows = documents_rows(1)
    doc = html.parse(rows[0]["doc_id"], rows[0]["text"])
    blocks.write("html-x", doc)
    plain = html.parse("plain", "<html><body><p>Net sales were $4,210 million.</p></body></html>")
    blocks.write("html-x", plain)
    meta = {k: rows[0][k] for k in ("doc_id", "doc_type", "issuer", "fiscal_year", "period_end")}
    with_facts = pd.DataFrame([{**meta, "sha": doc.doc_sha, "parser_key": "html-x"}])
    without = pd.DataFrame([{**meta, "doc_id": "plain", "sha": plain.doc_sha, "parser_key": "html-x"}])
    files = GoldFiles(local / "gold")
    transfer = _Remote(local, remote)
    assert build_generated_gold(with_facts, blocks, files, GoldOptions(), transfer) is not None
    assert files.exists() and (remote / "gold" / "questions.parquet").exists()
    for manifest, options in ((without, GoldOptions()), (with_facts, GoldOptions(enabled=False))):
        assert build_generated_gold(with_facts, blocks, files, GoldOptions(), transfer) is not None
        assert build_generated_gold(manifest, blocks, files, options, transfer) is None
        assert not files.exists()
        shutil.rmtree(local / "gold")                  # another machine's working copy ...
        transfer.pull(files.marker, files.questions, files.passages)
        assert not files.exists()                      # ... pulls "no questions", not the old set
