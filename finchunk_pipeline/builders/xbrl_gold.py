"""Generated gold over the stores: the filings of a parsed corpus (blocks and tagged facts read
from the block store), the questions generated from them (the pure evaluation/xbrl_gold) and
written as one artefact (storage/gold.py, marker last), reused while the documents, their parse
and the options are unchanged; and ``finchunk corpus gold-from-xbrl``'s corpus folder."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pandas as pd

from ..code_versions import code_version
from ..evaluation.xbrl_gold import GENERATOR_VERSION, FilingInput, GeneratedGold, generate
from ..evaluation.xbrl_gold.corpus import gold_tables, parsed_filings
from ..evaluation.xbrl_gold.options import CODE, GoldOptions
from ..storage.artefacts import LOCAL, Outcome, Transfer, artefact_key, reuse_or_build
from ..storage.blocks import BlockStore
from ..storage.files import write_json, write_parquet
from ..storage.gold import GoldFiles

META = ("doc_id", "doc_type", "issuer", "fiscal_year", "period_end")
COPIED = ("documents.parquet", "xbrl_facts.parquet")  # what gold_from_xbrl copies of the source corpus
REPORT = "gold_report.json"


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


def _write(files: GoldFiles, gold: GeneratedGold) -> dict:
    files.write(*gold_tables(gold))
    return gold.report


def build_generated_gold(manifest: pd.DataFrame, blocks: BlockStore, files: GoldFiles, options: GoldOptions,
                         transfer: Transfer = LOCAL) -> Outcome | None:
    """The corpus's generated gold, reused when its key is unchanged; None when it is switched
    off or no filing carries tagged facts — then what is stored (and pushed) says there are no
    questions: empty files under a marker with ``questions: 0``."""
    if not options.enabled:
        key = "off"

        def build() -> dict:
            return _write(files, GeneratedGold(report={"questions": 0, "off": True}))
    else:
        key = gold_key(manifest, options)

        def build() -> dict:
            gold = generate(filings_from_blocks(manifest, blocks), seed=options.seed,
                            per_document=options.per_filing, evidence=options.evidence)
            return _write(files, gold)

    outcome = reuse_or_build(files.artefact, key, build, transfer)
    return outcome if outcome.info.get("questions") else None


def gold_from_xbrl(src: str | Path, out: str | Path, *, seed: int = 0, per_document: int | None = 150,
                   evidence: str = "row+header") -> GeneratedGold:
    """Write ``out``: ``src``'s documents (and files, XBRL facts) with generated questions and
    passages, and ``gold_report.json`` (what was generated, rejected and skipped), so any tool
    that reads the corpus format — ``finchunk run`` first — evaluates on it."""
    src, out = Path(src), Path(out)
    if out.resolve() == src.resolve():
        raise ValueError(f"--out {out} is the source corpus: choose another folder (the source is never changed)")
    skipped: dict[str, str] = {}
    gold = generate(parsed_filings(src, skipped), seed=seed, per_document=per_document, evidence=evidence)
    out.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        if (src / name).exists():
            shutil.copy2(src / name, out / name)
    if (src / "files").is_dir():
        shutil.copytree(src / "files", out / "files", dirs_exist_ok=True)
    questions, passages = gold_tables(gold)
    write_parquet(out / "passages.parquet", passages)
    write_parquet(out / "questions.parquet", questions)
    gold.report["skipped"] = skipped
    gold.report["source"] = str(src)
    write_json(out / REPORT, gold.report)
    return gold
