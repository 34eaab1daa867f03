"""`finchunk fetch` against a hostile (but local, 127.0.0.1) server: no file is ever lost to a
name clash, and every URL succeeds or fails on its own — refused redirects (file://, ftp://,
data:, loops), over-long names, a slow-drip server (total deadline), a gzip bomb (size limit
on the decoded body) — while the remaining URLs are still fetched."""
from __future__ import annotations

import gzip
import os
import time
from http.server import BaseHTTPRequestHandler

import pytest

from finchunk_pipeline.cli import main
from finchunk_pipeline.fetch.download import fetch_urls
from finchunk_pipeline.fetch.http import HttpClient

from tests import pdfs
from tests.servers import LocalHTTPServer

UA = "Finchunk Tests tests@example.com"
DRIP_FOR = 8.0        # seconds a drip handler keeps dripping before it gives up by itself
BOMB = gzip.compress(b"\0" * (32 << 20), 9)   # 32 MiB of zeros in ~32 KB


class HostileServer:
    """127.0.0.1 only. Paths: /a/report.pdf and /b/report.pdf (different PDFs),
    /c/report.pdf (the same bytes as /a), /good.pdf, redirects to file:// ftp:// data: and
    loops, a 300-character file name, a body or headers dripped one byte at a time, a gzip
    bomb, a body announced larger than the limit."""

    def __init__(self):
        self.pdf_a, self.pdf_b, self.good = pdfs.filing_pdf(1), pdfs.filing_pdf(2), pdfs.filing_pdf(3)
        srv = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _body(self, body: bytes, **headers):
                self.send_response(200)
                for k, v in headers.items():
                    self.send_header(k.replace("_", "-"), v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _redirect(self, location: str):
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _drip(self, data: bytes) -> None:
                end = time.monotonic() + DRIP_FOR
                try:
                    for i in range(len(data)):
                        if time.monotonic() > end:
                            break
                        self.wfile.write(data[i:i + 1])
                        self.wfile.flush()
                        time.sleep(0.05)
                except OSError:     # the client hung up: what a deadline does
                    pass
                self.close_connection = True

            def do_GET(self):
                p = self.path
                if p in ("/a/report.pdf", "/c/report.pdf"):
                    return self._body(srv.pdf_a, Content_Type="application/pdf")
                if p == "/b/report.pdf":
                    return self._body(srv.pdf_b, Content_Type="application/pdf")
                if p == "/good.pdf":
                    return self._body(srv.good, Content_Type="application/pdf")
                if p == "/to-file":
                    return self._redirect("file:///etc/passwd")
                if p == "/to-ftp":
                    return self._redirect("ftp://127.0.0.1/x.pdf")
                if p == "/to-data":
                    return self._redirect("data:application/pdf;base64,JVBERi0=")
                if p == "/loop":
                    return self._redirect("/loop")
                if p in ("/ping", "/pong"):
                    return self._redirect("/pong" if p == "/ping" else "/ping")
                if p.startswith("/hop/"):      # /hop/N redirects N times, then the good PDF
                    n = int(p.rsplit("/", 1)[1])
                    return self._redirect(f"/hop/{n - 1}" if n > 1 else "/good.pdf")
                if p == "/long":
                    name = "Annual Report " + "x" * 300 + ".pdf"
                    return self._body(srv.pdf_b, Content_Disposition=f'attachment; filename="{name}"')
                if p == "/drip-body":
                    self.send_response(200)
                    self.send_header("Content-Length", str(1 << 20))
                    self.end_headers()
                    return self._drip(b"%PDF-" + b"x" * ((1 << 20) - 5))
                if p == "/drip-headers":
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    return self._drip(b"X-Slow: " + b"y" * 60000 + b"\r\n\r\n")
                if p == "/bomb":
                    return self._body(BOMB, Content_Type="application/pdf", Content_Encoding="gzip")
                if p == "/big.pdf":    # 2 MiB, announced by Content-Length
                    return self._body(b"%PDF-" + b"z" * ((2 << 20) - 5), Content_Type="application/pdf")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.http = LocalHTTPServer(Handler)
        self.url = self.http.url

    def close(self):
        self.http.close()


@pytest.fixture
def server():
    s = HostileServer()
    yield s
    s.close()


def _client(tmp_path, **kw) -> HttpClient:
    kw.setdefault("max_retries", 0)
    return HttpClient(UA, cache_dir=tmp_path / "cache", max_rps=1000, sleep=lambda s: None, **kw)


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# --- 1. no file is ever lost ---------------------------------------------------------------------
def test_a_name_taken_by_different_content_is_never_overwritten_across_commands(server, tmp_path, capsys,
                                                                                 monkeypatch):
    monkeypatch.setenv("FINCHUNK_USER_AGENT", UA)
    out = tmp_path / "out"

    def fetch(*paths):
        code = main(["fetch", *(server.url + p for p in paths), "--out", str(out), "--max-rps", "1000"])
        return code, capsys.readouterr().out

    code, text = fetch("/a/report.pdf")
    assert code == 0 and _files(out) == {"report.pdf": server.pdf_a}
    # a second command: another URL whose file is also called report.pdf
    code, text = fetch("/b/report.pdf")
    assert code == 0
    assert _files(out) == {"report.pdf": server.pdf_a, "report-2.pdf": server.pdf_b}
    assert "saved as report-2.pdf (report.pdf holds different content)" in text
    # the same content again, under any URL: nothing new written, and said so
    code, text = fetch("/c/report.pdf", "/b/report.pdf")
    assert code == 0
    assert _files(out) == {"report.pdf": server.pdf_a, "report-2.pdf": server.pdf_b}
    lines = [ln for ln in text.splitlines() if "/report.pdf" in ln]
    assert lines[0].startswith("already present") and "report.pdf" in lines[0]
    assert lines[1].startswith("already present") and "report-2.pdf" in lines[1]
    # a file the user put there is as safe as a fetched one
    (out / "report-3.pdf").write_bytes(b"my own notes")
    (out / "report-2.pdf").unlink()
    (out / "report.pdf").write_bytes(b"edited by hand")
    code, text = fetch("/a/report.pdf")
    assert _files(out) == {"report.pdf": b"edited by hand", "report-2.pdf": server.pdf_a,
                           "report-3.pdf": b"my own notes"}


def test_one_command_two_urls_same_name(server, tmp_path):
    urls = [f"{server.url}/a/report.pdf", f"{server.url}/b/report.pdf", f"{server.url}/c/report.pdf"]
    results = fetch_urls(_client(tmp_path), urls, tmp_path / "out")
    assert [r.path.name for r in results] == ["report.pdf", "report-2.pdf", "report.pdf"]
    assert results[0].status == "downloaded"
    assert results[1].status == "saved as report-2.pdf (report.pdf holds different content)"
    assert results[2].status.startswith("already present")
    assert _files(tmp_path / "out") == {"report.pdf": server.pdf_a, "report-2.pdf": server.pdf_b}


# --- 2. bounded and per-URL -------------------------------------------------------------------------
def test_refused_redirects_and_long_names_fail_alone(server, tmp_path):
    bad = ["/to-file", "/to-ftp", "/to-data", "/loop", "/ping"]
    urls = [server.url + p for p in [*bad, "/long", "/hop/3", "/good.pdf"]]
    results = fetch_urls(_client(tmp_path, max_redirects=5), urls, tmp_path / "out")
    assert len(results) == len(urls)
    for r, scheme in zip(results[:3], ("file", "ftp", "data")):
        assert r.path is None and r.status.startswith("failed:"), r
        assert f"redirect to a {scheme}: URL refused" in r.status
    for r in results[3:5]:
        assert r.path is None and "redirect loop" in r.status, r
    long = results[5]
    assert long.status == "downloaded" and len(long.path.name.encode()) <= 255
    assert long.path.name.startswith("Annual_Report_xxx") and long.path.suffix == ".pdf"
    assert long.path.read_bytes() == server.pdf_b
    assert results[6].status == "downloaded" and results[6].path.name == "good.pdf"
    assert results[7].status == "already present (good.pdf)"


def test_too_many_redirects_is_bounded(server, tmp_path):
    [r] = fetch_urls(_client(tmp_path, max_redirects=2), [f"{server.url}/hop/3"], tmp_path / "out")
    assert r.path is None and "more than 2 redirects" in r.status


def test_a_slow_drip_meets_the_total_deadline(server, tmp_path):
    urls = [f"{server.url}/drip-body", f"{server.url}/drip-headers", f"{server.url}/good.pdf"]
    results = fetch_urls(_client(tmp_path, deadline=1.0), urls, tmp_path / "out")
    for r in results[:2]:
        assert r.path is None and "deadline" in r.status and "1 s" in r.status, r
    assert results[2].status == "downloaded"
    assert _files(tmp_path / "out") == {"good.pdf": server.good}


def test_a_gzip_bomb_meets_the_size_limit(server, tmp_path):
    urls = [f"{server.url}/bomb", f"{server.url}/big.pdf", f"{server.url}/good.pdf"]
    results = fetch_urls(_client(tmp_path, max_bytes=1 << 20), urls, tmp_path / "out")
    for r in results[:2]:
        assert r.path is None and "over the size limit" in r.status and "1 MiB" in r.status, r
    assert "after decompression" in results[0].status
    assert results[2].status == "downloaded"
    assert _files(tmp_path / "out") == {"good.pdf": server.good}
    cached = [p for p in (tmp_path / "cache").rglob("*.body")]
    assert [p.read_bytes() for p in cached] == [server.good]     # nothing of the bomb kept


def test_fetch_command_limits_flags_settings_and_exit_status(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINCHUNK_USER_AGENT", UA)
    out = tmp_path / "out"
    urls = [f"{server.url}/to-file", f"{server.url}/bomb", f"{server.url}/drip-body", f"{server.url}/good.pdf"]
    code = main(["fetch", *urls, "--out", str(out), "--max-rps", "1000", "--retries", "0",
                 "--max-bytes", "1M", "--deadline", "1"])
    text = capsys.readouterr().out
    assert code == 1
    lines = text.splitlines()
    # every failure on one line: the URL, then the reason
    assert f"failed: {server.url}/to-file: redirect to a file: URL refused (file:///etc/passwd)" in lines[0]
    assert "over the size limit of 1 MiB" in text and "--max-bytes" in text
    assert "deadline" in text
    assert "1 of 4 fetched" in text and "3 failed" in text
    assert _files(out) == {"good.pdf": server.good}
    # the setting, when no flag is given
    monkeypatch.setenv("FINCHUNK_FETCH_MAX_BYTES", "1MiB")
    assert main(["fetch", f"{server.url}/big.pdf", "--out", str(out), "--retries", "0"]) == 1
    assert "over the size limit of 1 MiB" in capsys.readouterr().out
    monkeypatch.setenv("FINCHUNK_FETCH_MAX_BYTES", "lots")
    assert main(["fetch", f"{server.url}/big.pdf", "--out", str(out)]) == 1
    assert "FINCHUNK_FETCH_MAX_BYTES" in capsys.readouterr().err


def test_size_parsing():
    from finchunk_pipeline.fetch.limits import parse_size

    assert parse_size("1M") == parse_size("1MiB") == parse_size("1 mb") == 1 << 20
    assert parse_size("512") == 512 and parse_size("2G") == 2 << 30
    for bad in ("", "lots", "-1M", "0"):
        with pytest.raises(ValueError):
            parse_size(bad)
