"""The chunk sets' version names name stored data: the typed options (pydantic) must leave
every one of them exactly as it was. The values below were computed with the code before
issue 14's refactor of chunking/config.py and chunking/strategy.py; the sets built on structure
(structure, auto, transcript and their configurations) renamed by structure's version 7 (issue
27: text held to max_chars), whose chunks change where a text piece was over its bound."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from finchunk_pipeline import ChunkerConfig, load_chunker_configs
from finchunk_pipeline.chunking.chunk_set import inputs_hash

ROOT = Path(__file__).resolve().parents[2]

# name: (chunking_hash, version_name, chunks_version_name); the two baselines on optional
# libraries are left out: their versions carry the installed library's version
DECLARED = {
    "fixed": ("a4840f0e", "fixed-a4840f0e", "fixed-a4840f0e"),
    "fixed-h": ("2b6fa45e", "fixed-h-2b6fa45e", "fixed-h-2b6fa45e"),
    "recursive": ("c06550eb", "recursive-c06550eb", "recursive-c06550eb"),
    "recursive-h": ("3d46f675", "recursive-h-3d46f675", "recursive-h-3d46f675"),
    "structure": ("8e9681d9", "structure-8e9681d9", "structure-8e9681d9"),
    "structure-h": ("34508d15", "structure-h-34508d15", "structure-h-34508d15"),
    "fixed-tokens": ("81d24402", "fixed-tokens-81d24402", "fixed-tokens-81d24402"),
    "sentence": ("63fd66fd", "sentence-63fd66fd", "sentence-63fd66fd"),
    "paragraph": ("45117f58", "paragraph-45117f58", "paragraph-45117f58"),
    "semantic": ("56118915", "semantic-56118915", "semantic-56118915"),
    "packed": ("8360f1c1", "packed-8360f1c1", "packed-8360f1c1"),
    "packed-h": ("a8fccc50", "packed-h-a8fccc50", "packed-h-a8fccc50"),
    "auto": ("b3cd3c9d", "auto-b3cd3c9d", "auto-b3cd3c9d"),
    "auto-h": ("0dea9a96", "auto-h-0dea9a96", "auto-h-0dea9a96"),
    "evidence": ("f4927f6a", "evidence-f4927f6a", "evidence-f4927f6a"),
    "evidence-lean": ("13e1cfe6", "evidence-lean-13e1cfe6", "evidence-lean-13e1cfe6"),
    "evidence-wide": ("f4927f6a", "evidence-wide-f4927f6a", "evidence-wide-f4927f6a"),
    "structure-e": ("8e9681d9", "structure-e-a7486282", "structure-e-8e9681d9"),
    "recursive-e": ("c06550eb", "recursive-e-b1ec2506", "recursive-e-c06550eb"),
}
OPTIONAL_LIBRARY = {"langchain-recursive", "chonkie-recursive", "langchain-1000", "langchain-1000-h", "semchunk-1000",
                    "semchunk-1000-h"}

# ChunkerConfig(f"t-{strategy}", strategy, header=..., token_safe=...).version_name
BUILT: dict[tuple[str, bool, bool], str] = {
    ("auto", False, False): "t-auto-8c5b8b2c", ("auto", False, True): "t-auto-dd5c047c",
    ("auto", True, False): "t-auto-8c472b22", ("auto", True, True): "t-auto-4a55716b",
    ("fixed", False, False): "t-fixed-5455b148", ("fixed", False, True): "t-fixed-275bde9b",
    ("fixed", True, False): "t-fixed-2a7cefbe", ("fixed", True, True): "t-fixed-87319bcd",
    ("fixed_tokens", False, False): "t-fixed_tokens-fac072cb", ("fixed_tokens", False, True): "t-fixed_tokens-8bd7fb82",
    ("fixed_tokens", True, False): "t-fixed_tokens-7d51e1a5", ("fixed_tokens", True, True): "t-fixed_tokens-d23d6750",
    ("packed", False, False): "t-packed-2784f320", ("packed", False, True): "t-packed-2e1f3521",
    ("packed", True, False): "t-packed-ed2c76e4", ("packed", True, True): "t-packed-43d3ceef",
    ("paragraph", False, False): "t-paragraph-24812703", ("paragraph", False, True): "t-paragraph-7c59cf3f",
    ("paragraph", True, False): "t-paragraph-c5291821", ("paragraph", True, True): "t-paragraph-0cf9384e",
    ("recursive", False, False): "t-recursive-9f6a4db5", ("recursive", False, True): "t-recursive-2ba58330",
    ("recursive", True, False): "t-recursive-6030372d", ("recursive", True, True): "t-recursive-f9bf4e36",
    ("semantic", False, False): "t-semantic-8aa10a8f", ("semantic", False, True): "t-semantic-cb7e183e",
    ("semantic", True, False): "t-semantic-410f73fb", ("semantic", True, True): "t-semantic-139a4740",
    ("sentence", False, False): "t-sentence-7635defe", ("sentence", False, True): "t-sentence-235fa82f",
    ("sentence", True, False): "t-sentence-66af3a26", ("sentence", True, True): "t-sentence-9eb1261c",
    ("structure", False, False): "t-structure-78124485", ("structure", False, True): "t-structure-a6218832",
    ("structure", True, False): "t-structure-84c241ac", ("structure", True, True): "t-structure-bd4273a3",
    ("transcript", False, False): "t-transcript-3b3b79f5", ("transcript", False, True): "t-transcript-81bf9ba3",
    ("transcript", True, False): "t-transcript-61290d2c", ("transcript", True, True): "t-transcript-93c3735e",
}


def test_every_declared_chunk_set_keeps_its_version_names(monkeypatch):
    monkeypatch.delenv("FINCHUNK_LLM_MODEL", raising=False)
    configs = {c.name: c for c in load_chunker_configs(ROOT / "data" / "chunkers.yaml")}
    assert set(configs) == set(DECLARED) | OPTIONAL_LIBRARY
    for name, expected in DECLARED.items():
        c = configs[name]
        assert (c.chunking_hash, c.version_name, c.chunks_version_name) == expected, name


@pytest.mark.parametrize("key", sorted(BUILT))
def test_configs_built_in_code_keep_their_version_names(key):
    strategy, header, token_safe = key
    assert ChunkerConfig(f"t-{strategy}", strategy, header=header, token_safe=token_safe).version_name == BUILT[key]


def test_inputs_hash_unchanged_for_the_default_tokenizer_and_backend():
    parsed = pd.DataFrame({"doc_id": ["a", "b"], "sha": ["s1", "s2"], "parser_key": ["html", "pdf"],
                           "title": ["T", None], "doc_type": ["10-k", "transcript"]})
    semantic, structure = ChunkerConfig("semantic", "semantic"), ChunkerConfig("structure", "structure", {"max_chars": 800})
    # semantic's cuts follow the vectors: its key names the backend. torch's keys are those
    # from before onnx-int8 became the default; the default's are its own
    assert inputs_hash(semantic.chunker, parsed, None, "torch") == "1858b56daf90"
    assert inputs_hash(semantic.chunker, parsed, "/m", "torch") == "26b3742832a0"
    assert inputs_hash(semantic.chunker, parsed, None) == "e8c4895ba976"  # onnx-int8
    assert inputs_hash(semantic.chunker, parsed, "/m") == "e789dffdf365"
    assert inputs_hash(structure.chunker, parsed, None) == "c7831b506259"  # structure 7 (issue 27); "be20fe2e49b9" at 6
    assert inputs_hash(structure.chunker, parsed, "/m") == "5d3e10c723e9"
