"""``finchunk fetch URL... --out DIR``: download documents (PDF annual reports, filings) into
a folder, ready for ``finchunk corpus from-files``.

Uses the project's polite HTTP client (fetch/http.py): a User-Agent with a contact, a rate
limit, retries with backoff on 429 / 5xx, a disk cache re-validated with ETag /
Last-Modified (fetching the same URLs again transfers nothing that has not changed), and
its bounds: http(s) redirects only, a size limit on the decoded body, a total deadline.

The file name comes from Content-Disposition, else the last path segment of the URL the
redirects ended at; a name without a known extension gets the one its content calls for
(``%PDF-`` -> ``.pdf``); a name longer than ``MAX_NAME_CHARS`` is cut, with a hash of the
whole name, so different long names stay different.

No file is ever lost: a name already taken by different content — fetched earlier, in this
command or another, or put there by hand — is never overwritten; the body goes to the first
free ``<stem>-2``, ``-3``, ... (``saved as report-2.pdf (report.pdf holds different
content)``), and content already present under one of those names is not written again
(``already present (report.pdf)``). Files are created exclusively (written aside, then
hard-linked into place, which fails rather than replace), so two commands writing into one
folder at once cannot overwrite each other either.

Each URL succeeds or fails on its own; a failure names the URL and the reason, and the
remaining URLs are still fetched.
"""
from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..corpus.from_files import FORMAT_EXT, detect_format
from .http import HttpClient, HttpError

_DISPOSITION = re.compile(r"""filename\*?\s*=\s*(?:UTF-8''|")?([^";]+)""", re.I)
KNOWN_EXT = {".pdf", ".htm", ".html", ".md", ".markdown", ".txt", ".text", ".xhtml"}
MAX_NAME_CHARS = 150  # well under NAME_MAX (255 bytes), with room for "-N" and a temporary's affixes


@dataclass
class Fetched:
    url: str
    path: Path | None
    status: str            # "downloaded", "saved as ...", "already present (...)", "not modified", "failed: ..."
    bytes: int = 0
    error: Exception | None = None


def shorten(name: str, limit: int = MAX_NAME_CHARS) -> str:
    """``name`` if it is at most ``limit`` characters, else its start, ``-``, 10 hex digits of
    the whole name's sha256, and its extension."""
    if len(name) <= limit:
        return name
    suffix = Path(name).suffix if len(Path(name).suffix) <= 12 else ""
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]
    return f"{name[:limit - len(suffix) - 11].rstrip('._-')}-{digest}{suffix}"


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
    return shorten(name)


def _holds(path: Path, data: bytes) -> bool:
    """Whether the file at ``path`` holds exactly ``data``."""
    try:
        return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def write_new(path: Path, data: bytes) -> None:
    """Create ``path`` holding ``data``, complete or not at all; FileExistsError if the name is
    taken (whatever it holds, even by a link or a folder): nothing is ever replaced."""
    tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"  # storage.is_temp_file's form
    with open(tmp, "xb") as fh:
        fh.write(data)
    try:
        os.link(tmp, path)          # raises FileExistsError instead of replacing
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
            raise
        with open(path, "xb") as fh:  # a file system without hard links: still exclusive
            fh.write(data)
    finally:
        tmp.unlink(missing_ok=True)


def place(out: Path, name: str, data: bytes) -> tuple[Path, bool]:
    """(where ``data`` is, whether it was written now): the first of ``name``, ``stem-2``,
    ``stem-3``, ... that holds ``data`` already or is free."""
    stem, suffix = Path(name).stem, Path(name).suffix
    k = 1
    while True:
        candidate = name if k == 1 else f"{stem}-{k}{suffix}"
        path = out / candidate
        if _holds(path, data):
            return path, False
        if not os.path.lexists(path):
            try:
                write_new(path, data)
                return path, True
            except FileExistsError:
                continue    # another writer took it a moment ago: look at it again
        k += 1


def fetch_urls(client: HttpClient, urls: list[str], out: str | Path) -> list[Fetched]:
    out = Path(out)
    results = []
    for url in urls:
        scheme = urlparse(url).scheme
        if scheme not in ("http", "https"):
            results.append(Fetched(url, None, f"failed: not an http(s) URL ({scheme or 'no scheme'})"))
            continue
        try:
            results.append(_fetch_one(client, url, out))
        except Exception as exc:  # one URL's failure, whatever it is, is that URL's alone
            reason = exc.message if isinstance(exc, HttpError) else f"{exc.__class__.__name__}: {exc}"
            results.append(Fetched(url, None, f"failed: {reason}", error=exc))
    return results


def _fetch_one(client: HttpClient, url: str, out: Path) -> Fetched:
    resp = client.get(url)
    name = file_name(resp.final_url or url, resp.body, resp.headers.get("Content-Disposition"))
    out.mkdir(parents=True, exist_ok=True)
    path, written = place(out, name, resp.body)
    if path.name != name:
        status = (f"saved as {path.name} ({name} holds different content)" if written
                  else f"{'not modified' if resp.from_cache else 'already present'} ({path.name})")
    elif written:
        status = "not modified (restored from cache)" if resp.from_cache else "downloaded"
    else:
        status = "not modified" if resp.from_cache else f"already present ({path.name})"
    return Fetched(url, path, status, len(resp.body))
