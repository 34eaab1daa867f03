"""EDGAR client against a local HTTP server on 127.0.0.1 serving EDGAR-format files."""
from __future__ import annotations

import json
import socket
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler

import pytest

from finchunk_pipeline.fetch.edgar import (EdgarClient, cik10, fetch_filings, fiscal_year_for,
                                           write_documents)
from finchunk_pipeline.fetch.http import (HttpClient, HttpError, InvalidResponseError, RateLimiter,
                                          UserAgentError, check_user_agent, retry_after_seconds)

from tests.servers import LocalHTTPServer

UA = "Finchunk Tests tests@example.com"
CIK = "1234567"

SUBMISSIONS = {
    "cik": CIK, "entityType": "operating", "name": "Example Corp", "tickers": ["EXMP"],
    "exchanges": ["NYSE"], "fiscalYearEnd": "0131",
    "filings": {
        "recent": {
            "accessionNumber": ["0001234567-25-000040", "0001234567-25-000030",
                                "0001234567-25-000020", "0001234567-25-000010"],
            "filingDate": ["2025-06-10", "2025-06-03", "2025-04-02", "2025-03-20"],
            "reportDate": ["2025-01-31", "2025-04-30", "", "2025-01-31"],
            "acceptanceDateTime": ["2025-06-10T16:30:05.000Z", "2025-06-03T06:01:36.000Z",
                                   "2025-04-02T17:00:00.000Z", "2025-03-20T16:05:00.000Z"],
            "form": ["10-K/A", "10-Q", "8-K", "10-K"],
            "primaryDocument": ["exmp-10ka.htm", "exmp-20250430.htm", "exmp-8k.htm", "exmp-20250131.htm"],
            "primaryDocDescription": ["10-K/A", "10-Q", "8-K", "10-K"],
        },
        "files": [],
    },
}


def _index(acc_nodash: str, primary: str) -> dict:
    return {"directory": {
        "name": f"/Archives/edgar/data/{CIK}/{acc_nodash}", "parent-dir": f"/Archives/edgar/data/{CIK}",
        "item": [{"name": f"{acc_nodash}-index-headers.html", "type": "text.gif", "size": ""},
                 {"name": primary, "type": "text.gif", "size": "2048"},
                 {"name": "R1.htm", "type": "text.gif", "size": "100"},
                 {"name": "Financial_Report.xlsx", "type": "text.gif", "size": "5000"}]}}


COMPANYFACTS = {
    "cik": int(CIK), "entityName": "Example Corp",
    "facts": {"us-gaap": {"Revenues": {"label": "Revenues", "units": {"USD": [
        {"start": "2024-02-01", "end": "2025-01-31", "val": 1000, "accn": "0001234567-25-000010",
         "fy": 2025, "fp": "FY", "form": "10-K", "filed": "2025-03-20", "frame": "CY2024"},
        {"start": "2024-02-01", "end": "2025-01-31", "val": 1010, "accn": "0001234567-25-000040",
         "fy": 2025, "fp": "FY", "form": "10-K/A", "filed": "2025-06-10"},
    ]}}},
        "dei": {"EntityCommonStockSharesOutstanding": {"units": {"shares": [
            {"end": "2025-03-01", "val": 500, "accn": "0001234567-25-000010", "fy": 2025, "fp": "FY",
             "form": "10-K", "filed": "2025-03-20"}]}}}},
}


