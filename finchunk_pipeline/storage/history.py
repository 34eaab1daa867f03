"""The per chunk-set recall history the regression gate reads (one corpus's data root): its
records stored as files, read back; the evaluation build (builders/evaluation.py) adds them.

Each evaluation adds one record, written atomically as its own file
``<evaluations>/history/<chunk set>/<time ns>-<pid>.json``: no record is ever appended in
place, so a crash cannot tear a line and two runs cannot interleave. History files of the
earlier layout (``history/<chunk set>.jsonl``, appended in place) are still read. A record
that is not one — a torn or undecodable line or file, valid JSON of another shape (a ``time``
that is not a number, recalls that are not numbers), a folder named ``*.json`` — is skipped
with a warning naming it instead of failing the gate.
"""
from __future__ import annotations

import json
import logging
import math
import os
import time
from pathlib import Path

from .files import safe_name, write_json

log = logging.getLogger(__name__)


def _recall_at(curve: list[dict], k: int):
    for p in curve:
        if p["k"] == k:
            return p["recall"]
    return None


def history_dir(evaluations_dir: str | Path, chunk_set: str) -> Path:
    return Path(evaluations_dir) / "history" / safe_name(chunk_set)


def history_path(evaluations_dir: str | Path, chunk_set: str) -> Path:
    """The earlier layout's file (appended in place): read, never written any more."""
    return Path(evaluations_dir) / "history" / f"{safe_name(chunk_set)}.jsonl"


def history_record(version: str, entries: list[dict]) -> dict:
    return {"time": time.time(), "version": version,
            "recall@5": {f"{e['retriever']}/{e['mode']}": _recall_at(e.get("curve") or [], 5) for e in entries}}


def append_history(evaluations_dir: str | Path, chunk_set: str, version: str, entries: list[dict]) -> Path:
    """Add one record as its own file (atomic write; names never collide across processes)."""
    record = history_record(version, entries)
    folder = history_dir(evaluations_dir, chunk_set)
    name = f"{time.time_ns():020d}-{os.getpid()}.json"
    return write_json(folder / name, record)


def load_history(evaluations_dir: str | Path, chunk_set: str) -> tuple[list[dict], list[str]]:
    """(records oldest first, problems): unreadable lines or files are skipped and named."""
    records: list[tuple[float, str, dict]] = []
    problems: list[str] = []
    legacy = history_path(evaluations_dir, chunk_set)
    if legacy.exists():
        for n, line in enumerate(legacy.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            rec = _decode(line)
            if rec is None:
                problems.append(f"{legacy}:{n}: torn or invalid record skipped ({line[:60]!r})")
                continue
            records.append((float(rec.get("time") or 0), f"0-{n:09d}", rec))
    folder = history_dir(evaluations_dir, chunk_set)
    if folder.is_dir():
        for path in sorted(folder.glob("*.json")):
            try:
                rec = _decode(path.read_text(encoding="utf-8", errors="replace"))
            except OSError as exc:  # a folder named *.json, an unreadable file
                problems.append(f"{path}: not a readable record, skipped ({type(exc).__name__}: {exc.strerror or exc})")
                continue
            if rec is None:
                problems.append(f"{path}: invalid record skipped")
                continue
            records.append((float(rec.get("time") or 0), f"1-{path.name}", rec))
    records.sort(key=lambda r: (r[0], r[1]))
    for p in problems:
        log.warning("recall history: %s", p)
    return [r for _, _, r in records], problems


def read_history(evaluations_dir: str | Path, chunk_set: str) -> list[dict]:
    return load_history(evaluations_dir, chunk_set)[0]


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _decode(text: str) -> dict | None:
    """A record as append_history writes it, or None: not JSON, or not of its shape (the
    time a number or absent, recall@5 a mapping of numbers or nulls)."""
    try:
        rec = json.loads(text)
    except json.JSONDecodeError:
        return None
    if not isinstance(rec, dict) or not isinstance(rec.get("recall@5"), dict):
        return None
    if rec.get("time") is not None and not _number(rec["time"]):
        return None
    if not all(v is None or _number(v) for v in rec["recall@5"].values()):
        return None
    return rec
