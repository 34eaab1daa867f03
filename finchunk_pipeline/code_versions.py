"""Code versions: a hash of the code that builds something, so an edited builder rebuilds
what it built without anyone bumping a constant. Code is read as its AST (comments, docstrings'
formatting and layout aside); the package's files are named by their path in it. Below every
stage and the storage layer: stages and assets key their artefacts with it, the stores file by
those keys."""
from __future__ import annotations

import ast
import importlib
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from .hashing import sha256_bytes, stable_hash

PACKAGE = Path(__file__).resolve().parent  # finchunk_pipeline/


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