class Server:
    """Routes: path -> list of steps (consumed in order, the last one repeats). A step is a
    dict: status, body (bytes), headers, delay (s), etag/last_modified (honour conditionals)."""

    def __init__(self):
        self.routes: dict[str, list[dict]] = {}
        self.log: list[tuple[str, dict, float]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                with server.lock:
                    server.log.append((self.path, dict(self.headers), time.monotonic()))
                    steps = server.routes.get(self.path)
                    step = (steps.pop(0) if len(steps) > 1 else steps[0]) if steps else {"status": 404}
                try:
                    if step.get("delay"):
                        time.sleep(step["delay"])
                    body = step.get("body", b"")
                    etag, lm = step.get("etag"), step.get("last_modified")
                    if (etag and self.headers.get("If-None-Match") == etag) or (
                            lm and self.headers.get("If-Modified-Since") == lm):
                        self.send_response(304)
                        self.end_headers()
                        return
                    status = step.get("status", 200)
                    self.send_response(status)
                    for k, v in (step.get("headers") or {}).items():
                        self.send_header(k, v)
                    if etag:
                        self.send_header("ETag", etag)
                    if lm:
                        self.send_header("Last-Modified", lm)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.http = LocalHTTPServer(Handler)
        self.url = self.http.url

    def route(self, path: str, *steps: dict) -> None:
        self.routes[path] = list(steps)

    def json(self, path: str, obj, **kw) -> None:
        self.route(path, {"body": json.dumps(obj).encode(), "headers": {"Content-Type": "application/json"}, **kw})

    def hits(self, path: str) -> int:
        return sum(1 for p, _, _ in self.log if p == path)

    def close(self):
        self.http.close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


def _edgar_site(server: Server) -> None:
    server.json(f"/submissions/CIK{cik10(CIK)}.json", SUBMISSIONS)
    server.json(f"/api/xbrl/companyfacts/CIK{cik10(CIK)}.json", COMPANYFACTS)
    recent = SUBMISSIONS["filings"]["recent"]
    for acc, primary, form in zip(recent["accessionNumber"], recent["primaryDocument"], recent["form"]):
        nd = acc.replace("-", "")
        server.json(f"/Archives/edgar/data/{CIK}/{nd}/index.json", _index(nd, primary))
        html = (f"<html><head><title>{form}</title></head><body><h1>Example Corp {form}</h1>"
                f"<p>Revenue was $1,000 million — caf\u00e9.</p></body></html>")
        server.route(f"/Archives/edgar/data/{CIK}/{nd}/{primary}",
                     {"body": html.encode("utf-8"), "headers": {"Content-Type": "text/html; charset=utf-8"}})


def _client(server: Server, tmp_path, **kw) -> EdgarClient:
    kw.setdefault("backoff", 0.01)
    kw.setdefault("max_rps", 200)
    return EdgarClient(UA, base_url=server.url, cache_dir=tmp_path / "cache", raw_dir=tmp_path / "raw", **kw)


# --- User-Agent -----------------------------------------------------------------------------
@pytest.mark.parametrize("ua", [None, "", "   ", "python-requests/2.0"])
def test_user_agent_with_contact_is_required(ua, monkeypatch):
    monkeypatch.delenv("FINCHUNK_USER_AGENT", raising=False)
    with pytest.raises(UserAgentError, match="User-Agent"):
        EdgarClient(ua)
    assert check_user_agent("Jane Doe jane@example.com")
    assert check_user_agent("Acme bot https://acme.example/contact")


def test_cli_refuses_to_start_without_user_agent(tmp_path, capsys, monkeypatch):
    import finchunk_pipeline.cli as cli
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("edgar",))
    monkeypatch.delenv("FINCHUNK_USER_AGENT", raising=False)
    rc = cli.main(["edgar", "fetch", "--cik", CIK, "--out", str(tmp_path / "c"), "--base-url", "http://127.0.0.1:9"])
    assert rc == 1
    assert "User-Agent" in capsys.readouterr().err


# --- filings -> corpus --------------------------------------------------------------------------
def test_fetch_filings_rows_and_corpus(server, tmp_path):
    _edgar_site(server)
    client = _client(server, tmp_path)
    rows = fetch_filings(client, CIK, forms=["10-K", "10-Q", "10-K/A"], limit=10)
    assert [r["doc_type"] for r in rows] == ["10-K/A", "10-Q", "10-K"]  # newest first, 8-K skipped
    by_type = {r["doc_type"]: r for r in rows}
    tenq = by_type["10-Q"]
    # acceptance 06:01:36 US Eastern (EDT in June) = 10:01:36 UTC
    assert tenq["filed_at"] == datetime(2025, 6, 3, 10, 1, 36, tzinfo=timezone.utc)
    assert tenq["fiscal_year"] == 2026 and str(tenq["period_end"]) == "2025-04-30"
    assert by_type["10-K"]["fiscal_year"] == 2025
    assert tenq["format"] == "html" and "caf\u00e9" in tenq["text"] and tenq["ticker"] == "EXMP"
    assert tenq["source_uri"] == f"{server.url}/Archives/edgar/data/{CIK}/000123456725000030/exmp-20250430.htm"
    assert all(r["doc_id"].startswith("sec:EXMP-") for r in rows)
    assert len({r["doc_id"] for r in rows}) == 3
    # every request carried the User-Agent
    assert server.log and all(h.get("User-Agent") == UA for _, h, _ in server.log)
    # raw store: the documents' text kept by content hash
    assert len(list((tmp_path / "raw").glob("*.html"))) == 3
    # the rows form a corpus folder the loader accepts
    write_documents(rows, tmp_path / "corpus")
    from finchunk_pipeline import load_corpus
    corpus = load_corpus(tmp_path / "corpus")
    assert len(corpus.documents) == 3 and not corpus.document_problems

    assert len(fetch_filings(client, CIK, forms=["8-K"], limit=5)) == 1
    assert len(fetch_filings(client, CIK, forms=None, limit=2)) == 2


