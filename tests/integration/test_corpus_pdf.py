"""PDF documents through the corpus contract: documents by path, page + quote passages,
`finchunk corpus from-files`, `finchunk fetch` (local server only) and the graph end to end."""
from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.cli import main
from finchunk_pipeline.corpus import CorpusError, load_corpus, schema
from finchunk_pipeline.fetch.download import fetch_urls
from finchunk_pipeline.fetch.http import HttpClient
from finchunk_pipeline.fetch.local import ingest_corpus
from finchunk_pipeline import RawStore
from finchunk_pipeline.hashing import sha256_bytes

from tests import pdfs
from tests.servers import LocalHTTPServer

DOC_SCHEMA = schema.DOCUMENTS.append(schema.DOCUMENTS_OPTIONAL.field("path"))
PASSAGE_SCHEMA = pa.schema(list(schema.PASSAGES) + list(schema.PASSAGES_OPTIONAL))


def _doc(doc_id, fmt="pdf", path=None, text=None):
    row = {c: None for c in DOC_SCHEMA.names}
    row.update(doc_id=doc_id, title=doc_id, doc_type="annual_report", issuer="Example Holdings plc",
               language="en", format=fmt, path=path, text=text)
    return row


def _write(folder, docs, passages=None, questions=None):
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(docs, schema=DOC_SCHEMA), folder / "documents.parquet")
    if passages is not None:
        pq.write_table(pa.Table.from_pylist(passages, schema=PASSAGE_SCHEMA), folder / "passages.parquet")
    if questions is not None:
        rows = [{"answer": None, "as_of": None, **q} for q in questions]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema.QUESTIONS), folder / "questions.parquet")
    return folder


def _passage(pid, doc_id, page, quote, start=None, end=None):
    return {"passage_id": pid, "doc_id": doc_id, "section": f"page {page}", "kind": "text",
            "start": start, "end": end, "page": page, "quote": quote}


@pytest.fixture
def pdf_corpus(tmp_path):
    folder = tmp_path / "corpus"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "acme.pdf").write_bytes(pdfs.filing_pdf())
    (folder / "files" / "notes.md").write_text("# Notes\n\nThe dividend was raised to 12 pence.\n")
    docs = [_doc("acme", path="files/acme.pdf"), _doc("notes", fmt="markdown", path="files/notes.md")]
    passages = [
        _passage("acme#p2", "acme", 2, "Revenue 1,234.5 1,100.2\nCost of sales (700.1) (650.0)"),
        _passage("acme#p1", "acme", 1, "CASH GENERATION remained solid throughout the year"),
        _passage("acme#lost", "acme", 3, "A sentence that no page of this report contains at all"),
        {"passage_id": "notes#1", "doc_id": "notes", "section": "Notes", "kind": "text",
         "start": 9, "end": 45, "page": None, "quote": None},
    ]
    questions = [
        {"question_id": "q1", "question": "What was Example Holdings revenue and cost of sales in 2024?",
         "question_type": "table", "doc_ids": ["acme"], "gold_passages": ["acme#p2"]},
        {"question_id": "q2", "question": "How was cash generation during the year?", "question_type": "text",
         "doc_ids": ["acme"], "gold_passages": ["acme#p1", "acme#lost"]},
        {"question_id": "q3", "question": "What dividend was paid?", "question_type": "text",
         "doc_ids": ["notes"], "gold_passages": ["notes#1"]},
    ]
    return _write(folder, docs, passages, questions)


def test_pdf_corpus_loads_and_ingests_the_file_bytes(pdf_corpus, tmp_path):
    corpus = load_corpus(pdf_corpus)
    assert not corpus.document_problems and corpus.labelled
    result = ingest_corpus(corpus, RawStore(tmp_path / "raw"))
    row = result.manifest.set_index("doc_id").loc["acme"]
    assert row["sha"] == sha256_bytes((pdf_corpus / "files" / "acme.pdf").read_bytes())
    assert RawStore(tmp_path / "raw").path(row["sha"], "pdf").read_bytes()[:5] == b"%PDF-"
    assert result.manifest.set_index("doc_id").loc["notes", "n_chars"] == len((pdf_corpus / "files" / "notes.md").read_text())


@pytest.mark.parametrize("path, expected", [
    ("files/missing.pdf", "file 'files/missing.pdf' not found in the corpus folder"),
    ("../outside.pdf", "path '../outside.pdf' leaves the corpus folder"),
    ("/etc/passwd", "path '/etc/passwd' must be relative to the corpus folder"),
    ("files/fake.pdf", "file 'files/fake.pdf' is not a PDF"),
    (None, "format pdf needs 'path'"),
])
def test_bad_paths_are_per_document_problems(tmp_path, path, expected):
    folder = tmp_path / "c"
    (folder / "files").mkdir(parents=True)
    (tmp_path / "outside.pdf").write_bytes(pdfs.filing_pdf(1))
    (folder / "files" / "fake.pdf").write_text("just text")
    (folder / "files" / "ok.pdf").write_bytes(pdfs.filing_pdf(1))
    _write(folder, [_doc("bad", path=path), _doc("good", path="files/ok.pdf")])
    corpus = load_corpus(folder)
    assert list(corpus.document_problems) == ["bad"]
    assert expected in corpus.document_problems["bad"]


