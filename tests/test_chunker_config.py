"""Config hashes name what a configuration produces: they change exactly when the output can."""
from __future__ import annotations

import pytest

from finchunk_pipeline.chunking.config import ChunkerConfig, parse_chunker_configs
from finchunk_pipeline.chunking.registry import STRATEGIES


def test_hash_ignores_parameter_order_and_follows_parameters():
    a = ChunkerConfig("s", "structure", {"max_chars": 800, "attach_notes": True})
    b = ChunkerConfig("s", "structure", {"attach_notes": True, "max_chars": 800})
    c = ChunkerConfig("s", "structure", {"attach_notes": True, "max_chars": 600})
    assert a.config_hash == b.config_hash != c.config_hash
    assert ChunkerConfig("s", "structure", header=True).config_hash != ChunkerConfig("s", "structure").config_hash
    assert a.version_name == f"s-{a.config_hash}"


def test_hash_follows_strategy_versions_including_delegates(monkeypatch):
    auto, structure = ChunkerConfig("a", "auto"), ChunkerConfig("s", "structure")
    before = (auto.config_hash, structure.config_hash)
    monkeypatch.setattr(type(STRATEGIES["structure"]), "version", "999")
    assert structure.config_hash != before[1]
    assert auto.config_hash != before[0], "auto delegates to structure: its chunks change with it"


def test_invalid_configs_name_entry_and_problem():
    with pytest.raises(ValueError, match=r"chunk_sets\[0\] \(x\): unknown strategy 'nope'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "nope"}]})
    with pytest.raises(ValueError, match="unknown parameter 'size' for strategy 'structure'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "structure", "params": {"size": 3}}]})
    with pytest.raises(ValueError, match="duplicate name 'x'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "fixed"}, {"name": "x", "strategy": "fixed"}]})
    with pytest.raises(ValueError, match="name 'Bad Name'"):
        parse_chunker_configs({"chunk_sets": [{"name": "Bad Name", "strategy": "fixed"}]})
