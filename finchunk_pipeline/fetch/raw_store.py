"""The raw store: every fetched document exactly as fetched, keyed by content hash.

``<raw root>/<sha256>.<ext>``; the same bytes are stored once whatever their id, and a
document version that changes gets a new hash (so parsing it again is explicit).
"""
from __future__ import annotations

from pathlib import Path

from ..storage import sha256_text, write_text

EXTENSIONS = {"markdown": "md", "html": "html", "text": "txt"}


class RawStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, sha: str, fmt: str) -> Path:
        return self.root / f"{sha}.{EXTENSIONS.get(fmt, 'bin')}"

    def put(self, text: str, fmt: str) -> tuple[str, bool]:
        """Store ``text``; return (sha, newly_written)."""
        sha = sha256_text(text)
        path = self.path(sha, fmt)
        if path.exists():
            return sha, False
        write_text(path, text)
        return sha, True

    def get(self, sha: str, fmt: str) -> str:
        return self.path(sha, fmt).read_text(encoding="utf-8")
