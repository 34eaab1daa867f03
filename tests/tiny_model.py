"""A tiny sentence-transformers model folder for tests: a one-layer BERT with MiniLM's
tokenizer and mean pooling. Loading, encoding and distilling it (its 30k-token vocabulary
through a 32-wide layer) cost about a hundredth of MiniLM."""
from __future__ import annotations

import shutil
from pathlib import Path


def tiny_model(folder: Path, hidden: int = 32, seed: int = 0) -> Path:
    """Write the model to ``folder`` (random weights from ``seed``) and return it."""
    import torch
    from transformers import BertConfig, BertModel

    from finchunk_pipeline.models.tokens import default_model_path

    src = Path(default_model_path())
    folder.mkdir(parents=True)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json", "modules.json",
                 "sentence_bert_config.json"):
        shutil.copy(src / name, folder / name)
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text(
        f'{{"word_embedding_dimension": {hidden}, "pooling_mode_mean_tokens": true}}')
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=2 * hidden)
    BertModel(config).save_pretrained(str(folder))
    return folder
