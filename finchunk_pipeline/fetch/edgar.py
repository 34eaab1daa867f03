"""SEC EDGAR client: filings (submissions -> filing index -> primary document) and
company facts, turned into corpus rows (documents.parquet, xbrl_facts.parquet).

URLs (the bases are configurable; tests point both at a 127.0.0.1 server):
- ``{data}/submissions/CIK##########.json``            company submissions (recent filings)
- ``{data}/submissions/CIK##########-submissions-001.json``  older pages (``filings.files``)
- ``{data}/api/xbrl/companyfacts/CIK##########.json``   company facts
- ``{archives}/Archives/edgar/data/{cik}/{accession without dashes}/index.json``  filing index
- ``{archives}/Archives/edgar/data/{cik}/{accession without dashes}/{primary document}``

``filed_at`` comes from ``acceptanceDateTime``. EDGAR writes it with a trailing "Z" but the
wall time is US Eastern (filings are accepted 06:00-22:00 ET; e.g. a 10-K accepted at
06:01 ET appears as "...T06:01:36.000Z"), so by default it is read as America/New_York and
converted to UTC (``acceptance_tz``; pass "UTC" to take the "Z" literally).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator
from zoneinfo import ZoneInfo

from ..corpus import schema
from ..settings import Settings
from ..storage.files import safe_name
from ..storage.raw import RawStore
from .http import HttpClient, HttpError, decode_text

DEFAULT_DATA_BASE = "https://data.sec.gov"
DEFAULT_ARCHIVES_BASE = "https://www.sec.gov"
USER_AGENT_ENV = "FINCHUNK_USER_AGENT"


def cik10(cik: str | int) -> str:
    """'1640147', 'CIK0001640147', 1640147 -> '0001640147'."""
    s = str(cik).strip().upper()
    if s.startswith("CIK"):
        s = s[3:]
    if not s.isdigit() or len(s) > 10:
        raise ValueError(f"not a CIK: {cik!r}")
    return s.zfill(10)


class EdgarClient:
    def __init__(
        self,
        user_agent: str | None = None,
        *,
        base_url: str | None = None,
        data_base_url: str | None = None,
        archives_base_url: str | None = None,
        cache_dir: str | Path | None = None,
        raw_dir: str | Path | None = None,
        max_rps: float = 10.0,
        timeout: float | tuple[float, float] = (10.0, 60.0),
        max_retries: int = 5,
        backoff: float = 1.0,
        acceptance_tz: str = "America/New_York",
        http: HttpClient | None = None,
    ):
        """``base_url`` sets both bases (a test server); otherwise the SEC defaults apply.
        ``raw_dir`` keeps every primary document's text in the raw store (fetch.raw_store)."""
        if user_agent is None:
            user_agent = Settings().user_agent or None  # FINCHUNK_USER_AGENT
        self.data_base = (data_base_url or base_url or DEFAULT_DATA_BASE).rstrip("/")
        self.archives_base = (archives_base_url or base_url or DEFAULT_ARCHIVES_BASE).rstrip("/")
        self.http = http or HttpClient(user_agent, cache_dir=cache_dir, max_rps=max_rps,
                                       timeout=timeout, max_retries=max_retries, backoff=backoff)
        self.raw_dir = Path(raw_dir) if raw_dir else None
        self.acceptance_tz = ZoneInfo(acceptance_tz)

    # --- URLs ----------------------------------------------------------------------------
    def submissions_url(self, cik) -> str:
        return f"{self.data_base}/submissions/CIK{cik10(cik)}.json"

    def companyfacts_url(self, cik) -> str:
        return f"{self.data_base}/api/xbrl/companyfacts/CIK{cik10(cik)}.json"

    def filing_base_url(self, cik, accession: str) -> str:
        return f"{self.archives_base}/Archives/edgar/data/{int(cik10(cik))}/{accession.replace('-', '')}"

    # --- API -----------------------------------------------------------------------------
    def submissions(self, cik) -> dict:
        return self.http.get_json(self.submissions_url(cik))

    def submissions_page(self, name: str) -> dict:
        safe_name(name)
        return self.http.get_json(f"{self.data_base}/submissions/{name}")

    def companyfacts(self, cik) -> dict:
        return self.http.get_json(self.companyfacts_url(cik))

    def filing_index(self, cik, accession: str) -> dict:
        return self.http.get_json(f"{self.filing_base_url(cik, accession)}/index.json")

    def document(self, url: str) -> tuple[bytes, str]:
        resp = self.http.get(url)
        return resp.body, resp.headers.get("Content-Type", "")

    def parse_acceptance(self, value: str | None, filing_date: str | None = None) -> datetime | None:
        """acceptanceDateTime (EDGAR wall time, see module doc) -> aware UTC datetime."""
        if value:
            v = value.strip().replace("Z", "").split(".")[0]
            try:
                naive = datetime.fromisoformat(v)
            except ValueError:
                naive = None
            if naive is not None:
                return naive.replace(tzinfo=self.acceptance_tz).astimezone(timezone.utc)
        if filing_date:
            return datetime.fromisoformat(filing_date).replace(tzinfo=timezone.utc)
        return None


