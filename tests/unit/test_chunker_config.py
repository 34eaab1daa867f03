"""Config hashes name what a configuration produces: they change exactly when the output can."""
from __future__ import annotations

import pytest

from finchunk_pipeline import ChunkerConfig, parse_chunker_configs
from finchunk_pipeline import STRATEGIES


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
    with pytest.raises(ValueError, match=r"chunk set 'x': strategy: unknown strategy 'nope'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "nope"}]})
    with pytest.raises(ValueError, match="unknown parameter 'size' for strategy 'structure'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "structure", "params": {"size": 3}}]})
    with pytest.raises(ValueError, match="duplicate name 'x'"):
        parse_chunker_configs({"chunk_sets": [{"name": "x", "strategy": "fixed"}, {"name": "x", "strategy": "fixed"}]})
    with pytest.raises(ValueError, match=r"chunk_sets\[0\]: name: expected a string matching .*, got 'Bad Name'"):
        parse_chunker_configs({"chunk_sets": [{"name": "Bad Name", "strategy": "fixed"}]})


def test_messages_name_file_entry_and_field():
    """Typed options (pydantic): one line naming the file, the chunk set and the field."""
    def error(entry: dict) -> str:
        with pytest.raises(ValueError) as err:
            parse_chunker_configs({"chunk_sets": [entry]}, source="data/chunkers.yaml")
        return str(err.value)

    assert error({"name": "structure-h", "strategy": "structure", "params": {"max_chars": "abc"}}) == \
        "data/chunkers.yaml: chunk set 'structure-h': params.max_chars: expected an integer > 0, got 'abc'"
    assert error({"name": "s", "strategy": "sentence", "params": {"n": 3, "overlap": 3}}) == \
        "data/chunkers.yaml: chunk set 's': params.overlap: expected >= 0 and < n (3), got 3"
    assert error({"name": "s", "strategy": "fixed", "token_safe": "yes"}) == \
        "data/chunkers.yaml: chunk set 's': token_safe: expected true or false, got 'yes'"
    assert error({"name": "s", "strategy": "fixed", "expand": -1}) == \
        "data/chunkers.yaml: chunk set 's': expand: expected an integer >= 0, got -1"
    assert error({"name": "s", "strategy": "fixed", "params": {"size": True}}).endswith(
        "params.size: expected an integer > 0, got True")
    # a misspelt key is an error, not silently ignored
    assert "chunk set 's': unknown field 'heder'; accepted: [" in error({"name": "s", "strategy": "fixed", "heder": True})


def test_load_names_the_file(tmp_path):
    from finchunk_pipeline import load_chunker_configs

    path = tmp_path / "chunkers.yaml"
    path.write_text("chunk_sets:\n  - {name: p, strategy: paragraph, params: {min_chars: 900, max_chars: 500}}\n")
    with pytest.raises(ValueError, match=rf"^{path}: chunk set 'p': params.min_chars: expected between 0 and max_chars"):
        load_chunker_configs(path)


def test_chunking_receives_the_chunker_not_the_declared_chunk_set():
    """A declared chunk set (enricher, dense index, delivery) hands chunking its Chunker only."""
    from finchunk_pipeline import Chunker, chunk_document, select_parser

    config = ChunkerConfig("s", "structure", {"max_chars": 800}, header=True, expand=2000, dense=False)
    assert config.chunker == Chunker("s", "structure", {"max_chars": 800}, header=True)
    assert config.chunks_version_name == config.chunker.chunks_version_name
    doc = select_parser("annual_report", "markdown").fn("d", "# Title\n\nSome text.\n", {})
    assert chunk_document(config.chunker, doc, {"title": "d"})
    with pytest.raises(TypeError, match="takes a Chunker"):
        chunk_document(config, doc, {"title": "d"})
