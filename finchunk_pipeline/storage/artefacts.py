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

What is read is verified: the marker records the size and SHA-256 of every data file it
vouches for (``"files"``); a stored artefact whose marker cannot be read, or whose data differs
from that record (truncated, overwritten, missing), is damaged — a warning names the file and
the artefact is built again from what it was built from, as if it were missing. A marker
written before these records (no ``"files"``) is accepted as before (its data must exist;
a chunk set's ``data_bytes`` is checked) and given its records when it is next reused by its
builder, so an existing data root does not rebuild.
"""
from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from ..hashing import stable_hash
from .files import is_temp_file, safe_name, write_json, write_parquet

log = logging.getLogger(__name__)


class DamagedArtefact(RuntimeError):
    """A stored file that is not what was written (its message names the file)."""


# --- verifying what is read --------------------------------------------------------------

_HASHED: dict[tuple, str] = {}  # (path, inode, size, mtime) -> sha256: each file hashed once per process


def file_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns)
    if key not in _HASHED:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _HASHED[key] = h.hexdigest()
    return _HASHED[key]


def files_under(paths: Iterable[Path]) -> list[Path]:
    """The files of ``paths`` (a folder: every file in it, recursively; temporary files of
    atomic writes left out), in a stable order."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and not is_temp_file(f)))
        elif p.is_file():
            out.append(p)
    return out


def record_files(paths: Iterable[Path], base: Path) -> dict[str, dict]:
    """{path relative to ``base``: {"bytes", "sha256"}} of every file under ``paths``: what a
    marker records of the data it vouches for."""
    return {f.relative_to(base).as_posix(): {"bytes": f.stat().st_size, "sha256": file_sha256(f)}
            for f in files_under(paths)}


def check_files(files: dict[str, dict], base: Path) -> str | None:
    """The first difference between the files under ``base`` and their ``files`` record, as a
    sentence naming the file, or None when every file is as recorded (a record without
    "sha256" checks the size only)."""
    for rel, rec in files.items():
        path = base / rel
        if not path.is_file():
            return f"{path} is missing"
        size = path.stat().st_size
        if "bytes" in rec and size != rec["bytes"]:
            return f"{path} has {size:,} bytes, {rec['bytes']:,} when it was written"
        if "sha256" in rec and file_sha256(path) != rec["sha256"]:
            return f"{path} is not the content written (its SHA-256 differs)"
    return None


_REPORTED: set[str] = set()


def report_damage(problem: str, action: str = "built again from its inputs") -> None:
    """One warning per damaged file (``problem`` names it) and process, saying what is done."""
    if problem in _REPORTED:
        return
    _REPORTED.add(problem)
    log.warning("damaged artefact: %s: %s", problem, action)


def read_marker(path: Path, action: str = "built again from its inputs") -> dict | None:
    """A marker's content, or None when there is none — or when it is damaged (not a JSON
    object: truncated, overwritten), with a warning naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        report_damage(f"{path} cannot be read ({exc})", action)
        return None
    try:
        info = json.loads(text)
    except json.JSONDecodeError as exc:
        report_damage(f"{path} is not valid JSON ({exc.msg} at character {exc.pos} of {len(text):,})", action)
        return None
    if not isinstance(info, dict):
        report_damage(f"{path} holds a JSON {type(info).__name__}, not an object", action)
        return None
    return info


def verified(info: dict | None, base: Path, action: str = "built again from its inputs") -> dict | None:
    """``info`` (a marker's content) when the files it records under ``base`` are intact, else
    None with a warning naming the file; a marker without records is returned as it is."""
    if info is None or not isinstance(info.get("files"), dict):
        return info
    problem = check_files(info["files"], base)
    if problem is None:
        return info
    report_damage(problem, action)
    return None


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
    """``marker``: the JSON completion mark; ``data``: the files and folders pulled and pushed
    with it; ``required``: files that must exist for the stored artefact to count (default:
    every ``data`` path); ``recorded``: the files and folders whose every file's size and hash
    the marker records and reading it verifies (default: ``required``, else ``data``; ``()``:
    the marker is the whole artefact, e.g. an evaluation.json)."""

    marker: Path
    data: tuple[Path, ...] = ()
    required: tuple[Path, ...] | None = None
    recorded: tuple[Path, ...] | None = None

    @property
    def recorded_paths(self) -> tuple[Path, ...]:
        if self.recorded is not None:
            return self.recorded
        return self.data if self.required is None else self.required

    def stored(self) -> dict | None:
        """The marker's content, or None when there is none or it is damaged (warned)."""
        return read_marker(self.marker)

    def fresh(self, key: str, action: str = "built again from its inputs") -> dict | None:
        """The marker's content when it carries ``key`` and its data is intact (as recorded;
        for a marker without records: the required data exists), else None (damage is warned,
        naming the file, with ``action``: what is done about it)."""
        info = read_marker(self.marker, action)
        if info is None or info.get("inputs") != key:
            return None
        if "files" in info:
            return verified(info, self.marker.parent, action)
        required = self.data if self.required is None else self.required
        return info if all(Path(p).exists() for p in required) else None

    def record(self) -> dict[str, dict]:
        """The records of the data as it is now (relative to the marker's folder)."""
        return record_files(self.recorded_paths, self.marker.parent)


@dataclass(frozen=True)
class Outcome:
    info: dict      # the marker's content: {"inputs": key, **what the builder returned}
    built: bool     # False: reused as stored


def reuse_or_build(artefact: Artefact, key: str, build: Callable[[], dict[str, Any]],
                   transfer: Transfer = LOCAL, force: bool = False) -> Outcome:
    """The artefact for ``key``: reused when fresh (and intact), else built. ``build`` writes
    the data and returns what the marker records beside the key; the marker also records the
    size and hash of the data files (``"files"``). Callers hold the artefact's build claim
    (claims.py): a marker written before records gets them here, from the data as it is."""
    transfer.pull(*artefact.data, artefact.marker)
    info = None if force else artefact.fresh(key)
    if info is not None:
        if "files" not in info and artefact.recorded_paths:
            files = artefact.record()
            if files:  # adopted: verified from now on
                info = {**info, "files": files}
                write_json(artefact.marker, info)
                transfer.push(artefact.marker)
        return Outcome(info, False)
    record = {"inputs": key, **build()}
    if artefact.recorded_paths:
        record["files"] = artefact.record()
    write_json(artefact.marker, record)
    transfer.push(*artefact.data, artefact.marker)
    return Outcome(record, True)


def artefact_key(**parts: Any) -> str:
    """The key of an artefact built from ``parts`` (inputs' keys, code versions, config)."""
    return stable_hash(parts, n=16)


class VersionedTables:
    """Versioned Parquet artefacts: ``<root>/<version name>/<FILE>`` and its ``manifest.json``,
    the completion mark written after the data and recording its size and hash (``files``, as
    every marker does) — a data file replaced or damaged after it (a rebuild in progress, one
    that died between the two writes, a truncated copy) does not pass for complete, and a
    damaged one is named in a warning. Chunk sets (storage/chunks.py) and enrichments
    (storage/enrichments.py) are these."""

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

    def artefact(self, version_name: str) -> Artefact:
        return Artefact(self.manifest_path(version_name), (self.path(version_name),))

    def _stored(self, version_name: str) -> dict | None:
        """The manifest as stored (None: none, or damaged), with a manifest written before
        records checked by its data_bytes."""
        m = self.artefact(version_name).stored()
        if m is not None and "files" not in m and "data_bytes" in m:
            m = {**m, "files": {self.FILE: {"bytes": m["data_bytes"]}}}
        return m

    def manifest(self, version_name: str, action: str = "built again when its asset runs") -> dict | None:
        """The manifest of a complete, intact artefact, else None (a damaged one warned)."""
        m = self._stored(version_name)
        if m is None or not self.path(version_name).exists():
            return None
        return verified(m, self.dir(version_name), action)

    def required(self, version_name: str) -> dict:
        """The manifest of a complete artefact; its absence is an error naming what to run."""
        m = self.manifest(version_name)
        if m is None:
            raise RuntimeError(f"{self.WHAT.format(version_name)} is missing or damaged: materialize "
                               f"{self.PRODUCER} first")
        return m

    def fresh(self, version_name: str, key: str, adopt: bool = False) -> dict | None:
        """The manifest when the stored artefact is complete, intact and was built from ``key``
        (checked first: a stale one is not verified). ``adopt``: the caller holds its build
        claim, and a manifest written before hash records gets them."""
        m = self._stored(version_name)
        if m is None or m.get("inputs") != key or not self.path(version_name).exists():
            return None
        m = verified(m, self.dir(version_name))
        if m is not None and adopt and "sha256" not in m["files"].get(self.FILE, {}):
            stored = self.artefact(version_name).stored() or {}
            write_json(self.manifest_path(version_name), {**stored, **self._record(version_name)})
            m = self.manifest(version_name)
        return m

    def _record(self, version_name: str) -> dict:
        data = self.path(version_name)
        return {"data_bytes": data.stat().st_size, "files": record_files([data], self.dir(version_name))}

    def write(self, version_name: str, table, manifest: dict) -> Path:
        """The data file replaced atomically, then the manifest naming its size and hash.
        Nothing published is removed first; callers hold the build's claim (claims.py)."""
        path = write_parquet(self.path(version_name), table)
        write_json(self.manifest_path(version_name), {**manifest, **self._record(version_name)})
        return path

    def read(self, version_name: str, columns: list[str] | None = None):
        import pyarrow.parquet as pq

        return pq.read_table(self.path(version_name), columns=columns).to_pandas()
