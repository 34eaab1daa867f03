"""What an index is saved as and read back through, without a path: ``Parts`` (its files in
memory, by name relative to its folder: bytes, an Arrow table stored as Parquet, or a JSON
value) and the readers the loaders take — a ``Traversable`` (importlib.resources: a stored
folder, a zip, a package's data; ``pathlib.Path`` is one) and ``SharedIndexes`` (the
document-level indexes BM25 shares between chunk sets). Writing the files and keeping the
shared indexes is storage/indexes.py's.
"""
from __future__ import annotations

import io
import json
from importlib.resources.abc import Traversable
from os import PathLike
from pathlib import Path
from typing import Any, Callable, Protocol, TypeVar, Union

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

Part = Union[bytes, pa.Table, dict, list]
Parts = dict[str, Part]  # name (may hold "/": a sub-folder) -> content
T = TypeVar("T")


class SharedIndexes(Protocol):
    """Indexes kept under a name for other builds (BM25's document-level indexes): ``load``
    reads a stored one with ``read`` (None: none stored, or damaged: then said and removed),
    ``keep`` stores one (written, then put in place whole)."""

    def load(self, name: str, read: Callable[[Traversable], T]) -> T | None: ...

    def keep(self, name: str, parts: Parts) -> None: ...


def folder_of(where: str | PathLike | Traversable) -> Traversable:
    """A stored folder as given (a reader), or, named by a string, its Path."""
    return where if isinstance(where, Traversable) else Path(where)


def under(folder: str, parts: Parts) -> Parts:
    """``parts`` placed in the sub-folder ``folder``."""
    return {f"{folder}/{name}": part for name, part in parts.items()}


def npy_bytes(array: np.ndarray) -> bytes:
    """``array`` as the bytes of a ``.npy`` file (no pickle)."""
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=False)
    return buf.getvalue()


def read_npy(file: Traversable) -> np.ndarray:
    with file.open("rb") as fh:
        return np.load(fh, allow_pickle=False)


def read_table(file: Traversable) -> pa.Table:
    with file.open("rb") as fh:
        return pq.read_table(fh)


def read_json(file: Traversable) -> Any:
    return json.loads(file.read_text(encoding="utf-8"))
