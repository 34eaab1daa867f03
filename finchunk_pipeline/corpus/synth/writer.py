"""Streaming Parquet writer: rows are buffered in small batches and written with
``pyarrow.parquet.ParquetWriter``, so memory does not grow with the corpus size."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .. import schema


class _Sink:
    def __init__(self, path: Path, arrow_schema: pa.Schema, batch_rows: int, batch_chars: int = 0):
        self.path, self.schema = path, arrow_schema
        self.batch_rows, self.batch_chars = batch_rows, batch_chars
        self.rows: list[dict] = []
        self.chars = 0
        self.count = 0
        self.writer = pq.ParquetWriter(path, arrow_schema, compression="zstd")

    def add(self, row: dict) -> None:
        self.rows.append(row)
        self.count += 1
        if self.batch_chars:
            self.chars += len(row.get("text") or "")
        if len(self.rows) >= self.batch_rows or (self.batch_chars and self.chars >= self.batch_chars):
            self.flush()

    def flush(self) -> None:
        if self.rows:
            self.writer.write_table(pa.Table.from_pylist(self.rows, schema=self.schema))
            self.rows, self.chars = [], 0

    def close(self) -> None:
        self.flush()
        self.writer.close()


class CorpusWriter:
    """Writes documents, passages, questions and xbrl_facts to out_dir as they come.

    Question ids are assigned here, in arrival order: q00001, q00002, ...
    """

    def __init__(self, out_dir: str | Path):
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        self.docs = _Sink(out / "documents.parquet", schema.DOCUMENTS, 200, batch_chars=2_000_000)
        self.passages = _Sink(out / "passages.parquet", schema.PASSAGES, 25_000)
        self.questions = _Sink(out / "questions.parquet", schema.QUESTIONS, 5_000)
        self.xbrl = _Sink(out / "xbrl_facts.parquet", schema.XBRL_FACTS, 20_000)
        self._q = 0

    def add_doc(self, doc) -> None:
        self.docs.add({name: doc.row.get(name) for name in schema.DOCUMENTS.names})
        for p in doc.passages:
            self.passages.add(dataclasses.asdict(p))
        for q in doc.questions:
            self.add_question(q)

    def add_question(self, q) -> None:
        self._q += 1
        row = dataclasses.asdict(q)
        row["question_id"] = f"q{self._q:05d}"
        self.questions.add(row)

    def add_fact(self, fact: dict) -> None:
        self.xbrl.add(fact)

    def close(self) -> dict[str, int]:
        counts = {}
        for name in ("docs", "passages", "questions", "xbrl"):
            sink = getattr(self, name)
            sink.close()
            counts[name] = sink.count
        return counts