def test_companyfacts_rows_via_client(server, tmp_path):
    _edgar_site(server)
    from finchunk_pipeline.fetch.edgar import fetch_companyfacts_rows
    rows = fetch_companyfacts_rows(_client(server, tmp_path), CIK, ticker="EXMP")
    assert len(rows) == 3
    rev = [r for r in rows if r["concept"] == "us-gaap:Revenues"]
    assert {r["value"] for r in rev} == {1000.0, 1010.0}
    shares = [r for r in rows if r["concept"].startswith("dei:")][0]
    assert shares["period_start"] is None and shares["cik"] == "0001234567"


def test_cli_fetch_writes_corpus(server, tmp_path, capsys, monkeypatch):
    _edgar_site(server)
    import finchunk_pipeline.cli as cli
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("edgar",))
    monkeypatch.setenv("FINCHUNK_DATA", str(tmp_path / "data"))
    out = tmp_path / "corpus"
    rc = cli.main(["edgar", "fetch", "--cik", CIK, "--forms", "10-K,10-Q", "--out", str(out),
                   "--user-agent", UA, "--base-url", server.url, "--facts"])
    assert rc == 0, capsys.readouterr().err
    assert "2 documents, 3 xbrl facts" in capsys.readouterr().out
    import pyarrow.parquet as pq
    assert pq.read_table(out / "documents.parquet").num_rows == 2
    assert pq.read_table(out / "xbrl_facts.parquet").num_rows == 3


# --- errors, retries, timeouts ----------------------------------------------------------------
def test_429_then_200_honours_retry_after(server, tmp_path):
    server.route("/a", {"status": 429, "headers": {"Retry-After": "2"}}, {"body": b'{"ok": 1}'})
    slept: list[float] = []
    http = HttpClient(UA, max_rps=1000, backoff=0.01, sleep=slept.append)
    assert http.get_json(f"{server.url}/a") == {"ok": 1}
    assert server.hits("/a") == 2
    assert slept == [2.0]  # Retry-After seconds, not the tiny backoff


def test_503_then_200_retries_with_backoff(server, tmp_path):
    server.route("/b", {"status": 503}, {"status": 503}, {"body": b'{"ok": 2}'})
    slept: list[float] = []
    http = HttpClient(UA, max_rps=1000, backoff=0.01, sleep=slept.append)
    assert http.get_json(f"{server.url}/b") == {"ok": 2}
    assert server.hits("/b") == 3
    assert len(slept) == 2 and slept[1] > slept[0]  # exponential


def test_gives_up_after_retries(server):
    server.route("/down", {"status": 500})
    http = HttpClient(UA, max_rps=1000, backoff=0.001, max_retries=2)
    with pytest.raises(HttpError, match="gave up after 3 attempts") as exc:
        http.get(f"{server.url}/down")
    assert exc.value.status == 500 and server.hits("/down") == 3


def test_404_is_not_retried(server):
    http = HttpClient(UA, max_rps=1000, backoff=0.001)
    with pytest.raises(HttpError, match="HTTP 404") as exc:
        http.get(f"{server.url}/missing")
    assert exc.value.status == 404 and server.hits("/missing") == 1
    assert "/missing" in str(exc.value)