# --- filings ---------------------------------------------------------------------------------
@dataclass
class Filing:
    accession: str
    form: str
    filing_date: str | None
    report_date: str | None
    acceptance: str | None
    primary_document: str | None


def _filings_from_columns(cols: dict) -> Iterator[Filing]:
    n = len(cols.get("accessionNumber", []))

    def col(name, i):
        values = cols.get(name) or []
        v = values[i] if i < len(values) else None
        return v or None

    for i in range(n):
        yield Filing(col("accessionNumber", i), col("form", i) or "", col("filingDate", i),
                     col("reportDate", i), col("acceptanceDateTime", i), col("primaryDocument", i))


def iter_filings(client: EdgarClient, cik, submissions: dict | None = None) -> Iterator[Filing]:
    """Every filing of the company, newest first (recent block, then the older pages)."""
    subs = submissions if submissions is not None else client.submissions(cik)
    filings = subs.get("filings") or {}
    yield from _filings_from_columns(filings.get("recent") or {})
    for page in filings.get("files") or []:
        yield from _filings_from_columns(client.submissions_page(page["name"]))


def doc_type_for_form(form: str) -> str:
    if form in schema.DOC_TYPES:
        return form
    base = form.split("/")[0]
    return base if base in schema.DOC_TYPES else "other"


def fiscal_year_for(report_date: date, fiscal_year_end: str | None) -> int:
    """The fiscal year a period ending on ``report_date`` belongs to, named by the calendar
    year in which the fiscal year ends (``fiscalYearEnd`` "MMDD"; 52/53-week years end a
    few days either side, hence the two-week tolerance)."""
    if not fiscal_year_end or len(fiscal_year_end) != 4 or not fiscal_year_end.isdigit():
        return report_date.year
    m, d = int(fiscal_year_end[:2]), int(fiscal_year_end[2:])
    try:
        fye = date(report_date.year, m, min(d, 28) if m == 2 else d)
    except ValueError:
        return report_date.year
    return report_date.year if report_date <= fye + timedelta(days=14) else report_date.year + 1


def _pick_primary(index: dict, hint: str | None) -> str | None:
    items = [it.get("name", "") for it in (index.get("directory") or {}).get("item", [])]
    if hint and hint in items:
        return hint
    htm = [n for n in items if n.lower().endswith((".htm", ".html")) and "index" not in n.lower()]
    if hint and not items:
        return hint
    if htm:
        sizes = {it.get("name"): int(it.get("size") or 0) if str(it.get("size") or "").isdigit() else 0
                 for it in index["directory"]["item"]}
        return max(htm, key=lambda n: sizes.get(n, 0))
    return hint


