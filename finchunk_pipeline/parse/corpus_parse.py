"""Parse every document of a corpus once per (content, parser version).

Documents whose blocks already exist under their parser version are skipped; a document
that fails is reported with its id and the problem, and the others go on.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from ..corpus.content import controls_as_spaces
from ..fetch.raw_store import RawStore
from .registry import UnsupportedDocument, select_parser
from .store import BlockStore

log = logging.getLogger(__name__)


@dataclass
class ParseReport:
    rows: list[dict] = field(default_factory=list)  # per document: doc_id, format, parser, counts, warnings, error
    parsed: int = 0
    reused: int = 0
    failed: int = 0
    seconds: float = 0.0

    def manifest(self) -> pd.DataFrame:
        ok = [r for r in self.rows if r["error"] is None]
        return pd.DataFrame(ok, columns=list(self.rows[0]) if self.rows else ["doc_id", "sha", "parser_key"])


def parse_documents(documents: pd.DataFrame, raw: RawStore, blocks: BlockStore,
                    rejected: dict[str, str] | None = None,
                    progress: Callable[[int, int], None] | None = None) -> ParseReport:
    """``documents``: the raw-store manifest (metadata + sha per document)."""
    report = ParseReport()
    t0 = time.perf_counter()
    for doc_id, why in (rejected or {}).items():
        report.rows.append({"doc_id": doc_id, "format": None, "sha": None, "parser_key": None,
                            "parser_version": None, "blocks": {}, "warnings": [], "error": why})
        report.failed += 1
    records = documents.to_dict("records")
    for i, rec in enumerate(records):
        row = {"doc_id": rec["doc_id"], "format": rec["format"], "sha": rec["sha"], "parser_key": None,
               "parser_version": None, "blocks": {}, "warnings": [], "error": None}
        try:
            spec = select_parser(rec["doc_type"], rec["format"])
            key = spec.key_for(rec.get("language"))
            row["parser_key"], row["parser_version"] = key, spec.version
            if blocks.exists(key, rec["sha"]):
                doc = blocks.read(key, rec["sha"], doc_id=rec["doc_id"])
                report.reused += 1
            else:
                n_controls = 0
                if spec.input == "bytes":
                    doc = spec.fn(rec["doc_id"], raw.get_bytes(rec["sha"], rec["format"]), rec)
                else:
                    text, n_controls = controls_as_spaces(raw.get(rec["sha"], rec["format"]))
                    doc = spec.fn(rec["doc_id"], text, rec)
                if not doc.blocks:
                    raise ValueError("the parser found no blocks")
                # blocks are stored (and looked up) under the raw content's hash, whatever
                # the parser saw
                doc.doc_sha = rec["sha"]
                if n_controls:
                    doc.warnings.append(f"{n_controls} stray control characters (e.g. NUL) read as spaces "
                                        "in the text view; offsets unchanged")
                blocks.write(key, doc)
                report.parsed += 1
            row["blocks"] = doc.counts()
            row["warnings"] = list(doc.warnings)
        except (UnsupportedDocument, ValueError, UnicodeError, RecursionError) as exc:
            row["error"] = f"{type(exc).__name__}: {exc}"
            report.failed += 1
            log.warning("document %s could not be parsed: %s", rec["doc_id"], row["error"])
        except Exception as exc:  # a parser bug on one document must not stop the run
            row["error"] = f"parser crashed: {type(exc).__name__}: {exc}"
            report.failed += 1
            log.exception("parser crashed on document %s", rec["doc_id"])
        report.rows.append(row)
        if progress:
            progress(i + 1, len(records))
    report.seconds = time.perf_counter() - t0
    return report
