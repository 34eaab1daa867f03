"""Shared fixtures: small corpora in the corpus format, devdata location, pipeline resources."""
from __future__ import annotations

import shutil
import os
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk_pipeline.corpus import schema
from finchunk_pipeline import DEFAULT_CORPUS, PROJECT_ROOT

# FINCHUNK_DEVDATA points elsewhere (e.g. from a git worktree outside the checkout's parent)
DEVDATA = Path(os.environ.get("FINCHUNK_DEVDATA") or PROJECT_ROOT.parent / "shared" / "devdata")

needs_devdata = pytest.mark.skipif(not DEVDATA.is_dir(), reason="../shared/devdata is not present")

# The tiers are folders (tests/unit, tests/integration, tests/system, tests/architecture); each
# test gets its folder's marker, so `pytest -m unit` selects what `pytest tests/unit` does.
TIERS = ("unit", "integration", "system", "architecture")
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config, items):
    for item in items:
        try:
            parts = Path(str(item.path)).resolve().relative_to(TESTS).parts
        except ValueError:
            continue
        if len(parts) > 1 and parts[0] in TIERS:
            item.add_marker(getattr(pytest.mark, parts[0]))


@pytest.fixture(autouse=True)
def no_llm_endpoint_from_the_environment(monkeypatch):
    """Tests talk to stub endpoints on 127.0.0.1 only (tests/llm_stub.py): an endpoint set in
    the developer's environment is never used."""
    import os

    for name in list(os.environ):
        if name.startswith(("FINCHUNK_LLM_", "FINCHUNK_ANSWER_")):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def no_dagster_context_left_open():
    """A test that leaves a Dagster context open (``build_schedule_context`` used without
    ``with``: its ``instance`` is entered and never exited) leaves Dagster's current defs-state
    storage pointing at that instance; once the instance is collected, a later test's
    ``materialize`` fails with "Attempted to resolve undefined DagsterInstance weakref". The test
    that leaves it open fails here instead, and the next one starts clean."""
    import sys

    yield
    if "dagster" not in sys.modules:   # nothing of Dagster's was opened
        return
    from dagster._core.storage.defs_state.base import DefsStateStorage, _current_storage

    if DefsStateStorage.get() is not None:
        _current_storage.set(None)
        pytest.fail("a Dagster context was left open: its instance stays Dagster's current defs-state storage "
                    "(use `with build_schedule_context(...) as context:`, `with DagsterInstance.get() as instance:`)")


def write_corpus(folder: Path, documents: list[dict], passages: list[dict] | None = None,
                 questions: list[dict] | None = None) -> Path:
    """Write a corpus folder from plain dicts (missing document columns are filled)."""
    folder.mkdir(parents=True, exist_ok=True)
    docs = []
    for d in documents:
        row = {c: None for c in schema.DOCUMENTS.names}
        row.update({"title": d.get("doc_id"), "doc_type": "annual_report", "issuer": "Test plc",
                    "language": "en", "format": "markdown"})
        row.update(d)
        docs.append(row)
    pq.write_table(pa.Table.from_pylist(docs, schema=schema.DOCUMENTS), folder / "documents.parquet")
    if passages is not None:
        pq.write_table(pa.Table.from_pylist(passages, schema=schema.PASSAGES), folder / "passages.parquet")
    if questions is not None:
        rows = [{"answer": None, "as_of": None, **q} for q in questions]
        pq.write_table(pa.Table.from_pylist(rows, schema=schema.QUESTIONS), folder / "questions.parquet")
    return folder


@pytest.fixture
def default_corpus_copy(tmp_path) -> Path:
    """A copy of the embedded corpus restricted to its Markdown annual reports (fast)."""
    src = DEFAULT_CORPUS
    dst = tmp_path / "corpus"
    dst.mkdir()
    docs = pd.read_parquet(src / "documents.parquet")
    keep = set(docs.loc[docs["doc_type"] == "annual_report", "doc_id"])
    docs = docs[docs["doc_id"].isin(keep)]
    pq.write_table(pa.Table.from_pandas(docs, schema=schema.DOCUMENTS, preserve_index=False), dst / "documents.parquet")
    passages = pd.read_parquet(src / "passages.parquet")
    passages = passages[passages["doc_id"].isin(keep)]
    pq.write_table(pa.Table.from_pandas(passages, schema=schema.PASSAGES, preserve_index=False), dst / "passages.parquet")
    questions = pd.read_parquet(src / "questions.parquet")
    questions = questions[questions["doc_ids"].apply(lambda ids: len(ids) > 0 and set(ids) <= keep)]
    pq.write_table(pa.Table.from_pandas(questions[schema.QUESTIONS.names], schema=schema.QUESTIONS,
                                        preserve_index=False), dst / "questions.parquet")
    return dst


BM25_ONLY_CHUNKERS = """
chunk_sets:
  - {name: fixed, strategy: fixed, params: {size: 500, overlap: 50}, dense: false}
  - {name: recursive, strategy: recursive, params: {size: 500}, dense: false}
  - {name: structure-h, strategy: structure, params: {max_chars: 800}, header: true, dense: false}
"""


@pytest.fixture
def chunkers_file(tmp_path) -> Path:
    path = tmp_path / "chunkers.yaml"
    path.write_text(BM25_ONLY_CHUNKERS)
    return path


# --- real servers on 127.0.0.1 for the scale-out tests (tests/servers.py) -----------------------

@pytest.fixture(scope="session")
def postgres_server():
    from .servers import start_postgres

    try:
        server = start_postgres()
    except FileNotFoundError as exc:  # only when the server software is genuinely not installed
        pytest.skip(f"PostgreSQL server not available: {exc}")
    import atexit

    atexit.register(server.stop)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def s3_server():
    from .servers import start_s3

    try:
        server = start_s3()
    except FileNotFoundError as exc:
        pytest.skip(f"S3 API server not available: {exc}")
    import atexit

    atexit.register(server.stop)  # also when the session ends abnormally
    yield server
    server.stop()
