"""``finchunk fetch URL... --out DIR``: download documents (PDF annual reports, filings) into
a folder, ready for ``finchunk corpus from-files``.

Uses the project's polite HTTP client (fetch/http.py): a User-Agent with a contact, a rate
limit, retries with backoff on 429 / 5xx, and a disk cache re-validated with ETag /
Last-Modified, so fetching the same URLs again transfers nothing that has not changed.
The file name comes from Content-Disposition, else the URL's last path segment; a name
without a known extension gets the one its content calls for (``%PDF-`` -> ``.pdf``). One
URL that fails is reported and the others are still fetched.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..corpus.from_files import FORMAT_EXT, detect_format
from ..storage import write_bytes
from .http import HttpClient, HttpError

_DISPOSITION = re.compile(r"""filename\*?\s*=\s*(?:UTF-8''|")?([^";]+)""", re.I)
KNOWN_EXT = {".pdf", ".htm", ".html", ".md", ".markdown", ".txt", ".text", ".xhtml"}


@dataclass
class Fetched:
    url: str
    path: Path | None
    status: str            # "downloaded", "not modified", "unchanged", or "failed: ..."
    bytes: int = 0


def file_name(url: str, data: bytes, disposition: str | None = None) -> str:
    name = ""
    m = _DISPOSITION.search(disposition or "")
    if m:
        name = unquote(m.group(1)).strip()
    if not name:
        name = unquote(Path(urlparse(url).path).name)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "document"
    if Path(name).suffix.lower() not in KNOWN_EXT:
        fmt, _ = detect_format(data)
        name += FORMAT_EXT.get(fmt or "", ".bin")
    return name


def fetch_urls(client: HttpClient, urls: list[str], out: str | Path) -> list[Fetched]:
    out = Path(out)
    results, taken = [], set()
    for url in urls:
        scheme = urlparse(url).scheme
        if scheme not in ("http", "https"):
            results.append(Fetched(url, None, f"failed: not an http(s) URL ({scheme or 'no scheme'})"))
            continue
        try:
            resp = client.get(url)
        except HttpError as exc:
            results.append(Fetched(url, None, f"failed: {exc}"))
            continue
        name = file_name(url, resp.body, resp.headers.get("Content-Disposition"))
        stem, suffix, k = Path(name).stem, Path(name).suffix, 2
        while name in taken:
            name, k = f"{stem}-{k}{suffix}", k + 1
        taken.add(name)
        path = out / name
        if path.exists() and path.read_bytes() == resp.body:
            status = "not modified" if resp.from_cache else "unchanged"
        else:
            write_bytes(path, resp.body)
            status = "not modified (restored from cache)" if resp.from_cache else "downloaded"
        results.append(Fetched(url, path, status, len(resp.body)))
    return results
