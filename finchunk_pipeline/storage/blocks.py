"""Persisted parsed blocks: ``<blocks root>/parser=<name>-<version>/<doc sha>.parquet``.

One file per (parser version, document content). Its rows are the blocks; its schema
metadata carries the parser's text view, offset map and warnings (and an inline-XBRL filing's
tagged facts), so one atomic file holds everything a chunker needs and nothing is half-written.
"""
from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..types.blocks import Block, ParsedDocument, TaggedFact
from ..types.offsets import OffsetMap
from .artefacts import Artefact, DamagedArtefact, report_damage
from .files import safe_name, table_of, write_json, write_parquet

BLOCK_SCHEMA = pa.schema([
    ("doc_id", pa.string()),
    ("block_id", pa.string()),
    ("seq", pa.int32()),
    ("kind", pa.string()),
    ("start", pa.int64()),
    ("end", pa.int64()),
    ("vstart", pa.int64()),
    ("vend", pa.int64()),
    ("text", pa.string()),
    ("section_path", pa.list_(pa.string())),
    ("parent_id", pa.string()),
    ("attrs", pa.string()),  # JSON
])


REPARSE = "parsed again from its raw document"


class BlockStore:
    """Each document's blocks file has a completion marker beside it, ``<doc sha>.json``
    (artefacts.py: the file's size and hash), written after it: ``intact`` verifies a stored
    file before it is reused; a damaged one is named in a warning and parsed again."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    def path(self, parser_key: str, doc_sha: str) -> Path:
        return self.root / f"parser={safe_name(parser_key)}" / f"{safe_name(doc_sha)}.parquet"

    def exists(self, parser_key: str, doc_sha: str) -> bool:
        return self.path(parser_key, doc_sha).exists()

    def artefact(self, parser_key: str, doc_sha: str) -> Artefact:
        path = self.path(parser_key, doc_sha)
        return Artefact(path.with_suffix(".json"), (path,))

    def _mark(self, parser_key: str, doc_sha: str) -> None:
        artefact = self.artefact(parser_key, doc_sha)
        write_json(artefact.marker, {"inputs": f"{parser_key}/{doc_sha}", "files": artefact.record()})

    def intact(self, parser_key: str, doc_sha: str) -> bool:
        """Whether the document's blocks are stored as written (its marker's record). A file
        stored before markers is read once whole and, readable, given its marker; a damaged
        one (or marker) is warned about, naming the file, and counts as not stored."""
        path = self.path(parser_key, doc_sha)
        if not path.exists():
            return False
        artefact = self.artefact(parser_key, doc_sha)
        if artefact.marker.exists():
            return artefact.fresh(f"{parser_key}/{doc_sha}", REPARSE) is not None
        try:
            pq.read_table(path)
        except Exception as exc:  # noqa: BLE001 - whatever pyarrow raises on a damaged file
            report_damage(f"{path} cannot be read ({type(exc).__name__}: {exc})", REPARSE)
            return False
        self._mark(parser_key, doc_sha)
        return True

    def write(self, parser_key: str, doc: ParsedDocument) -> Path:
        meta = {
            b"doc_id": doc.doc_id.encode(),
            b"doc_sha": doc.doc_sha.encode(),
            b"parser": doc.parser.encode(),
            b"parser_version": doc.parser_version.encode(),
            b"view_text": doc.view_text.encode("utf-8"),
            b"offsets": json.dumps(doc.offsets.to_dict()).encode(),
            b"warnings": json.dumps(doc.warnings).encode(),
        }
        if doc.facts:  # inline-XBRL facts ride in the same file: written together or not at all
            meta[b"facts"] = json.dumps([asdict(f) for f in doc.facts]).encode()
        table = table_of(doc.blocks, BLOCK_SCHEMA.with_metadata(meta),
                         {"section_path": list, "attrs": lambda a: json.dumps(a, sort_keys=True)})
        path = write_parquet(self.path(parser_key, doc.doc_sha), table)
        self._mark(parser_key, doc.doc_sha)
        return path

    def summary(self, parser_key: str, doc_sha: str) -> tuple[dict[str, int], list[str]]:
        """A stored document's blocks by kind and its parse warnings (``ParsedDocument.counts``
        and ``.warnings`` of ``read``), from the kind column and the file's metadata alone."""
        table = pq.read_table(self.path(parser_key, doc_sha), columns=["kind"])
        counts: dict[str, int] = {}
        for kind in table.column("kind").to_pylist():
            counts[kind] = counts.get(kind, 0) + 1
        return counts, json.loads((table.schema.metadata or {})[b"warnings"])

    def read_facts(self, parser_key: str, doc_sha: str, doc_id: str | None = None) -> list[TaggedFact]:
        """A stored document's inline-XBRL facts (empty for documents without any), from the
        file's metadata alone (``read`` leaves them out: chunking never needs them); ``doc_id``
        re-labels their block ids as ``read`` does."""
        meta = pq.read_schema(self.path(parser_key, doc_sha)).metadata or {}
        facts = [TaggedFact(**f) for f in json.loads(meta.get(b"facts", b"[]"))]
        stored_id = meta[b"doc_id"].decode()
        if doc_id and doc_id != stored_id:
            for f in facts:
                if f.block_id:
                    f.block_id = doc_id + f.block_id[len(stored_id):]
        return facts

    def read(self, parser_key: str, doc_sha: str, doc_id: str | None = None) -> ParsedDocument:
        """Read one stored document. ``doc_id`` re-labels the blocks when the same content is
        stored under another id (content-addressed storage is shared between ids)."""
        path = self.path(parser_key, doc_sha)
        try:
            table = pq.read_table(path)
        except FileNotFoundError:
            raise
        except Exception as exc:  # noqa: BLE001 - a damaged file: say which, and what heals it
            raise DamagedArtefact(f"{path} cannot be read ({type(exc).__name__}: {exc}): materialize "
                                  "parsed_blocks (finchunk run) to parse the document again") from exc
        meta = table.schema.metadata or {}
        stored_id = meta[b"doc_id"].decode()
        doc_id = doc_id or stored_id
        blocks = []
        for r in table.to_pylist():
            block_id = r["block_id"]
            parent = r["parent_id"]
            if doc_id != stored_id:
                block_id = doc_id + block_id[len(stored_id):]
                parent = doc_id + parent[len(stored_id):] if parent else None
            blocks.append(Block(
                doc_id=doc_id, block_id=block_id, seq=r["seq"], kind=r["kind"],
                start=r["start"], end=r["end"], vstart=r["vstart"], vend=r["vend"], text=r["text"],
                section_path=tuple(r["section_path"] or ()), parent_id=parent,
                attrs=json.loads(r["attrs"]) if r["attrs"] else {},
            ))
        return ParsedDocument(
            doc_id=doc_id,
            doc_sha=meta[b"doc_sha"].decode(),
            parser=meta[b"parser"].decode(),
            parser_version=meta[b"parser_version"].decode(),
            view_text=meta[b"view_text"].decode("utf-8"),
            offsets=OffsetMap.from_dict(json.loads(meta[b"offsets"])),
            blocks=blocks,
            warnings=json.loads(meta[b"warnings"]),
        )