def test_pdf_given_as_text_is_a_problem(tmp_path):
    _write(tmp_path / "c", [_doc("t", text="%PDF-1.4 pasted")])
    assert "text must be null" in load_corpus(tmp_path / "c").document_problems["t"]


@pytest.mark.parametrize("passage, message", [
    (_passage("p", "acme", 1, "some quote", start=0, end=10), r"gives page \+ quote, not start/end"),
    (_passage("p", "acme", None, "some quote"), "pdf passage needs a page number"),
    (_passage("p", "acme", 1, " "), "pdf passage needs a non-empty quote"),
])
def test_pdf_passages_need_page_and_quote(tmp_path, passage, message):
    folder = tmp_path / "c"
    (folder / "files").mkdir(parents=True)
    (folder / "files" / "a.pdf").write_bytes(pdfs.filing_pdf(1))
    _write(folder, [_doc("acme", path="files/a.pdf")], [passage])
    with pytest.raises(CorpusError, match=message):
        load_corpus(folder)


@pytest.mark.slow
def test_whole_graph_on_a_pdf_corpus_reports_gold_resolution(tmp_path, pdf_corpus):
    from dagster import DagsterInstance

    from tests.integration.test_pipeline_dagster import make_pipeline, run_all

    chunkers = tmp_path / "chunkers.yaml"
    chunkers.write_text("chunk_sets:\n  - {name: structure-h, strategy: structure, params: {max_chars: 800}, "
                        "header: true, dense: false}\n")
    pipeline = make_pipeline(tmp_path, pdf_corpus, chunkers)
    result = run_all(pipeline, DagsterInstance.ephemeral())
    assert result.success
    parse_report = json.loads((tmp_path / "out" / "parse_report.json").read_text())
    assert {r["doc_id"]: r["error"] for r in parse_report["documents"]} == {"acme": None, "notes": None}
    gold = pq.read_table(pipeline.workspace().gold_passages_path).to_pandas().set_index("passage_id")
    assert gold.loc["acme#p2", "resolution"] == "exact" and gold.loc["acme#lost", "resolution"] == "unresolved"
    assert gold.loc["notes#1", "resolution"] == "offsets"
    report = json.loads((tmp_path / "out" / "evaluation.json").read_text())
    res = report["gold_resolution"]
    assert {k: res[k] for k in ("passages", "exact", "whole_page", "unresolved", "unresolved_ids")} == \
        {"passages": 3, "exact": 2, "whole_page": 0, "unresolved": 1, "unresolved_ids": ["acme#lost"]}
    evaluation = json.loads(next((pipeline.workspace().root / "evaluations").glob("structure-h-*/evaluation.json")).read_text())
    entry = next(e for e in evaluation["entries"] if e["mode"] == "filtered")
    # q2 has two gold passages, one unresolved: it can never reach full recall
    assert entry["answerable"] == 3 and entry["curve"][9]["recall"] <= (1 + 0.5 + 1) / 3 + 1e-9


