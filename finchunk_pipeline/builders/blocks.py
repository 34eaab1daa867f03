"""Parse every document of a corpus once per (content, parser version), over the stores.

Documents whose blocks already exist under their parser version (and OCR key: parse/ocr_keys.py)
are reused without being read; the others are read from the raw store, parsed by the pure stage
(parse/corpus_parse.py: ``parse_content``) and written to the block store. A document that fails
is reported with its id and the problem, and the others go on.

Documents are independent, so with ``workers`` > 1 they are parsed in that many spawned
processes, largest first, each writing its own blocks file (written, then renamed, as always);
the report is in the manifest's order whatever the workers did, and the blocks are the same
bytes a single process writes. ``workers=None`` decides by the work: one process per usable
core (``usable_cores``: the affinity, capped by a container's CPU quota; at most
``AUTO_MAX_WORKERS``) when at least ``AUTO_MIN_BYTES`` of documents are new, else one. A worker
costs about 1.5 s of CPU before it parses (start, imports, cold caches: 8.4 s of CPU in two
workers against 5.5 s in one process for financebench_dev's 16.5 MB), so a small corpus
parses faster in one. If a worker process dies (killed, out of memory), the documents it left
are parsed in this process; a document whose result cannot come back from its worker is
reported failed, with the reason.
"""
from __future__ import annotations

import logging
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import TYPE_CHECKING, Callable

from ..parse.corpus_parse import ParseReport, parse_content, report_row, usable_cores
from ..parse.ocr_keys import stored_key, written_key
from ..parse.ocr_pool import close_shared as close_ocr_workers
from ..parse.registry import UnsupportedDocument, select_parser
from ..storage.blocks import BlockStore
from ..storage.raw import RawStore

if TYPE_CHECKING:  # a parse worker process needs no pandas
    import pandas as pd

    from ..parse.ocr import OcrConfig

log = logging.getLogger(__name__)

AUTO_MIN_BYTES = 32_000_000  # auto: parse in several processes from this much new source on
AUTO_MAX_WORKERS = 8


def parse_workers(records: list[dict], blocks: BlockStore, requested: int | None) -> int:
    """How many processes parse ``records``: ``requested`` when given (>= 1), else one per
    core (at most AUTO_MAX_WORKERS) if the documents not parsed yet hold AUTO_MIN_BYTES, else 1."""
    if requested is not None:
        if requested < 1:
            raise ValueError(f"parse workers: expected an integer >= 1, got {requested}")
        return max(1, min(requested, len(records)))
    cores = min(usable_cores(), AUTO_MAX_WORKERS)
    if cores < 2 or len(records) < 2:
        return 1
    todo = 0
    for rec in records:
        try:
            spec = select_parser(rec["doc_type"], rec["format"])
        except UnsupportedDocument:
            continue
        if not blocks.exists(spec.key_for(rec.get("language")), rec["sha"]):
            todo += _size(rec)
            if todo >= AUTO_MIN_BYTES:
                return cores
    return 1


def _size(rec: dict) -> int:
    """A manifest record's size in bytes (its n_bytes, else n_chars; 0 when neither is known)."""
    for name in ("n_bytes", "n_chars"):
        v = rec.get(name)
        if v is not None and v == v:  # not None, not NaN
            return int(v)
    return 0