def fetch_filings(client: EdgarClient, cik, forms: Iterable[str] | None = ("10-K", "10-Q"),
                  limit: int | None = 10) -> list[dict]:
    """The newest ``limit`` filings whose form is in ``forms`` as corpus DOCUMENTS rows."""
    wanted = {f.strip().upper() for f in forms} if forms else None
    subs = client.submissions(cik)
    name = subs.get("name") or f"CIK {cik10(cik)}"
    tickers = subs.get("tickers") or []
    ticker = tickers[0] if tickers else None
    fye = subs.get("fiscalYearEnd")
    rows: list[dict] = []
    for f in iter_filings(client, cik, subs):
        if limit is not None and len(rows) >= limit:
            break
        if wanted is not None and f.form.upper() not in wanted:
            continue
        if not f.accession:
            continue
        base = client.filing_base_url(cik, f.accession)
        try:
            index = client.filing_index(cik, f.accession)
        except HttpError as exc:
            if exc.status != 404 or not f.primary_document:
                raise
            index = {}  # no index.json: trust the submissions' primaryDocument
        primary = _pick_primary(index, f.primary_document)
        if not primary:
            raise HttpError(f"{base}/index.json", f"no primary document for {f.accession}")
        url = f"{base}/{primary}"
        body, ctype = client.document(url)
        filed_at = client.parse_acceptance(f.acceptance, f.filing_date)
        period_end = date.fromisoformat(f.report_date) if f.report_date else None
        fiscal_year = fiscal_year_for(period_end, fye) if period_end else None
        label = f.form
        if fiscal_year is not None:
            label += f" (FY {fiscal_year})" if f.form.startswith("10-K") else f" ({fiscal_year})"
        if period_end:
            label += f", period ended {period_end.isoformat()}"
        text = decode_text(body, ctype)
        fmt = "html" if primary.lower().endswith((".htm", ".html", ".xml")) else "text"
        if client.raw_dir is not None:  # the project's raw store, by content hash
            RawStore(client.raw_dir).put(text, fmt)
        rows.append({
            "doc_id": f"sec:{ticker or cik10(cik)}-{f.form.replace('/', '_')}-{f.accession}",
            "title": f"{name} — Form {label}",
            "doc_type": doc_type_for_form(f.form),
            "issuer": name,
            "ticker": ticker,
            "fiscal_year": fiscal_year,
            "period_end": period_end,
            "filed_at": filed_at,
            "language": "en",
            "format": fmt,
            "source_uri": url,
            "text": text,
        })
    return rows


def fetch_companyfacts_rows(client: EdgarClient, cik, ticker: str | None = None) -> list[dict]:
    """The company's facts as xbrl_facts rows; a body that is not companyfacts JSON raises
    InvalidResponseError / CompanyFactsError naming the URL."""
    from ..xbrl.companyfacts import companyfacts_rows  # local: keeps the client light
    return companyfacts_rows(client.companyfacts(cik), ticker=ticker, source=client.companyfacts_url(cik))


def write_documents(rows: list[dict], out_dir: str | Path) -> Path:
    """Write DOCUMENTS rows as a corpus folder (documents.parquet)."""
    import pyarrow as pa

    from ..storage.files import write_parquet
    table = pa.Table.from_pylist(rows, schema=schema.DOCUMENTS)
    return write_parquet(Path(out_dir) / "documents.parquet", table)


def write_xbrl_facts(rows: list[dict], out_dir: str | Path) -> Path:
    import pyarrow as pa

    from ..storage.files import write_parquet
    table = pa.Table.from_pylist(rows, schema=schema.XBRL_FACTS)
    return write_parquet(Path(out_dir) / "xbrl_facts.parquet", table)


def fetch_corpus(client: EdgarClient, cik, out_dir: str | Path, forms=("10-K", "10-Q"),
                 limit: int | None = 10, with_facts: bool = False) -> dict[str, Any]:
    """Fetch filings (and optionally company facts) and write them as a corpus folder."""
    rows = fetch_filings(client, cik, forms, limit)
    out = Path(out_dir)
    write_documents(rows, out)
    result: dict[str, Any] = {"documents": len(rows), "out": str(out)}
    if with_facts:
        from ..xbrl.companyfacts import CompanyFactsError

        ticker = next((r["ticker"] for r in rows if r.get("ticker")), None)
        try:
            facts = fetch_companyfacts_rows(client, cik, ticker)
        except (HttpError, CompanyFactsError) as exc:
            # the filings are kept; the missing facts are an error the caller must show
            stale = out / "xbrl_facts.parquet"
            result["xbrl_facts_error"] = (
                f"company facts not written: {exc}"
                + (f" ({stale} is left from an earlier fetch)" if stale.exists() else ""))
        else:
            write_xbrl_facts(facts, out)
            result["xbrl_facts"] = len(facts)
            if not facts:
                result["warnings"] = [f"{client.companyfacts_url(cik)}: no facts in the companyfacts JSON: "
                                      "xbrl_facts.parquet has 0 rows"]
    result["requests"] = client.http.requests_sent
    return result
