"""``finchunk edgar fetch``: download a company's filings from SEC EDGAR as a corpus folder.

  finchunk edgar fetch --cik 1640147 --forms 10-K,10-Q --out DIR --user-agent "Name email"
                       [--limit N] [--facts] [--base-url URL] [--cache-dir DIR]

The folder gets documents.parquet (one row per filing, format html, filed_at = acceptance
time) and, with --facts, xbrl_facts.parquet from the companyfacts API; it then flows into
parsing like any other corpus. A User-Agent with a contact is required (SEC policy), also
from FINCHUNK_USER_AGENT. Requests are limited to 10/s, retried on 429/5xx, and cached.
"""
from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser("edgar", help="fetch filings and company facts from SEC EDGAR")
    sub = parser.add_subparsers(dest="edgar_command", required=True)
    fetch = sub.add_parser("fetch", help="fetch a company's filings into a corpus folder")
    fetch.add_argument("--cik", required=True, help="company CIK (leading zeros optional)")
    fetch.add_argument("--forms", default="10-K,10-Q", help="comma-separated forms (default 10-K,10-Q)")
    fetch.add_argument("--limit", type=int, default=10, help="newest N matching filings (default 10)")
    fetch.add_argument("--out", required=True, help="corpus folder to write")
    fetch.add_argument("--user-agent", default=None,
                       help='"Name email" (required by the SEC; or FINCHUNK_USER_AGENT)')
    fetch.add_argument("--facts", action="store_true", help="also write xbrl_facts.parquet (companyfacts)")
    fetch.add_argument("--base-url", default=None,
                       help="one base URL for both the data API and the archives (default: the SEC hosts)")
    fetch.add_argument("--cache-dir", default=None,
                       help="HTTP cache (default: <data root>/raw/http); raw documents go to <data root>/raw")
    fetch.add_argument("--max-rps", type=float, default=10.0, help="requests per second (at most 10)")
    fetch.add_argument("-v", "--verbose", action="store_true")
    fetch.set_defaults(func=_fetch)


def _fetch(args: argparse.Namespace) -> int:
    from finchunk_pipeline.fetch.edgar import EdgarClient, fetch_corpus
    from finchunk_pipeline.fetch.http import check_user_agent
    from finchunk_pipeline.settings import Settings

    settings = Settings()
    ua = check_user_agent(args.user_agent or settings.user_agent or None)  # refuse early
    if args.max_rps <= 0 or args.max_rps > 10:
        raise ValueError("--max-rps must be in (0, 10]: the SEC allows at most 10 requests per second")
    cache = args.cache_dir or settings.raw_dir / "http"
    client = EdgarClient(ua, base_url=args.base_url, cache_dir=cache, raw_dir=settings.raw_dir,
                         max_rps=args.max_rps)
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]
    result = fetch_corpus(client, args.cik, args.out, forms=forms, limit=args.limit,
                          with_facts=args.facts)
    print(f"wrote {result['out']}: {result['documents']} documents"
          + (f", {result['xbrl_facts']} xbrl facts" if "xbrl_facts" in result else "")
          + f" ({result['requests']} HTTP requests)")
    for warning in result.get("warnings", []):
        print(f"finchunk: warning: {warning}", file=sys.stderr)
    if result.get("xbrl_facts_error"):
        print(f"finchunk: error: {result['xbrl_facts_error']}", file=sys.stderr)
        return 1
    return 0
