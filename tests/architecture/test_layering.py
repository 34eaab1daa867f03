"""The house's floors: every import of the package runs down, never up.

``FLOORS`` lists the package's rooms (its top-level modules and sub-packages) bottom first:
the foundation (settings, languages, memory helpers, the data types), the storage layer, the
model stack, the stages in the order they build on each other (chunking below enrichment: a
chunker knows nothing of enrichers), then the Dagster shell and the command line. A module may import its own room and the rooms below it, nothing above, counting
imports inside functions (they hide an arrow rather than remove it). A new room must be given
its floor here."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import finchunk_pipeline

PACKAGE = Path(finchunk_pipeline.__file__).parent

FLOORS = (
    # the foundation: no stage, no storage
    "settings", "hashing", "code_versions", "lang", "memory", "types", "progress",
    # persistence, in one place: writes only what the stages hand it
    "storage",
    # the model stack: token counting, the embedder (its cache is stored)
    "models",
    # the stages, each over the ones below it; the declared chunk sets compose a chunker with
    # an enricher and what indexing and evaluation read, so they sit above both
    "xbrl", "routing", "parse", "corpus", "fetch", "chunking", "enrichment", "chunk_sets", "index",
    "evaluation",
    # each stage's artefact built over the stores (reuse, else the pure stage, then write)
    "builders",
    # the Dagster shell and the command line
    "assets", "definitions", "cli",
)


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> list[tuple[str, str, int]]:
    """(importing module, imported room, line) for every import of a room of the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module(path)
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = (".".join(base[:len(base) - node.level + 1] + [node.module or ""]).strip(".")
                          if node.level else (node.module or ""))
                targets = ([f"{target}.{a.name}" for a in node.names] if target == PACKAGE.name
                           else [target])
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                if t.split(".")[0] == PACKAGE.name and _room(t):
                    found.append((name, _room(t), node.lineno))
    return found


# the pure stages: functions over in-memory types, reading and writing nothing
# (their store-aware builds live in builders/)
PURE_STAGES = ("chunking", "parse", "enrichment", "index", "evaluation")


def _upward(imports) -> list[str]:
    """The imports of a room by a room below it."""
    floor = {room: i for i, room in enumerate(FLOORS)}
    return [f"{module} (line {line}) imports {room}" for module, room, line in imports
            if room in floor and _room(module) in floor and floor[room] > floor[_room(module)]]


def _impure(imports) -> list[str]:
    """The imports of storage/ by a stage that is to be pure."""
    return [f"{module} (line {line})" for module, room, line in imports
            if room == "storage" and _room(module) in PURE_STAGES]


def test_pure_stages_import_nothing_of_storage():
    assert _impure(_imports()) == []


def test_every_room_has_a_floor():
    rooms = {_room(_module(p)) for p in PACKAGE.rglob("*.py")} - {""}
    assert rooms - set(FLOORS) == set(), "give each new room its floor in FLOORS"


def test_no_import_runs_up():
    assert _upward(_imports()) == []


def test_the_checks_see_an_upward_import_and_an_impure_stage(tmp_path, monkeypatch):
    """The rules are not vacuous: storage importing a stage runs up, and chunking importing
    storage is impure — both found in a package written to show them."""
    fake = tmp_path / PACKAGE.name
    (fake / "storage").mkdir(parents=True)
    (fake / "chunking").mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "storage" / "__init__.py").write_text("from ..chunking import config\n")
    (fake / "chunking" / "__init__.py").write_text("from ..storage import files\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    found = _imports()
    assert sorted((m, r) for m, r, _ in found) == [("finchunk_pipeline.chunking", "storage"),
                                                    ("finchunk_pipeline.storage", "chunking")]
    assert _upward(found) == ["finchunk_pipeline.storage (line 1) imports chunking"]
    assert _impure(found) == ["finchunk_pipeline.chunking (line 1)"]