def test_slow_response_times_out_and_is_retried(server):
    server.route("/slow", {"delay": 1.0, "body": b'{"late": true}'}, {"body": b'{"late": false}'})
    http = HttpClient(UA, max_rps=1000, backoff=0.001, timeout=0.2)
    # without the timeout the first (late) answer would be returned
    assert http.get_json(f"{server.url}/slow") == {"late": False}
    assert server.hits("/slow") == 2


def test_connection_error_is_retried_then_reported():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    http = HttpClient(UA, max_rps=1000, backoff=0.001, max_retries=2, timeout=0.5)
    with pytest.raises(HttpError, match="ConnectionError"):
        http.get(f"http://127.0.0.1:{port}/x")
    assert http.requests_sent == 3


def test_truncated_json_is_a_clear_error_and_not_cached(server, tmp_path):
    server.route("/t.json", {"body": b'{"cik": "1234567", "facts": {"us-gaap": {'},
                 {"body": b'{"cik": "1234567"}'})
    http = HttpClient(UA, max_rps=1000, cache_dir=tmp_path / "cache")
    url = f"{server.url}/t.json"
    with pytest.raises(InvalidResponseError) as exc:
        http.get_json(url)
    assert url in str(exc.value) and "JSON" in str(exc.value)
    assert http.cached(url) is None
    assert http.get_json(url) == {"cik": "1234567"}


def test_304_serves_cached_body(server, tmp_path):
    server.route("/c.json", {"body": b'{"v": 1}', "etag": '"v1"'})
    server.route("/d.json", {"body": b'{"v": 2}', "last_modified": "Wed, 21 Oct 2015 07:28:00 GMT"})
    http = HttpClient(UA, max_rps=1000, cache_dir=tmp_path / "cache")
    for path, header in (("/c.json", "If-None-Match"), ("/d.json", "If-Modified-Since")):
        url = server.url + path
        first = http.get(url)
        assert first.status == 200 and not first.from_cache
        second = http.get(url)
        assert second.status == 304 and second.from_cache and second.body == first.body
        sent = [h for p, h, _ in server.log if p == path]
        assert header not in sent[0] and header in sent[1]
    # a changed resource (new ETag) is fetched again and replaces the cache
    server.route("/c.json", {"body": b'{"v": 3}', "etag": '"v3"'})
    assert http.get_json(server.url + "/c.json") == {"v": 3}
    assert http.cached(server.url + "/c.json")[0] == b'{"v": 3}'


