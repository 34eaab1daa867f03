"""Index files on disk: an index's parts (index/files.py: bytes, Arrow tables, JSON values by
name) written into its folder, each file written then renamed into place; a folder's files
read back by the index loaders themselves through the folder's Path (a ``Traversable``); and
``DocumentIndexFolder``, where BM25's document-level indexes are kept for every chunk set
(``<data root>/bm25_documents/``: a cache, deleting it costs a rebuild).
"""
from __future__ import annotations

import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any, Callable, TypeVar

import pyarrow as pa

from .artefacts import report_damage
from .files import STALE_TEMP_SECONDS, is_temp_file, safe_name, write_bytes, write_json, write_parquet

T = TypeVar("T")

DOCUMENT_INDEXES_KEPT = 4  # copies kept in a documents folder (the newest; an older one is built again if asked)


def write_index_files(folder: str | Path, parts: dict[str, Any]) -> Path:
    """Write ``parts`` under ``folder``: bytes as they are, a table as Parquet, anything else
    as JSON; each file atomically (storage/files.py)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, part in parts.items():
        dest = folder / name
        if isinstance(part, (bytes, bytearray)):
            write_bytes(dest, bytes(part))
        elif isinstance(part, pa.Table):
            write_parquet(dest, part)
        else:
            write_json(dest, part)
    return folder


def save_index(index, folder: str | Path, **options) -> Path:
    """Write ``index`` (anything with ``to_files(**options)``: BM25Index, BM25Retriever,
    DenseIndex) into ``folder``."""
    return write_index_files(folder, index.to_files(**options))


class DocumentIndexFolder:
    """Shared indexes kept by name under ``root`` (index/files.py's ``SharedIndexes``): each a
    folder written under a temporary name, then renamed into place (a concurrent build of the
    same one loses the race harmlessly); the newest ``DOCUMENT_INDEXES_KEPT`` are kept."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def __str__(self) -> str:
        return str(self.root)

    def load(self, name: str, read: Callable[[Path], T]) -> T | None:
        """The index stored as ``name`` read by ``read`` (and marked newest), or None: none
        stored, or it cannot be read (said, unless removed meanwhile; removed, to be built again)."""
        folder = self.root / safe_name(name)
        if not (folder / "bm25.npz").is_file():
            return None
        try:
            index = read(folder)
            os.utime(folder)  # the newest are kept
            return index
        except Exception as exc:  # noqa: BLE001 - removed meanwhile, or damaged (said): built again
            if not isinstance(exc, FileNotFoundError):
                report_damage(f"{folder} cannot be read ({type(exc).__name__}: {exc})", "built again")
            shutil.rmtree(folder, ignore_errors=True)
            return None

    def keep(self, name: str, parts: dict[str, Any]) -> None:
        """Store ``parts`` as ``name`` (temporary folder renamed into place), then forget the oldest."""
        folder = self.root / safe_name(name)
        tmp = folder.with_name(f".{folder.name}.{uuid.uuid4().hex[:12]}.tmp")  # files.is_temp_file's names
        write_index_files(tmp, parts)
        try:
            tmp.rename(folder)
        except OSError:  # another process put the same index there first
            shutil.rmtree(tmp, ignore_errors=True)
        self._forget_oldest()

    def _forget_oldest(self) -> None:
        """Keep the newest copies, and remove the temporary folders a killed build left behind
        (untouched for ``STALE_TEMP_SECONDS``: a build in progress is younger)."""
        now = time.time()
        copies = []
        for f in self.root.iterdir():
            try:
                if is_temp_file(f):
                    if f.is_dir() and now - f.stat().st_mtime >= STALE_TEMP_SECONDS:
                        shutil.rmtree(f, ignore_errors=True)
                elif f.is_dir():
                    copies.append((f.stat().st_mtime, f))
            except FileNotFoundError:  # removed by another process meanwhile
                continue
        for _, old in sorted(copies, reverse=True)[DOCUMENT_INDEXES_KEPT:]:
            shutil.rmtree(old, ignore_errors=True)
