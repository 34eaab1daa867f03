"""One place for an artefact's reuse: its key, its completion marker, its transfer.

An artefact is data under the data root (files or folders) plus a JSON *marker* written
after the data. The marker records the artefact's key (``"inputs"``): a hash of everything
the artefact was built from — its inputs' keys, the code version of what builds it and its
configuration. Building again is free when the stored marker carries the key asked for and
the data it vouches for is there; anything else builds, writes the data, then the marker
(write, then rename: storage.write_json), and pushes both, marker last, to a remote data
root when there is one.

Assets declare what an artefact reads (its key) and how to build it; this module decides
whether to build. A key is never a hand-bumped constant alone: ``code_version`` hashes the
code of the modules that build an artefact, so an edited builder rebuilds what it built.
"""
from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from .storage import (
    read_json,
    safe_name,
    sha256_bytes,
    stable_hash,
    write_json,
    write_parquet,
)

PACKAGE = Path(__file__).resolve().parent  # finchunk_pipeline/


class Transfer(Protocol):
    """Moves artefacts between the local working copy and a remote data root (the pipeline
    resource; a local data root makes both no-ops)."""

    def pull(self, *paths: Path) -> None: ...

    def push(self, *paths: Path) -> None: ...


class _Local:
    def pull(self, *paths: Path) -> None:
        pass

    def push(self, *paths: Path) -> None:
        pass


LOCAL: Transfer = _Local()


@dataclass(frozen=True)
class Artefact:
    """``marker``: the JSON completion mark; ``data``: the files and folders it vouches for
    (pulled and pushed with it); ``required``: files that must exist for the stored artefact
    to count (default: every ``data`` path)."""

    marker: Path
    data: tuple[Path, ...] = ()
    required: tuple[Path, ...] | None = None

    def stored(self) -> dict | None:
        """The marker's content, or None when there is none."""
        return read_json(self.marker) if self.marker.exists() else None

    def fresh(self, key: str) -> dict | None:
        """The marker's content when it carries ``key`` and the required data exists, else None."""
        info = self.stored()
        if info is None or info.get("inputs") != key:
            return None
        required = self.data if self.required is None else self.required
        return info if all(Path(p).exists() for p in required) else None


@dataclass(frozen=True)
class Outcome:
    info: dict      # the marker's content: {"inputs": key, **what the builder returned}
    built: bool     # False: reused as stored


def reuse_or_build(artefact: Artefact, key: str, build: Callable[[], dict[str, Any]],
                   transfer: Transfer = LOCAL, force: bool = False) -> Outcome:
    """The artefact for ``key``: reused when fresh, else built. ``build`` writes the data and
    returns what the marker records beside the key."""
    transfer.pull(*artefact.data, artefact.marker)
    info = None if force else artefact.fresh(key)
    if info is not None:
        return Outcome(info, False)
    record = {"inputs": key, **build()}
    write_json(artefact.marker, record)
    transfer.push(*artefact.data, artefact.marker)
    return Outcome(record, True)


def artefact_key(**parts: Any) -> str:
    """The key of an artefact built from ``parts`` (inputs' keys, code versions, config)."""
    return stable_hash(parts, n=16)


def _code_of(path: Path, drop: Iterable[str] = ()) -> str:
    """A module's code as its AST (comments, docstrings' formatting and layout aside),
    without the top-level functions/classes named in ``drop``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    drop = set(drop)
    tree.body = [n for n in tree.body if getattr(n, "name", None) not in drop]
    return ast.dump(tree)


def code_hash(files: Iterable[Path], root: Path = PACKAGE, drop: dict[str, set[str]] | None = None) -> str:
    """Hash of the source files' code, by path relative to ``root``; ``drop``: per relative
    path, top-level names whose edits must not count (e.g. report-only functions)."""
    drop = drop or {}
    parts = {}
    for f in files:
        rel = Path(f).resolve().relative_to(root).as_posix()
        parts[rel] = sha256_bytes(_code_of(Path(f), drop.get(rel, ())).encode("utf-8"))
    return stable_hash(parts, n=12)


def code_version(*modules: str) -> str:
    """The code version of what the named modules (dotted names, e.g.
    ``"finchunk_pipeline.index.bm25"``) hold: a hash of their code — the package's modules by
    their path in it, a plug-in's outside the package by its file name. Hashed once per
    process (every artefact key asks; the code cannot change under a running process)."""
    return _code_version(tuple(modules))


@lru_cache(maxsize=None)
def _code_version(modules: tuple[str, ...]) -> str:
    files = [Path(importlib.import_module(m).__file__).resolve() for m in modules]
    inside = [f for f in files if f.is_relative_to(PACKAGE)]
    outside = [f for f in files if not f.is_relative_to(PACKAGE)]
    return code_hash(inside) + "".join(f"+{code_hash([f], root=f.parent)}" for f in outside)


class VersionedTables:
    """Versioned Parquet artefacts: ``<root>/<version name>/<FILE>`` and its ``manifest.json``,
    the completion mark written after the data and recording its size — a data file replaced
    after it (a rebuild in progress, or one that died between the two writes) does not pass for
    complete. Chunk sets (chunking/store.py) and enrichments (enrichment/build.py) are these."""

    FILE = "data.parquet"
    WHAT = "artefact {}"        # how a message names one version
    PRODUCER = "its asset"      # what to materialize when one is missing

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def dir(self, version_name: str) -> Path:
        return self.root / safe_name(version_name)

    def path(self, version_name: str) -> Path:
        return self.dir(version_name) / self.FILE

    def manifest_path(self, version_name: str) -> Path:
        return self.dir(version_name) / "manifest.json"

    def manifest(self, version_name: str) -> dict | None:
        """The manifest of a complete artefact, else None."""
        p, data = self.manifest_path(version_name), self.path(version_name)
        if not (p.exists() and data.exists()):
            return None
        m = read_json(p)
        if "data_bytes" in m and m["data_bytes"] != data.stat().st_size:
            return None
        return m

    def required(self, version_name: str) -> dict:
        """The manifest of a complete artefact; its absence is an error naming what to run."""
        m = self.manifest(version_name)
        if m is None:
            raise RuntimeError(f"{self.WHAT.format(version_name)} is missing: materialize {self.PRODUCER} first")
        return m

    def fresh(self, version_name: str, key: str) -> dict | None:
        """The manifest when the stored artefact is complete and was built from ``key``."""
        m = self.manifest(version_name)
        return m if m is not None and m.get("inputs") == key else None

    def write(self, version_name: str, table, manifest: dict) -> Path:
        """The data file replaced atomically, then the manifest naming its size. Nothing
        published is removed first; callers hold the build's claim (claims.py)."""
        path = write_parquet(self.path(version_name), table)
        write_json(self.manifest_path(version_name), {**manifest, "data_bytes": path.stat().st_size})
        return path

    def read(self, version_name: str, columns: list[str] | None = None):
        import pyarrow.parquet as pq

        return pq.read_table(self.path(version_name), columns=columns).to_pandas()