# --- rate limit -------------------------------------------------------------------------------
def test_rate_limit_holds_across_threads(server):
    server.route("/r", {"body": b"{}"})
    rate, n = 40.0, 12
    http = HttpClient(UA, max_rps=rate)
    t0 = time.monotonic()
    threads = [threading.Thread(target=lambda: [http.get(f"{server.url}/r", use_cache=False) for _ in range(3)])
               for _ in range(n // 3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    assert server.hits("/r") == n
    assert elapsed >= (n - 1) / rate
    # the arrivals at the server are spread over at least (n - 1) / rate as well (small slack
    # for socket scheduling)
    times = sorted(t for p, _, t in server.log if p == "/r")
    assert times[-1] - times[0] >= (n - 1) / rate * 0.8


class FakeClock:
    """Time that moves only when someone sleeps; a sleep may wake up late (``late``: a
    function of the call number giving the extra seconds), as a loaded machine's does."""

    def __init__(self, late=lambda i: 0.0):
        self.now = 1000.0
        self.calls = 0
        self.late = late
        self.lock = threading.Lock()

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.calls += 1
            self.now += seconds + self.late(self.calls)


def _max_in_any_second(times: list[float]) -> int:
    """The most acquisitions in any closed window [t, t + 1 s]."""
    times = sorted(times)
    return max(sum(1 for u in times if t <= u <= t + 1.0) for t in times)


@pytest.mark.parametrize("late", [
    lambda i: 0.0,                              # exact wake-ups: slots 0.1 s apart
    lambda i: 0.05 if i % 3 == 0 else 0.0,      # some wake-ups late
    lambda i: 0.007 * (i % 5),                  # jitter everywhere
])
def test_rate_limiter_at_most_10_in_any_rolling_second(late):
    fake = FakeClock(late)
    lim = RateLimiter(10, clock=fake.clock, sleep=fake.sleep)
    times = []
    for _ in range(60):
        lim.acquire()
        times.append(fake.clock())
    assert _max_in_any_second(times) <= 10
    assert all(b - a >= 0.1 for a, b in zip(times, times[1:]))
    # and it does not throttle harder than needed: 60 requests in about 6 s of (fake) time
    if late(1) == late(2) == late(3) == 0.0:
        assert times[-1] - times[0] == pytest.approx(5.9, abs=0.05)


def test_rate_limiter_holds_across_threads_on_a_fake_clock():
    fake = FakeClock(lambda i: 0.03 if i % 4 == 0 else 0.0)
    lim = RateLimiter(10, clock=fake.clock, sleep=fake.sleep)
    times, lock = [], threading.Lock()

    def worker():
        for _ in range(15):
            lim.acquire()
            with lock:
                times.append(fake.clock())

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(times) == 60 and _max_in_any_second(times) <= 10


def test_rate_limiter_below_one_per_second():
    fake = FakeClock()
    lim = RateLimiter(0.5, clock=fake.clock, sleep=fake.sleep)
    times = []
    for _ in range(4):
        lim.acquire()
        times.append(fake.clock())
    assert all(b - a >= 2.0 for a, b in zip(times, times[1:]))


def test_helpers():
    assert retry_after_seconds("5") == 5.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:10 GMT",
                               now=datetime(2015, 10, 21, 7, 28, 0, tzinfo=timezone.utc).timestamp()) == 10.0
    assert retry_after_seconds("soon") is None
    assert cik10("CIK1640147") == cik10(1640147) == "0001640147"
    from datetime import date
    assert fiscal_year_for(date(2025, 1, 31), "0131") == 2025
    assert fiscal_year_for(date(2025, 4, 30), "0131") == 2026
    assert fiscal_year_for(date(2023, 9, 30), "0928") == 2023  # 52/53-week year
    assert fiscal_year_for(date(2024, 6, 30), "1231") == 2024


# --- a malformed companyfacts body is never silent --------------------------------------------
@pytest.mark.parametrize("body", [
    b'{"cik": 1234567, "facts": {"us-gaap": {',                      # truncated JSON
    b'{"message": "Not Found"}',                                      # not companyfacts
    json.dumps({"cik": 1234567, "facts": {"us-gaap": {"Revenues": {"units": {"USD": [
        {"end": "2025-13-31", "val": 1, "accn": "A", "filed": "2025-03-20"}]}}}}}).encode(),  # bad end
])
def test_cli_fetch_reports_malformed_companyfacts(server, tmp_path, capsys, monkeypatch, body):
    _edgar_site(server)
    url_path = f"/api/xbrl/companyfacts/CIK{cik10(CIK)}.json"
    server.route(url_path, {"body": body, "headers": {"Content-Type": "application/json"}})
    import finchunk_pipeline.cli as cli
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("edgar",))
    monkeypatch.setenv("FINCHUNK_DATA", str(tmp_path / "data"))
    out = tmp_path / "corpus"
    rc = cli.main(["edgar", "fetch", "--cik", CIK, "--forms", "10-K,10-Q", "--out", str(out),
                   "--user-agent", UA, "--base-url", server.url, "--facts"])
    captured = capsys.readouterr()
    assert rc == 1
    assert "company facts not written" in captured.err and url_path in captured.err
    assert (out / "documents.parquet").exists() and not (out / "xbrl_facts.parquet").exists()
    assert "2 documents" in captured.out


def test_cli_fetch_warns_when_companyfacts_has_no_facts(server, tmp_path, capsys, monkeypatch):
    _edgar_site(server)
    server.json(f"/api/xbrl/companyfacts/CIK{cik10(CIK)}.json", {"cik": int(CIK), "facts": {}})
    import finchunk_pipeline.cli as cli
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("edgar",))
    monkeypatch.setenv("FINCHUNK_DATA", str(tmp_path / "data"))
    rc = cli.main(["edgar", "fetch", "--cik", CIK, "--out", str(tmp_path / "c"), "--user-agent", UA,
                   "--base-url", server.url, "--facts"])
    captured = capsys.readouterr()
    assert rc == 0 and "0 xbrl facts" in captured.out
    assert "warning" in captured.err and "no facts" in captured.err
