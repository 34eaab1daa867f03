"""``finchunk fetch URL... --out DIR``: download documents with the polite HTTP client."""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser("fetch", help="download documents (PDFs, filings) into a folder")
    p.add_argument("urls", nargs="+", metavar="URL")
    p.add_argument("--out", required=True, help="folder to write the files to")
    p.add_argument("--user-agent", default=None,
                   help='"Name email" sent with every request (or FINCHUNK_USER_AGENT)')
    p.add_argument("--cache-dir", default=None,
                   help="HTTP cache for conditional re-fetch (default: <out>/.http-cache)")
    p.add_argument("--max-rps", type=float, default=2.0, help="requests per second (default 2)")
    p.add_argument("--retries", type=int, default=5, help="retries on 429 / 5xx / connection errors")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=_fetch)


def _fetch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from finchunk_pipeline.fetch.download import fetch_urls
    from finchunk_pipeline.fetch.http import HttpClient
    from finchunk_pipeline.settings import Settings

    if args.max_rps <= 0:
        raise ValueError("--max-rps must be > 0")
    out = Path(args.out)
    client = HttpClient(args.user_agent or Settings().user_agent or None,
                        cache_dir=args.cache_dir or out / ".http-cache", max_rps=args.max_rps,
                        max_retries=args.retries)
    results = fetch_urls(client, args.urls, out)
    for r in results:
        where = f" -> {r.path} ({r.bytes:,} bytes)" if r.path else ""
        print(f"{r.status}: {r.url}{where}")
    failed = sum(r.path is None for r in results)
    print(f"{len(results) - failed} of {len(results)} fetched into {out} ({client.requests_sent} HTTP requests)")
    return 1 if failed else 0
