"""Chunker configurations: the chunk-set names users declare in data/chunkers.yaml.

A configuration's hash covers its strategy, parameters, context settings and the strategy's
code version, so changing any of them yields a new chunk-set version. An optional enricher
(``enrich: {enricher: structural}``, see finchunk_pipeline/enrichment/) joins the hash too:
a new enricher is a new chunk-set version. The chunks themselves are stored under the
chunking-only version (``chunks_version_name``), so that version reuses them as they are.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..enrichment.model import EnrichSpec, parse_enrich
from ..storage import stable_hash

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


@dataclass(frozen=True)
class ChunkerConfig:
    name: str                      # partition key, e.g. "structure-h"
    strategy: str                  # a key of chunking.registry.STRATEGIES
    params: dict[str, Any] = field(default_factory=dict)
    header: bool = False           # prefix embedding_text with "Title > Section"
    context_fields: tuple[str, ...] = ("title", "section")  # what the header shows
    dense: bool = True             # build a dense (FAISS) index for this set
    description: str = ""
    # delivery policy: each retrieved chunk is delivered as its bounded parent of at most this
    # many characters (chunking/expand.py; 0 = the chunk itself). Not part of the chunk set's
    # hash: the chunks do not change, only what the evaluation and search deliver
    expand: int = 0
    enrich: EnrichSpec | None = None  # an enricher: a second, indexed representation of each chunk
    # no chunk over the embedding model's token limit: an over-limit chunk is split (at line
    # breaks, else whitespace) until it fits (chunking/token_bound.py)
    token_safe: bool = False

    def code_version(self) -> str:
        """The strategy's version and the shared chunk-building step's version."""
        from .context import BUILD_VERSION
        from .registry import strategy_version

        return f"{strategy_version(self.strategy)}.{BUILD_VERSION}"

    @property
    def chunking_hash(self) -> str:
        """Hash of what decides the chunks (the enricher aside)."""
        key = {"strategy": self.strategy, "params": self.params, "header": self.header,
               "context_fields": list(self.context_fields), "code": self.code_version()}
        if self.token_safe:  # only when set: the hashes of other chunk sets stay as they were
            from .token_bound import TOKEN_BOUND_VERSION

            key["token_safe"] = TOKEN_BOUND_VERSION
        return stable_hash(key, n=8)

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

    @property
    def chunks_version_name(self) -> str:
        """Names the stored chunks: the chunking-only version, shared by every enricher."""
        return f"{self.name}-{self.chunking_hash}"


def parse_chunker_configs(raw: Any, source: str = "chunkers.yaml") -> list[ChunkerConfig]:
    from .registry import STRATEGIES

    if not isinstance(raw, dict) or not isinstance(raw.get("chunk_sets"), list):
        raise ValueError(f"{source}: expected a mapping with a 'chunk_sets' list")
    configs, seen = [], set()
    for i, entry in enumerate(raw["chunk_sets"]):
        where = f"{source}: chunk_sets[{i}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected a mapping")
        name = entry.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise ValueError(f"{where}: name {name!r} must match {_NAME.pattern}")
        if name in seen:
            raise ValueError(f"{where}: duplicate name {name!r}")
        seen.add(name)
        strategy = entry.get("strategy")
        if strategy not in STRATEGIES:
            raise ValueError(f"{where} ({name}): unknown strategy {strategy!r}; known: {sorted(STRATEGIES)}")
        params = dict(entry.get("params") or {})
        STRATEGIES[strategy].validate(params, where=f"{where} ({name})")
        token_safe = entry.get("token_safe", False)
        if not isinstance(token_safe, bool):
            raise ValueError(f"{where} ({name}): token_safe must be true or false, got {token_safe!r}")
        expand = entry.get("expand", 0)
        if not isinstance(expand, int) or isinstance(expand, bool) or expand < 0:
            raise ValueError(f"{where} ({name}): expand must be a whole number of characters >= 0, got {expand!r}")
        configs.append(ChunkerConfig(
            name=name, strategy=strategy, params=params, header=bool(entry.get("header", False)),
            context_fields=tuple(entry.get("context_fields", ("title", "section"))),
            dense=bool(entry.get("dense", True)), description=str(entry.get("description", "")),
            expand=expand, token_safe=token_safe,
            enrich=parse_enrich(entry.get("enrich"), f"{where} ({name})"),
        ))
    return configs


def load_chunker_configs(path: str | Path) -> list[ChunkerConfig]:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ValueError(f"{path}: chunker config file not found") from exc
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: not valid YAML ({exc})") from exc
    return parse_chunker_configs(raw, source=str(path))
