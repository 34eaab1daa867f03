"""Atomic, content-addressed file storage helpers.

Every write goes to a temporary file in the destination folder and is renamed into place,
so a crash never leaves a half-written artefact under its final name.
"""
from __future__ import annotations

import json
import os
import re
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._=-]{0,200}$")


def safe_name(name: str) -> str:
    """Validate a path component built from an id (never trust raw document ids in paths)."""
    if not _SAFE.match(name) or ".." in name:
        raise ValueError(f"unsafe path component: {name!r}")
    return name


def _new_temp_file(dest: Path) -> Path:
    """Create an empty temporary file next to ``dest`` (``.<name>.<random>.tmp``).

    Created with mode 0666 filtered by the process umask, as ``open(path, "w")`` would (not
    mkstemp's 0600): the renamed file gets the permissions a normal write gives it."""
    for _ in range(100):
        tmp = dest.parent / f".{dest.name}.{secrets.token_hex(6)}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"could not create a temporary file next to {dest}")


@contextmanager
def atomic_path(dest: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``dest``; rename it onto ``dest`` on success."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = _new_temp_file(dest)
    try:
        yield tmp_path
        os.replace(tmp_path, dest)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


STALE_TEMP_SECONDS = 3600.0  # a temporary file untouched this long is left by a crashed write


def is_temp_file(path: Path) -> bool:
    """The temporary files of atomic writes: ``.<name>.<random>.tmp``."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def clean_stale_temp_files(*roots: str | os.PathLike, older_than: float = STALE_TEMP_SECONDS,
                           now: float | None = None) -> list[Path]:
    """Remove the temporary files of atomic writes under ``roots`` that were not modified for
    ``older_than`` seconds (a write in progress keeps touching its file, so only the
    leftovers of crashed or killed writers go). Returns the removed paths."""
    import time

    now = time.time() if now is None else now
    removed: list[Path] = []
    for root in roots:
        if not root or not Path(root).is_dir():
            continue
        for folder, _dirs, files in os.walk(root):
            for name in files:
                path = Path(folder) / name
                if not is_temp_file(path):
                    continue
                try:
                    if now - path.stat().st_mtime >= older_than:
                        path.unlink()
                        removed.append(path)
                except FileNotFoundError:  # finished (renamed) or removed meanwhile
                    continue
    return removed


def write_bytes(dest: str | os.PathLike, data: bytes) -> Path:
    with atomic_path(dest) as tmp:
        tmp.write_bytes(data)
    return Path(dest)


def write_text(dest: str | os.PathLike, text: str) -> Path:
    return write_bytes(dest, text.encode("utf-8"))


def write_json(dest: str | os.PathLike, obj: Any) -> Path:
    return write_text(dest, json.dumps(obj, indent=2, sort_keys=False, default=str) + "\n")


def table_of(items: Iterable[Any], schema: pa.Schema, convert: dict[str, Callable[[Any], Any]] | None = None
             ) -> pa.Table:
    """A table of ``schema`` from objects with an attribute per column (the typed models:
    Block, Chunk); ``convert`` maps a column to how its attribute is stored (spans as
    structs, attrs as JSON, ...)."""
    convert = convert or {}
    cols: dict[str, list] = {name: [] for name in schema.names}
    for item in items:
        for name, values in cols.items():
            value = getattr(item, name)
            values.append(convert[name](value) if name in convert else value)
    return pa.Table.from_pydict(cols, schema=schema)


def write_parquet(dest: str | os.PathLike, table: pa.Table) -> Path:
    with atomic_path(dest) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return Path(dest)


def read_json(path: str | os.PathLike) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))
