"""Generated gold from stored parse results, and back: the filings of a parsed corpus (blocks
and tagged facts from the block store), the generator's options from the settings, and the
generated questions / passages / report written as one artefact (marker last), reused while
the documents, their parse and the options are unchanged."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ...corpus import schema
from ...code_versions import code_version
from ...storage.artefacts import LOCAL, Artefact, Outcome, Transfer, artefact_key, reuse_or_build
from ...storage.blocks import BlockStore
from ...storage.files import read_json, write_parquet
from . import EVIDENCE, GENERATOR_VERSION, PER_DOCUMENT, FilingInput, GeneratedGold, generate

META = ("doc_id", "doc_type", "issuer", "fiscal_year", "period_end")
CODE = ("finchunk_pipeline.evaluation.xbrl_gold", "finchunk_pipeline.evaluation.xbrl_gold.evidence",
        "finchunk_pipeline.evaluation.xbrl_gold.questions", "finchunk_pipeline.evaluation.xbrl_gold.words")


@dataclass(frozen=True)
class GoldOptions:
    """How questions are generated: on (``auto``) or ``off``, questions per filing (None: all),
    the gold evidence of a table figure, the sample's seed."""

    enabled: bool = True
    per_filing: int | None = PER_DOCUMENT
    evidence: str = "row+header"
    seed: int = 0

    @classmethod
    def from_settings(cls, settings) -> "GoldOptions":
        mode = (settings.generated_gold or "auto").lower()
        if mode not in ("auto", "off"):
            raise ValueError(f"FINCHUNK_GENERATED_GOLD: expected auto or off, got {settings.generated_gold!r}")
        per = (settings.gold_per_filing or str(PER_DOCUMENT)).lower()
        try:
            per_filing = None if per == "all" else int(per)
        except ValueError:
            raise ValueError(f"FINCHUNK_GOLD_PER_FILING: expected a number or 'all', got {per!r}") from None
        if per_filing is not None and per_filing < 1:
            raise ValueError(f"FINCHUNK_GOLD_PER_FILING: expected at least 1, got {per_filing}")
        evidence = settings.gold_evidence or "row+header"
        if evidence not in EVIDENCE:
            raise ValueError(f"FINCHUNK_GOLD_EVIDENCE: expected one of {EVIDENCE}, got {evidence!r}")
        try:
            seed = int(settings.gold_seed or 0)
        except ValueError:
            raise ValueError(f"FINCHUNK_GOLD_SEED: expected an integer, got {settings.gold_seed!r}") from None
        return cls(mode == "auto", per_filing, evidence, seed)


def filings_from_blocks(manifest: pd.DataFrame, blocks: BlockStore) -> Iterator[FilingInput]:
    """The parsed documents of ``manifest`` (parsed_blocks' manifest) that carry tagged facts,
    one at a time (a large corpus is never all in memory)."""
    cols = [c for c in META if c in manifest.columns]
    for row in manifest.to_dict("records"):
        key, sha, doc_id = row["parser_key"], row["sha"], row["doc_id"]
        facts = blocks.read_facts(key, sha, doc_id)
        if facts:
            yield FilingInput({c: row.get(c) for c in cols}, blocks.read(key, sha, doc_id), facts)


def gold_key(manifest: pd.DataFrame, options: GoldOptions) -> str:
    cols = [c for c in ("doc_id", "sha", "parser_key", *META[1:]) if c in manifest.columns]
    docs = sorted(tuple(str(v) for v in r) for r in manifest[cols].itertuples(index=False))
    return artefact_key(generator=GENERATOR_VERSION, code=code_version(*CODE), docs=docs,
                        per_filing=options.per_filing, evidence=options.evidence, seed=options.seed)


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

    def write(self, gold: GeneratedGold) -> dict:
        q, p = gold.frames()
        write_parquet(self.passages, pa.Table.from_pandas(p, schema=schema.PASSAGES, preserve_index=False))
        write_parquet(self.questions, pa.Table.from_pandas(q, schema=schema.QUESTIONS, preserve_index=False))
        return gold.report

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

def build_generated_gold(manifest: pd.DataFrame, blocks: BlockStore, files: GoldFiles, options: GoldOptions,
                         transfer: Transfer = LOCAL) -> Outcome | None:
    """The corpus's generated gold, reused when its key is unchanged; None when it is switched
    off or no filing carries tagged facts — then what is stored (and pushed) says there are no
    questions: empty files under a marker with ``questions: 0``."""
    if not options.enabled:
        key = "off"

        def build() -> dict:
            return files.write(GeneratedGold(report={"questions": 0, "off": True}))
    else:
        key = gold_key(manifest, options)

        def build() -> dict:
            gold = generate(filings_from_blocks(manifest, blocks), seed=options.seed,
                            per_document=options.per_filing, evidence=options.evidence)
            return files.write(gold)

    outcome = reuse_or_build(files.artefact, key, build, transfer)
    return outcome if outcome.info.get("questions") else None
