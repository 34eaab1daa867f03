"""The raw store: every fetched document exactly as fetched, keyed by content hash.

``<raw root>/<sha256>.<ext>``; the same bytes are stored once whatever their id, and a
document version that changes gets a new hash (so parsing it again is explicit).

Bytes round-trip exactly: text is stored as its UTF-8 encoding and read back by decoding
those bytes (no newline translation: a CRLF document comes back with its CRs, so offsets
into ``documents.text`` and the content hash stay valid).
"""
from __future__ import annotations

from pathlib import Path

from ..hashing import sha256_bytes
from .artefacts import check_files, report_damage
from .files import write_bytes

EXTENSIONS = {"markdown": "md", "html": "html", "text": "txt", "pdf": "pdf"}


class RawStore:
    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, sha: str, fmt: str) -> Path:
        return self.root / f"{sha}.{EXTENSIONS.get(fmt, 'bin')}"

    def put_bytes(self, data: bytes, fmt: str) -> tuple[str, bool]:
        """Store ``data``; return (sha256 of the bytes, newly_written). A stored file is
        verified against its name (the hash of its content): a damaged one (truncated,
        overwritten) is named in a warning and written again from ``data``."""
        sha = sha256_bytes(data)
        path = self.path(sha, fmt)
        if path.exists():
            problem = check_files({path.name: {"bytes": len(data), "sha256": sha}}, path.parent)
            if problem is None:
                return sha, False
            report_damage(problem, "written again from the corpus")
        write_bytes(path, data)
        return sha, True

    def put(self, text: str, fmt: str) -> tuple[str, bool]:
        """Store ``text`` (as UTF-8); its sha is the sha256 of those bytes."""
        return self.put_bytes(text.encode("utf-8"), fmt)

    def get_bytes(self, sha: str, fmt: str) -> bytes:
        return self.path(sha, fmt).read_bytes()

    def get(self, sha: str, fmt: str) -> str:
        return self.get_bytes(sha, fmt).decode("utf-8")
