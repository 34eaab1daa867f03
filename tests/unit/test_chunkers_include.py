"""Chunkers files that include others (data/chunkers-peers.yaml: the default file and the peer
grid): included chunk sets first, duplicates and cycles refused with the file named."""
from __future__ import annotations

import pytest

from finchunk_pipeline import load_chunker_configs
from finchunk_pipeline import STRATEGIES
from finchunk_pipeline import PROJECT_ROOT

BASE = "chunk_sets:\n  - {name: fixed, strategy: fixed}\n  - {name: recursive, strategy: recursive}\n"


def test_include_declares_the_included_sets_first(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "more.yaml").write_text("include: base.yaml\nchunk_sets:\n  - {name: semchunk-1000, strategy: "
                                        "semchunk, params: {size: 1000}}\n")
    assert [c.name for c in load_chunker_configs(tmp_path / "more.yaml")] == ["fixed", "recursive", "semchunk-1000"]


def test_a_name_declared_twice_across_files_is_an_error(tmp_path):
    (tmp_path / "base.yaml").write_text(BASE)
    (tmp_path / "more.yaml").write_text("include: [base.yaml]\nchunk_sets:\n  - {name: fixed, strategy: fixed}\n")
    with pytest.raises(ValueError, match=r"more.yaml: chunk set 'fixed': name: duplicate name 'fixed'"):
        load_chunker_configs(tmp_path / "more.yaml")


def test_an_include_cycle_or_a_bad_include_is_an_error(tmp_path):
    (tmp_path / "a.yaml").write_text("include: b.yaml\nchunk_sets: []\n")
    (tmp_path / "b.yaml").write_text("include: a.yaml\nchunk_sets: []\n")
    with pytest.raises(ValueError, match="includes itself"):
        load_chunker_configs(tmp_path / "a.yaml")
    (tmp_path / "c.yaml").write_text("include: 3\nchunk_sets: []\n")
    with pytest.raises(ValueError, match=r"c.yaml: include: expected a file name"):
        load_chunker_configs(tmp_path / "c.yaml")
    (tmp_path / "d.yaml").write_text("include: missing.yaml\nchunk_sets: []\n")
    with pytest.raises(ValueError, match="missing.yaml: chunker config file not found"):
        load_chunker_configs(tmp_path / "d.yaml")


def test_the_peer_grid_file():
    """data/chunkers-peers.yaml: every set of data/chunkers.yaml, then plain peers of every
    library at three sizes, each with and without the context header."""
    default = [c.name for c in load_chunker_configs(PROJECT_ROOT / "data" / "chunkers.yaml")]
    grid = load_chunker_configs(PROJECT_ROOT / "data" / "chunkers-peers.yaml")
    assert [c.name for c in grid][:len(default)] == default
    peers = grid[len(default):]
    assert {STRATEGIES[c.strategy].family for c in peers} == {"plain"}
    strategies = {c.strategy for c in peers}
    assert strategies >= {"langchain_recursive", "chonkie_recursive", "semchunk", "text_splitter",
                          "markdown_splitter", "llamaindex_sentence", "llamaindex_markdown"}
    by_name = {c.name: c for c in grid}
    for c in peers:  # each with its header twin (or its header-less twin)
        twin = c.name[:-2] if c.header else f"{c.name}-h"
        assert twin in by_name and by_name[twin].params == c.params and by_name[twin].header != c.header
    sizes = {(c.strategy, c.params.get("size")) for c in grid if STRATEGIES[c.strategy].family == "plain"}
    for s in strategies:
        assert len({size for strategy, size in sizes if strategy == s}) >= 3, s
