"""A static embedding model (model2vec) of the same sentence-transformers model: the ``static``
backend (backends.py; optional extra ``static``).

A static model keeps one vector per token of the model's vocabulary; a text's vector is the
mean of its tokens' vectors (normalised). No transformer runs at encode time, so it embeds
thousands of texts per second on one core where MiniLM embeds ~20-60, and it reads a whole
chunk (no 256-token cut: every token counts).

Nothing is downloaded:

- the model path names a sentence-transformers folder (the packaged all-MiniLM-L6-v2 by
  default): the static model is distilled from it locally, once, with model2vec's ``distill``
  (each vocabulary token passed through the transformer, PCA to 256 dimensions, Zipf
  weighting). The distilled folder is an artefact of its own under
  ``<data>/models/<model id>/static-e<version>/`` (written to a temporary folder and renamed
  into place; a lock keeps concurrent runs from distilling twice); ~15 s for MiniLM here;
- the model path names a model2vec folder (``config.json`` with ``model_type: model2vec``,
  e.g. one distilled elsewhere and copied onto this machine): it is used as it is.

Vectors are cached under their own model id (``<model id>-static-e<version>``), never mixed
with torch's. Measured against torch and ONNX in the same run: ``bench/bench_embed.py
--backends torch,onnx-int8,static`` (speed) and the dev sets' recall (docs/benchmarks/embeddings.md).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Sequence

import numpy as np

from .backends import VERSIONS, export_lock

DISTILL_VERSION = VERSIONS["static"]
PCA_DIMS = 256  # model2vec's default: the vectors' dimension after distillation


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("model2vec") is not None


def is_static_model(path: str | Path) -> bool:
    """Whether ``path`` is a model2vec folder (used as it is, not distilled)."""
    cfg = Path(path) / "config.json"
    if not cfg.is_file():
        return False
    try:
        return json.loads(cfg.read_text(encoding="utf-8")).get("model_type") == "model2vec"
    except (OSError, ValueError):
        return False


def distilled(model_path: str | Path, out_dir: str | Path) -> Path:
    """The static model folder for ``model_path``: the folder itself when it is a model2vec
    model, else the one distilled from it under ``out_dir`` (distilled once)."""
    model_path, out_dir = Path(model_path), Path(out_dir)
    if is_static_model(model_path):
        return model_path
    target = out_dir / f"static-e{DISTILL_VERSION}"
    if (target / "config.json").is_file():
        return target
    with export_lock(out_dir / ".export.lock"):
        if (target / "config.json").is_file():
            return target
        tmp = out_dir / f".static-e{DISTILL_VERSION}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            _distill(model_path, tmp)
            os.replace(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _distill(model_path: Path, out: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from model2vec.distill import distill

    hidden = _hidden_size(model_path)
    # no "Loading weights" / "Encoding tokens" progress bars in the run's logs (tqdm writes to stderr)
    with contextlib.redirect_stderr(io.StringIO()):
        model = distill(model_name=str(model_path), pca_dims=min(PCA_DIMS, hidden) if hidden else PCA_DIMS,
                        device="cpu")
    model.save_pretrained(str(out))


def _hidden_size(model_path: Path) -> int | None:
    cfg = model_path / "config.json"
    try:
        return int(json.loads(cfg.read_text(encoding="utf-8")).get("hidden_size") or 0) or None
    except (OSError, ValueError):
        return None


class StaticEncoder:
    """The subset of ``SentenceTransformer`` the Embedder uses: ``encode`` and the dimension."""

    def __init__(self, model_path: str | Path, out_dir: str | Path):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from model2vec import StaticModel

        self.folder = distilled(model_path, out_dir)
        # a local folder: from_pretrained reads it and downloads nothing; whole texts, no token cut
        self.model = StaticModel.from_pretrained(str(self.folder), max_length=None)

    def get_sentence_embedding_dimension(self) -> int:
        return int(self.model.dim)

    def encode(self, sentences: Sequence[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False, **_) -> np.ndarray:
        texts = list(sentences)
        if not texts:
            return np.zeros((0, self.get_sentence_embedding_dimension()), dtype=np.float32)
        # one process: the run's executor owns the cores; batches of 1,024 (model2vec's own)
        arr = np.asarray(self.model.encode(texts, batch_size=max(batch_size, 1024), use_multiprocessing=False,
                                           show_progress_bar=False), dtype=np.float32)
        if normalize_embeddings:
            norms = np.linalg.norm(arr, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            arr = arr / norms
        return arr
