"""Local folder source: a corpus folder's documents.parquet into the raw store."""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..corpus.loader import Corpus, document_bytes
from ..parse.registry import binary_formats
from ..storage.raw import RawStore

META_COLUMNS = ("doc_id", "title", "doc_type", "issuer", "ticker", "fiscal_year", "period_end",
                "filed_at", "language", "format", "source_uri")


@dataclass
class IngestResult:
    manifest: pd.DataFrame            # one row per usable document: metadata + sha
    new: int = 0
    existing: int = 0
    rejected: dict[str, str] = field(default_factory=dict)  # doc_id -> problem


def ingest_corpus(corpus: Corpus, store: RawStore) -> IngestResult:
    rows, new, existing = [], 0, 0
    for rec in corpus.documents.to_dict("records"):
        if rec["doc_id"] in corpus.document_problems:
            continue
        # the text (as UTF-8) or the file at ``path``, byte for byte: the sha is the content's
        data = document_bytes(corpus.path, rec)
        sha, written = store.put_bytes(data, rec["format"])
        new += written
        existing += not written
        row = {c: rec.get(c) for c in META_COLUMNS}
        row["sha"] = sha
        row["n_chars"] = None if rec["format"] in binary_formats() else len(data.decode("utf-8"))
        row["n_bytes"] = len(data)
        rows.append(row)
    manifest = pd.DataFrame(rows, columns=[*META_COLUMNS, "sha", "n_chars", "n_bytes"])
    return IngestResult(manifest, new, existing, dict(corpus.document_problems))