def test_from_files_builds_a_corpus_with_metadata_and_questions(tmp_path, monkeypatch, capsys):
    src = tmp_path / "docs"
    src.mkdir()
    (src / "ACME_2024_10K.pdf").write_bytes(pdfs.filing_pdf())
    (src / "filing.htm").write_text(
        '<html><head><title>Beta 10-Q</title></head><body><div>'
        '<ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c">Beta Corp</ix:nonNumeric>'
        '<ix:nonNumeric contextRef="c" name="dei:DocumentType">10-Q</ix:nonNumeric>'
        '<ix:nonNumeric name="dei:DocumentFiscalYearFocus">2025</ix:nonNumeric>'
        '<ix:nonNumeric name="dei:DocumentPeriodEndDate">June 30, 2025</ix:nonNumeric>'
        '</div><p>Net sales rose 4% in the quarter.</p></body></html>')
    (src / "readme").write_text("# Gamma plc annual letter\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n**Dear shareholders**, a good year.\n")
    (src / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (tmp_path / "meta.csv").write_text("file,ticker,doc_type\nACME_2024_10K.pdf,ACME,annual_report\n")
    (tmp_path / "q.csv").write_text(
        "question_id,question,file,page,quote,answer\n"
        "q1,What was revenue?,ACME_2024_10K.pdf,2,\"Revenue 1,234.5 1,100.2\",1234.5\n"
        "q2,How did net sales change?,filing.htm,,net sales rose 4%,4%\n"
        "q3,No evidence here,readme,,,\n")
    out = tmp_path / "corpus"
    assert main(["corpus", "from-files", str(src), "--out", str(out), "--metadata", str(tmp_path / "meta.csv"),
                 "--questions", str(tmp_path / "q.csv")]) == 0
    printed = capsys.readouterr().out
    assert "skipped image.png: content is a PNG image" in printed and "question 'q3' skipped" in printed
    corpus = load_corpus(out)
    docs = corpus.documents.set_index("doc_id")
    assert dict(docs["format"]) == {"ACME_2024_10K": "pdf", "filing": "html", "readme": "markdown"}
    acme = docs.loc["ACME_2024_10K"]
    assert (acme["ticker"], acme["doc_type"], acme["fiscal_year"], acme["path"]) == \
        ("ACME", "annual_report", 2024, "files/ACME_2024_10K.pdf")
    beta = docs.loc["filing"]
    assert (beta["issuer"], beta["doc_type"], beta["fiscal_year"], str(beta["period_end"])) == \
        ("Beta Corp", "10-Q", 2025, "2025-06-30")
    assert docs.loc["readme", "title"] == "Gamma plc annual letter"
    passages = corpus.passages.set_index("passage_id")
    assert len(corpus.questions) == 2 and len(passages) == 2
    pdf_p = passages[passages["doc_id"] == "ACME_2024_10K"].iloc[0]
    assert pdf_p["page"] == 2 and pdf_p["quote"] == "Revenue 1,234.5 1,100.2"
    html_p = passages[passages["doc_id"] == "filing"].iloc[0]
    html = (out / docs.loc["filing", "path"]).read_text()
    assert html[int(html_p["start"]):int(html_p["end"])] == "Net sales rose 4"


class _Server:
    """127.0.0.1 only: /report.pdf with an ETag (304 on If-None-Match), /flaky fails once."""

    def __init__(self, body: bytes):
        self.body, self.log, self.flaky = body, [], 1
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                server.log.append((self.path, dict(self.headers)))
                if self.path == "/flaky" and server.flaky:
                    server.flaky -= 1
                    self.send_response(503)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if self.path in ("/report.pdf", "/flaky", "/download?id=7"):
                    if self.headers.get("If-None-Match") == '"v1"':
                        self.send_response(304)
                        self.end_headers()
                        return
                    self.send_response(200)
                    self.send_header("ETag", '"v1"')
                    self.send_header("Content-Type", "application/pdf")
                    if self.path.startswith("/download"):
                        self.send_header("Content-Disposition", 'attachment; filename="Annual Report 2024.pdf"')
                    self.send_header("Content-Length", str(len(server.body)))
                    self.end_headers()
                    self.wfile.write(server.body)
                    return
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.http = LocalHTTPServer(Handler)
        self.url = self.http.url

    def close(self):
        self.http.close()


@pytest.fixture
def server():
    s = _Server(pdfs.filing_pdf(1))
    yield s
    s.close()


def test_fetch_downloads_retries_and_refetches_conditionally(server, tmp_path):
    client = HttpClient("Finchunk Tests tests@example.com", cache_dir=tmp_path / "cache", max_rps=1000,
                        sleep=lambda s: None)
    urls = [f"{server.url}/report.pdf", f"{server.url}/flaky", f"{server.url}/download?id=7",
            f"{server.url}/missing.pdf", "ftp://example.invalid/x.pdf"]
    first = fetch_urls(client, urls, tmp_path / "out")
    status = [r.status for r in first]
    assert status[:3] == ["downloaded"] * 3
    assert status[3].startswith("failed: HTTP 404") and status[4].startswith("failed: not an http(s) URL")
    assert [r.path.name for r in first[:3]] == ["report.pdf", "flaky.pdf", "Annual_Report_2024.pdf"]
    assert (tmp_path / "out" / "report.pdf").read_bytes() == server.body
    assert all(h.get("User-Agent") == "Finchunk Tests tests@example.com" for _, h in server.log)
    assert sum(p == "/flaky" for p, _ in server.log) == 2                    # one 503, one retry
    server.log.clear()
    again = fetch_urls(client, urls[:1], tmp_path / "out")
    assert again[0].status == "not modified"
    assert server.log[0][1].get("If-None-Match") == '"v1"'
    # the fetched folder is a from-files source as it is: its HTTP cache is not a document
    (tmp_path / "out" / ".http-cache").mkdir()
    (tmp_path / "out" / ".http-cache" / "ab.body").write_bytes(server.body)
    from finchunk_pipeline.corpus.from_files import build_corpus
    built = build_corpus(tmp_path / "out", tmp_path / "corpus")
    assert built.documents == 3 and not built.skipped


def test_fetch_command_needs_a_contact(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("FINCHUNK_USER_AGENT", raising=False)
    assert main(["fetch", "http://127.0.0.1:9/x.pdf", "--out", str(tmp_path)]) == 1
    assert "User-Agent" in capsys.readouterr().err
