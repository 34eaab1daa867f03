"""The chunk sets users declare in data/chunkers.yaml: each a chunker (chunking/chunker.py:
the strategy, its parameters, the header, the token bound) and what the chunk set does beyond
its chunks — an optional enricher, a dense index or not, how retrieved chunks are delivered.

This sits above the stages, which each receive only their part: chunking the Chunker
(``config.chunker``), enrichment the enricher, indexing and evaluation the rest. The chunks are
stored under the chunker's version (``chunks_version_name``); the chunk set's version
(``version_name``: its enrichment, indexes and evaluation) adds the enricher when there is one,
so adding or changing an enricher reuses the chunks as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .chunking.chunker import Chunker
from .chunking.options import describe_errors
from .chunking.registry import STRATEGIES
from .enrichment.model import EnrichSpec, parse_enrich
from .hashing import stable_hash

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"  # a chunk set's name: a Dagster partition key
_NAME = re.compile(NAME_PATTERN)


@dataclass(frozen=True)
class ChunkerConfig(Chunker):
    """One declared chunk set, as written in the chunkers file: its chunker's options (the
    fields of ``Chunker``: name, strategy, params, header, context_fields, token_safe, handed
    on as ``chunker``) and what the set does beyond its chunks."""

    dense: bool = True             # build a dense (FAISS) index for this set
    description: str = ""
    # delivery policy: each retrieved chunk is delivered as its bounded parent of at most this
    # many characters (chunking/expand.py; 0 = the chunk itself). Not part of the chunk set's
    # hash: the chunks do not change, only what the evaluation and search deliver
    expand: int = 0
    enrich: EnrichSpec | None = None  # an enricher: a second, indexed representation of each chunk

    @property
    def chunker(self) -> Chunker:
        """What decides the chunks: all that chunking receives (a Chunker, not the set)."""
        return Chunker(**{f.name: getattr(self, f.name) for f in fields(Chunker)})

    @property
    def config_hash(self) -> str:
        """The chunk set's version: the chunking hash, and the enricher's version id when
        one is declared (equal to the chunking hash without an enricher)."""
        if self.enrich is None:
            return self.chunking_hash
        return stable_hash({"chunking": self.chunking_hash, "enrich": self.enrich.version_id}, n=8)

    @property
    def version_name(self) -> str:
        """Names the chunk set's version (enrichment, indexes, evaluation): changes whenever
        the output could change."""
        return f"{self.name}-{self.config_hash}"


class ChunkSetEntry(BaseModel):
    """One entry of ``chunk_sets`` in a chunkers file, as declared: the typed schema the
    file is validated against (strict types, no unknown keys) before it becomes a
    ChunkerConfig. ``params`` is kept as declared: the configuration hash reads it."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    name: str = Field(pattern=NAME_PATTERN)
    strategy: str
    params: dict[str, Any] | None = None
    header: bool = False
    context_fields: list[str] = Field(default_factory=lambda: ["title", "section"])
    dense: bool = True
    description: str = ""
    expand: int = Field(0, ge=0)       # characters of the delivered parent (0: the chunk itself)
    token_safe: bool = False
    enrich: Any = None                 # enrichment/model.py parse_enrich validates it

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str) -> str:
        if value not in STRATEGIES:
            raise ValueError(f"unknown strategy {value!r}; known: {sorted(STRATEGIES)}")
        return value

    def to_config(self, where: str) -> ChunkerConfig:
        """The configuration; ``where`` (file and chunk set) prefixes any parameter error."""
        params = dict(self.params or {})
        STRATEGIES[self.strategy].validate(params, where=where)
        return ChunkerConfig(
            name=self.name, strategy=self.strategy, params=params, header=self.header,
            context_fields=tuple(self.context_fields), dense=self.dense, description=self.description,
            expand=self.expand, token_safe=self.token_safe, enrich=parse_enrich(self.enrich, where))


def _entry_where(source: str, i: int, entry: Any) -> str:
    """Names an entry in messages: by its chunk-set name when it has a usable one."""
    name = entry.get("name") if isinstance(entry, dict) else None
    if isinstance(name, str) and _NAME.match(name):
        return f"{source}: chunk set {name!r}"
    return f"{source}: chunk_sets[{i}]"


def parse_entry(entry: Any, where: str) -> ChunkerConfig:
    """One ``chunk_sets`` entry -> its ChunkerConfig, or ValueError naming ``where`` and the field."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: expected a mapping, got {entry!r}")
    try:
        parsed = ChunkSetEntry.model_validate(entry)
    except ValidationError as exc:
        raise ValueError(describe_errors(exc, ChunkSetEntry, where)) from None
    return parsed.to_config(where)


def parse_chunker_configs(raw: Any, source: str = "chunkers.yaml") -> list[ChunkerConfig]:
    """Every chunk set of a chunkers file's content (``source``: the file, for messages)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("chunk_sets"), list):
        raise ValueError(f"{source}: expected a mapping with a 'chunk_sets' list")
    configs: list[ChunkerConfig] = []
    for i, entry in enumerate(raw["chunk_sets"]):
        where = _entry_where(source, i, entry)
        config = parse_entry(entry, where)
        if any(c.name == config.name for c in configs):
            raise ValueError(f"{source}: chunk_sets[{i}]: name: duplicate name {config.name!r}")
        configs.append(config)
    return configs


def load_chunker_configs(path: str | Path, _seen: tuple[Path, ...] = ()) -> list[ChunkerConfig]:
    """The chunk sets a chunkers file (data/chunkers.yaml) declares; ValueError naming the
    file, the chunk set and the field when it is not valid. ``include:`` (a file or a list of
    files, relative to this one) declares their chunk sets first, then this file's own
    (data/chunkers-peers.yaml: the default file and the peer grid); a name declared twice is
    an error."""
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"{path}: chunker config file not found") from exc
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc})") from exc
    included: list[ChunkerConfig] = []
    for name in _includes(raw, path):
        target = (path.parent / name).resolve()
        if target in _seen or target == path.resolve():
            raise ValueError(f"{path}: include: {name!r} includes itself")
        included += load_chunker_configs(target, (*_seen, path.resolve()))
    own = parse_chunker_configs(raw, source=str(path))
    taken = {c.name for c in included}
    for config in own:
        if config.name in taken:
            raise ValueError(f"{path}: chunk set {config.name!r}: name: duplicate name {config.name!r} "
                             f"(already declared by an included file)")
        taken.add(config.name)
    return included + own


def _includes(raw: Any, path: Path) -> list[str]:
    """The files a chunkers file's ``include:`` names (none without one)."""
    value = raw.get("include") if isinstance(raw, dict) else None
    if value is None:
        return []
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"{path}: include: expected a file name or a list of file names, got {value!r}")
    return names
