"""Code versions: a hash of the code that builds something, so an edited builder rebuilds
what it built without anyone bumping a constant. Code is read as its AST without docstrings
(comments, docstrings and layout aside: rewording documentation rebuilds nothing); the
package's files are named by their path in it. Below every
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


def _tree(path: Path) -> ast.Module:
    """A source file's AST without its docstrings, parsed once per text (the code hash and the
    import closure both read it); callers must not change it."""
    return _parsed(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=4096)
def _parsed(source: str) -> ast.Module:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:]
    return tree


def _code_of(path: Path, drop: Iterable[str] = ()) -> str:
    """A module's code as its AST (comments, docstrings and layout aside), without the
    top-level functions/classes named in ``drop``."""
    tree, drop = _tree(path), set(drop)
    if drop:
        tree = ast.Module(body=[n for n in tree.body if getattr(n, "name", None) not in drop],
                          type_ignores=tree.type_ignores)
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


# --- the code a module runs: its imports, followed ---------------------------------------

def _module_file(module: str, root: Path) -> Path | None:
    """The file of the package's module ``module`` (dotted, from the package's name) under
    ``root``, or None (not the package's, or no such module)."""
    parts = module.split(".")
    if parts[0] != root.name:
        return None
    base = root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _statements(body: list[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement, nested ones included (an import is a statement: expressions need no
    visit)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _imported(path: Path, root: Path) -> set[str]:
    """The package's modules the file imports, anywhere in it (imports inside functions
    included: they run as surely, only later)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    package = parts if path.name == "__init__.py" else parts[:-1]
    package = package[:-1] if package and package[-1] == "__init__" else package
    found = set()
    for node in _statements(_tree(path).body):
        if isinstance(node, ast.ImportFrom):
            base = (".".join(package[:len(package) - node.level + 1] + [node.module or ""]).strip(".")
                    if node.level else (node.module or ""))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import module`
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if _module_file(m, root) is not None}


def import_closure(modules: Iterable[str], root: Path = PACKAGE, leave_out: Iterable[str] = ()) -> list[Path]:
    """The files of ``modules`` and of every module of the package they import, followed to
    the end (read from the sources under ``root``, nothing imported): the code they run. A
    module in ``leave_out``, or in a package it names, is neither counted nor followed. Dotted
    names start with the package's name."""
    leave_out, seen, todo = tuple(leave_out), set(), list(modules)
    while todo:
        module = todo.pop()
        if module in seen or any(module == m or module.startswith(f"{m}.") for m in leave_out):
            continue
        seen.add(module)
        path = _module_file(module, root)
        if path is None:
            raise ModuleNotFoundError(f"{module} is not a module of the package under {root}")
        todo.extend(_imported(path, root))
    return sorted({_module_file(m, root) for m in seen})