def parse_one(rec: dict, raw_root: str, blocks_root: str, ocr: "OcrConfig | None" = None) -> tuple[dict, str]:
    """Parse one document of the manifest (or read its stored blocks): its report row and
    what happened ("parsed", "reused" or "failed"). Never raises for a document's fault.
    ``ocr``: image-only pages are read by OCR, and such documents stored apart (ocr_keys.py).
    Runs in a parse worker process: takes the stores' roots, not the stores."""
    raw, blocks = RawStore(raw_root), BlockStore(blocks_root)
    row = report_row(rec)
    try:
        spec = select_parser(rec["doc_type"], rec["format"])
        key = spec.key_for(rec.get("language"))
        row["parser_key"], row["parser_version"] = key, spec.version
        plain = key, spec.version
        key, row["parser_version"], ocr_now, reusable = stored_key(key, spec.version, ocr if spec.ocr else None,
                                                                   blocks, rec["sha"])
        row["parser_key"] = key
        if reusable and blocks.intact(key, rec["sha"]):  # parsed before: its counts, without reading its blocks
            row["blocks"], row["warnings"] = blocks.summary(key, rec["sha"])
            return row, "reused"
        doc = parse_content(spec, rec, raw, ocr_now)
        key, row["parser_version"] = written_key(key, row["parser_version"], *plain, doc.parser_version)
        row["parser_key"] = key
        blocks.write(key, doc)
        row["blocks"] = doc.counts()
        row["warnings"] = list(doc.warnings)
    except (UnsupportedDocument, ValueError, UnicodeError, RecursionError) as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
        log.warning("document %s could not be parsed: %s", rec["doc_id"], row["error"])
        return row, "failed"
    except Exception as exc:  # a parser bug on one document must not stop the run
        row["error"] = f"parser crashed: {type(exc).__name__}: {exc}"
        log.exception("parser crashed on document %s", rec["doc_id"])
        return row, "failed"
    return row, "parsed"


def _failed(rec: dict, why: str) -> tuple[dict, str]:
    log.error("document %s: %s", rec["doc_id"], why)
    return report_row(rec, why), "failed"


def _in_processes(records: list[dict], raw_root: str, blocks_root: str, workers: int,
                  done: Callable[[int, tuple[dict, str]], None], ocr: "OcrConfig | None" = None) -> list[int]:
    """parse_one of each record in ``workers`` spawned processes; ``done(i, result)`` as each
    finishes. Returns the indexes of the records left unparsed if the pool broke."""
    left = set(range(len(records)))
    broken: BaseException | None = None
    try:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            # the largest first: a large document handed out last would finish alone
            order = sorted(range(len(records)), key=lambda i: -_size(records[i]))
            futures = {pool.submit(parse_one, records[i], raw_root, blocks_root, ocr): i for i in order}
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    result = fut.result()
                except BrokenProcessPool as exc:  # keep the documents other workers finished
                    broken = exc
                    continue
                except Exception as exc:  # this document's call or result failed in transit
                    result = _failed(records[i], f"parse worker failed: {type(exc).__name__}: {exc}")
                done(i, result)
                left.discard(i)
    except BrokenProcessPool as exc:  # broke while documents were handed out
        broken = exc
    if left:
        log.warning("a parse worker process died (%s); parsing the %d documents left in this process: %s",
                    broken, len(left), ", ".join(records[i]["doc_id"] for i in sorted(left)[:10]))
    return sorted(left)


def parse_documents(documents: "pd.DataFrame", raw: RawStore, blocks: BlockStore,
                    rejected: dict[str, str] | None = None,
                    progress: Callable[[int, int], None] | None = None,
                    workers: int | None = 1, ocr: "OcrConfig | None" = None) -> ParseReport:
    """``documents``: the raw-store manifest (metadata + sha per document). ``workers``: the
    processes that parse (None: decided by the work, see ``parse_workers``). ``ocr``: read
    image-only PDF pages with it (parse/ocr.py); its processes share the usable cores with
    the parse workers, and end with the parse."""
    report = ParseReport()
    t0 = time.perf_counter()
    for doc_id, why in (rejected or {}).items():
        report.add(report_row({"doc_id": doc_id}, why), "failed")
    records = documents.to_dict("records")
    results: list[tuple[dict, str] | None] = [None] * len(records)
    finished = 0

    def done(i: int, result: tuple[dict, str]) -> None:
        nonlocal finished
        results[i] = result
        finished += 1
        if progress:
            progress(finished, len(records))

    raw_root, blocks_root = str(raw.root), str(blocks.root)
    report.workers = parse_workers(records, blocks, workers)
    left = list(range(len(records)))
    if ocr is not None and not ocr.workers:
        ocr = ocr.with_workers(usable_cores() // report.workers)
    try:
        if report.workers > 1:
            left = _in_processes(records, raw_root, blocks_root, report.workers, done, ocr)
        for i in left:
            done(i, parse_one(records[i], raw_root, blocks_root, ocr))
    finally:
        close_ocr_workers()
    for row, status in results:
        report.add(row, status)
    report.seconds = time.perf_counter() - t0
    return report
