"""Stored generated gold (questions generated from inline XBRL, evaluation/xbrl_gold): one
corpus's ``questions.parquet``, ``passages.parquet`` and the marker ``report.json`` (the
generator's report and the artefact's key), written by builders/xbrl_gold.py."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from .artefacts import Artefact
from .files import read_json, write_parquet


class GoldFiles:
    """The generated gold of one corpus: ``questions.parquet``, ``passages.parquet`` and the
    marker ``report.json`` (the generator's report and the artefact's key)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.questions = self.folder / "questions.parquet"
        self.passages = self.folder / "passages.parquet"
        self.marker = self.folder / "report.json"

    @property
    def artefact(self) -> Artefact:
        return Artefact(marker=self.marker, data=(self.questions, self.passages))

    def write(self, questions: pa.Table, passages: pa.Table) -> None:
        """The questions and passages tables (corpus format); the marker is written after them
        by the artefact's build (storage/artefacts.reuse_or_build)."""
        write_parquet(self.passages, passages)
        write_parquet(self.questions, questions)

    def exists(self) -> bool:
        """Whether generated questions are stored: the marker says there are some (a corpus
        without tagged facts, or with generation off, has a marker saying none — so a remote
        data root's copy, pulled back, cannot bring an old question set back) and the files
        are there."""
        if not (self.marker.exists() and self.questions.exists() and self.passages.exists()):
            return False
        try:
            return bool(read_json(self.marker).get("questions"))
        except (OSError, ValueError):
            return False

    def read(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(questions, passages) in the corpus format."""
        return pq.read_table(self.questions).to_pandas(), pq.read_table(self.passages).to_pandas()
