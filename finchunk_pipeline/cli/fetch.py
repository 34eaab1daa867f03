"""``finchunk fetch URL... --out DIR``: download documents with the polite HTTP client.

Never overwrites a file (a name taken by different content gets ``-2``, ``-3``, ...); each
URL succeeds or fails on its own within its bounds (http(s) redirects only, ``--max-bytes``
of decoded body, ``--deadline`` seconds); exit status 1 when any URL failed."""
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
    p.add_argument("--max-bytes", default=None, metavar="SIZE",
                   help="largest body accepted per URL, after decompression, e.g. 64M, 1G "
                        "(or FINCHUNK_FETCH_MAX_BYTES; default 256M)")
    p.add_argument("--deadline", default=None, metavar="SECONDS",
                   help="total time one URL may take, redirects and retries included "
                        "(or FINCHUNK_FETCH_DEADLINE; default 600)")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(func=_fetch)


def _fetch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from finchunk_pipeline.fetch.download import fetch_urls
    from finchunk_pipeline.fetch.http import BodyTooLarge, DeadlineExceeded, HttpClient
    from finchunk_pipeline.fetch.limits import (DEFAULT_DEADLINE, DEFAULT_MAX_BYTES, first_given,
                                                parse_seconds, parse_size)
    from finchunk_pipeline.settings import Settings

    if args.max_rps <= 0:
        raise ValueError("--max-rps must be > 0")
    settings = Settings()
    # the flag, else the setting, else the default
    max_bytes = first_given(parse_size, DEFAULT_MAX_BYTES, (args.max_bytes, "--max-bytes"),
                            (settings.fetch_max_bytes or None, "FINCHUNK_FETCH_MAX_BYTES"))
    deadline = first_given(parse_seconds, DEFAULT_DEADLINE, (args.deadline, "--deadline"),
                           (settings.fetch_deadline or None, "FINCHUNK_FETCH_DEADLINE"))
    out = Path(args.out)
    client = HttpClient(args.user_agent or settings.user_agent or None,
                        cache_dir=args.cache_dir or out / ".http-cache", max_rps=args.max_rps,
                        max_retries=args.retries, max_bytes=max_bytes, deadline=deadline)
    results = fetch_urls(client, args.urls, out)
    for r in results:
        if r.path is None:   # the URL, then why
            print(f"failed: {r.url}: {r.status.removeprefix('failed: ')}")
        else:
            print(f"{r.status}: {r.url} -> {r.path} ({r.bytes:,} bytes)")
    failed = [r for r in results if r.path is None]
    tail = f", {len(failed)} failed" if failed else ""
    print(f"{len(results) - len(failed)} of {len(results)} fetched into {out}{tail} "
          f"({client.requests_sent} HTTP requests)")
    if any(isinstance(r.error, BodyTooLarge) for r in failed):
        print("  a larger body is accepted with --max-bytes SIZE (or FINCHUNK_FETCH_MAX_BYTES)")
    if any(isinstance(r.error, DeadlineExceeded) for r in failed):
        print("  a slower download is allowed with --deadline SECONDS (or FINCHUNK_FETCH_DEADLINE)")
    return 1 if failed else 0
