"""README "Add a strategy", kept honest: a toy strategy defined here (its pydantic Params,
its pieces) is registered through the registry and built into a chunk set, once from code
(build_chunk_set) and once from a chunkers YAML file naming it; it receives the run's
ChunkingContext."""
from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from pydantic import Field

from finchunk_pipeline import ChunkerConfig, load_chunker_configs
from finchunk_pipeline.chunking.context import Piece
from finchunk_pipeline.chunking.options import StrategyParams
from finchunk_pipeline.chunking.registry import register, unregister
from finchunk_pipeline import STRATEGIES, build_chunk_set
from finchunk_pipeline import ChunkStore
from finchunk_pipeline import Strategy
from finchunk_pipeline.chunking.strategy_context import DEFAULT_EMBED_BACKEND, ChunkingContext
from finchunk_pipeline.parse import markdown
from finchunk_pipeline import BlockKind, ParsedDocument
from finchunk_pipeline import BlockStore

TEXT = "# Results\n\nRevenue grew to 120 million.\n\nMargins held.\n\n## Outlook\n\nWe expect growth.\n"


class OneBlockParams(StrategyParams):
    """The toy's parameters: typed, with defaults and bounds (chunking/options.py)."""

    max_chars: int = Field(400, gt=0)
    skip_headings: bool = True


class OneBlock(Strategy):
    """Each block (headings skipped) is one chunk: the smallest useful strategy."""

    name = "toy_one_block"
    version = "1"
    Params = OneBlockParams
    bound_param = "max_chars"
    seen: list[ChunkingContext | None] = []

    def pieces(self, doc: ParsedDocument, params: dict[str, Any], meta: dict[str, Any],
               context: ChunkingContext | None = None) -> list[Piece]:
        OneBlock.seen.append(context)
        p = self.resolve(params)
        return [Piece([(b.vstart, b.vend)], "text", b.section_path, None, [b.block_id]) for b in doc.blocks
                if not (p.skip_headings and b.kind == BlockKind.HEADING) and b.vend > b.vstart]


@pytest.fixture
def toy():
    OneBlock.seen.clear()
    register(OneBlock())
    yield OneBlock
    unregister(OneBlock.name)


@pytest.fixture
def stores(tmp_path):
    blocks = BlockStore(tmp_path / "blocks")
    doc = markdown.parse("d1", TEXT, {})
    doc.doc_sha = "b" * 64
    blocks.write("markdown-test", doc)
    parsed = pd.DataFrame([{"doc_id": "d1", "sha": doc.doc_sha, "parser_key": "markdown-test", "title": "Toy"}])
    return blocks, ChunkStore(tmp_path / "chunks"), parsed


def test_registered_strategy_builds_from_code(toy, stores):
    blocks, chunks, parsed = stores
    config = ChunkerConfig("toy", toy.name, {"max_chars": 200})
    result = build_chunk_set(config.chunker, parsed, blocks, chunks, None)
    assert result.built and result.manifest["documents"] == 1
    texts = list(chunks.read(result.version_name, columns=["source_text"])["source_text"])
    assert texts == ["Revenue grew to 120 million.", "Margins held.", "We expect growth."]
    assert result.manifest["char_bound"] == 200
    context = toy.seen[0]  # the run's context: model, token counter, embedding backend
    assert isinstance(context, ChunkingContext) and context.embed_backend == DEFAULT_EMBED_BACKEND == "onnx-int8"
    assert context.counter.max_tokens > 0


def test_registered_strategy_loads_from_a_chunkers_file(toy, stores, tmp_path):
    blocks, chunks, parsed = stores
    path = tmp_path / "chunkers.yaml"
    path.write_text("chunk_sets:\n"
                    "  - name: toy-h\n    strategy: toy_one_block\n    params: {skip_headings: false}\n"
                    "    header: true\n", encoding="utf-8")
    config, = load_chunker_configs(path)
    assert (config.strategy, config.params, config.header) == ("toy_one_block", {"skip_headings": False}, True)
    result = build_chunk_set(config.chunker, parsed, blocks, chunks, None)
    assert result.manifest["chunks"] == 5  # headings kept this time

    path.write_text("chunk_sets:\n  - {name: toy, strategy: toy_one_block, params: {max_chars: 0}}\n")
    with pytest.raises(ValueError, match=r"chunk set 'toy': params.max_chars: expected an integer > 0, got 0"):
        load_chunker_configs(path)


def test_a_taken_name_is_refused(toy):
    with pytest.raises(ValueError, match="already registered"):
        register(OneBlock())


def test_a_strategy_without_the_context_parameter_is_refused_when_registered():
    """Every strategy is called alike, ``pieces(doc, params, meta, context=...)``: one whose
    ``pieces`` leaves the context out is refused when registered, naming it — not at the
    first document of a run."""
    class Whole(Strategy):
        name = "toy_whole"

        def pieces(self, doc, params, meta):
            return [Piece([(0, len(doc.view_text))], "text", ())]

    with pytest.raises(TypeError, match=r"strategy 'toy_whole': pieces\(\) must take a context parameter"):
        register(Whole())
    assert "toy_whole" not in STRATEGIES


def test_a_strategy_that_needs_no_model_takes_the_context_and_ignores_it(stores):
    class Whole(Strategy):
        name = "toy_whole"

        def pieces(self, doc, params, meta, context=None):
            return [Piece([(0, len(doc.view_text))], "text", ())]

    blocks, chunks, parsed = stores
    register(Whole())
    try:
        result = build_chunk_set(ChunkerConfig("whole", "toy_whole").chunker, parsed, blocks, chunks, None)
    finally:
        unregister("toy_whole")
    assert result.manifest["chunks"] == 1
