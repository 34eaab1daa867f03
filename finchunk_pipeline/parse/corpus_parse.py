"""Parsing a corpus's documents given their raw content: one document's parse (the parser its
doc_type and format select; a text read with stray control characters as spaces), its report
row, the corpus's report, and the cores a parse may use. A pure stage: the raw content comes
from a ``RawSource`` handed in; nothing here reads or writes a store (the reuse of stored
blocks, the raw and block stores and the worker processes: builders/blocks.py).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..types.blocks import ParsedDocument
from .content import controls_as_spaces
from .registry import ParserSpec

if TYPE_CHECKING:  # a parse worker process needs no pandas
    import pandas as pd

    from .ocr import OcrConfig


class RawSource(Protocol):
    """Where a document's raw content is read, by content hash and format (the raw store)."""

    def get(self, sha: str, fmt: str) -> str: ...

    def get_bytes(self, sha: str, fmt: str) -> bytes: ...


def report_row(rec: dict, error: str | None = None) -> dict:
    """A document's row of the parse report, before it is parsed (or failed with ``error``)."""
    return {"doc_id": rec["doc_id"], "format": rec.get("format"), "sha": rec.get("sha"), "parser_key": None,
            "parser_version": None, "blocks": {}, "warnings": [], "error": error}


def parse_content(spec: ParserSpec, rec: dict, source: RawSource, ocr: "OcrConfig | None" = None) -> ParsedDocument:
    """The document of the manifest record ``rec`` (doc_id, format, sha + metadata) parsed by
    ``spec`` from its raw content in ``source``: the raw bytes for a parser that reads bytes
    (with ``ocr``, image-only pages read by OCR), else the text, stray control characters read
    as spaces (a warning says how many; offsets unchanged). Raises ValueError when the parser
    found no blocks, UnicodeError for a text that does not decode."""
    n_controls = 0
    if spec.input == "bytes":
        doc = spec.fn(rec["doc_id"], source.get_bytes(rec["sha"], rec["format"]), rec,
                      **({"ocr": ocr} if ocr is not None else {}))
    else:
        text, n_controls = controls_as_spaces(source.get(rec["sha"], rec["format"]))
        doc = spec.fn(rec["doc_id"], text, rec)
    if not doc.blocks:
        raise ValueError("the parser found no blocks")
    # blocks are stored (and looked up) under the raw content's hash, whatever the parser saw
    doc.doc_sha = rec["sha"]
    if n_controls:
        doc.warnings.append(f"{n_controls} stray control characters (e.g. NUL) read as spaces "
                            "in the text view; offsets unchanged")
    return doc


@dataclass
class ParseReport:
    rows: list[dict] = field(default_factory=list)  # per document: doc_id, format, parser, counts, warnings, error
    parsed: int = 0
    reused: int = 0
    failed: int = 0
    seconds: float = 0.0
    workers: int = 1  # processes that parsed

    def add(self, row: dict, status: str) -> None:
        """A document's row, counted by what happened to it ("parsed", "reused" or "failed")."""
        self.rows.append(row)
        if status == "parsed":
            self.parsed += 1
        elif status == "reused":
            self.reused += 1
        else:
            self.failed += 1

    def manifest(self) -> "pd.DataFrame":
        import pandas as pd

        ok = [r for r in self.rows if r["error"] is None]
        return pd.DataFrame(ok, columns=list(self.rows[0]) if self.rows else ["doc_id", "sha", "parser_key"])


# a container's CPU limit: cgroup v2 ("<quota> <period>" or "max <period>"), else v1's two files
CPU_MAX = Path("/sys/fs/cgroup/cpu.max")
CFS_QUOTA, CFS_PERIOD = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us")


def cpu_limit(cpu_max: Path = CPU_MAX, quota: Path = CFS_QUOTA, period: Path = CFS_PERIOD) -> int | None:
    """The cores a container's CPU quota allows (rounded up), or None without a quota."""
    try:
        if cpu_max.exists():
            q, p = cpu_max.read_text().split()[:2]
            return None if q == "max" else max(1, -(-int(q) // int(p)))
        if quota.exists() and period.exists():
            q, p = int(quota.read_text()), int(period.read_text())
            return None if q <= 0 or p <= 0 else max(1, -(-q // p))
    except (OSError, ValueError):
        return None
    return None


def usable_cores() -> int:
    """The cores this process may use: its CPU affinity (a cpuset), capped by a container's CPU
    quota (a Kubernetes CPU limit)."""
    try:
        cores = len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    limit = cpu_limit()
    return min(cores, limit) if limit else cores
