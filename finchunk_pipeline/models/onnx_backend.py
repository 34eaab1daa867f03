"""An ONNX Runtime encoder of the same sentence-transformers model (optional extra ``onnx``).

Two backends (backends.py):

- ``onnx``: the same weights exported to ONNX (fp32) and run by ONNX Runtime;
- ``onnx-int8``: that export with its MatMul weights quantised to int8 (dynamic,
  per channel).

Nothing is downloaded: the model is exported locally, once, from the folder the weights are
loaded from (the packaged all-MiniLM-L6-v2) with ``torch.onnx.export`` — the transformer plus
the model's pooling (mean over the attention mask) as one graph — and quantised with
``onnxruntime.quantization``. Exports live under ``<data>/models/<model id>/`` (written to a
temporary file, renamed into place; a lock keeps concurrent runs from exporting twice).
Tokenisation is the model's own ``tokenizer.json`` with the model's ``max_seq_length``
truncation and padding to the longest text of a batch, like sentence-transformers.

The vectors differ from torch's: fp32 by float rounding (cosine > 0.9999), int8 by
quantisation (cosine ~0.99). They are cached under their own model id
(``<model id>-onnx`` / ``-onnx-int8``), never mixed with torch's. Measured against torch
in the same run: ``bench/bench_embed.py --backends torch,onnx,onnx-int8`` (speed, cosine)
and retrieval recall on the dev sets (README).
"""
from __future__ import annotations

import json
import os
import uuid
import subprocess
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from .backends import VERSIONS, export_lock

EXPORT_VERSION = VERSIONS["onnx"]  # bump in backends.VERSIONS when the export (graph, opset, quantisation) changes


def available() -> bool:
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None and importlib.util.find_spec("onnx") is not None


def _max_seq_length(model_path: Path) -> int:
    f = model_path / "sentence_bert_config.json"
    if f.is_file():
        value = json.loads(f.read_text()).get("max_seq_length")
        if value:
            return int(value)
    return 512


def _check_pooling(model_path: Path) -> None:
    """The graph computes mean pooling: refuse a model that pools otherwise."""
    f = model_path / "1_Pooling" / "config.json"
    if f.is_file():
        cfg = json.loads(f.read_text())
        modes = {k for k, v in cfg.items() if k.startswith("pooling_mode") and v}
        if modes and modes != {"pooling_mode_mean_tokens"}:
            raise ValueError(f"{model_path}: the onnx backend exports mean pooling; this model pools by {sorted(modes)}")


def export(model_path: str | Path, out_dir: str | Path, int8: bool) -> Path:
    """The ONNX file for ``model_path`` (exported and, for int8, quantised once)."""
    model_path, out_dir = Path(model_path), Path(out_dir)
    name = "model-int8.onnx" if int8 else "model.onnx"
    target = out_dir / name
    if target.is_file():
        return target
    with export_lock(out_dir / ".export.lock"):
        if target.is_file():
            return target
        _check_pooling(model_path)  # refused here, by name, before a process is started
        # in a process of its own: tracing and quantising hold ~0.8 GB (the torch model, the
        # graph) that would otherwise stay in the run's process as its peak (bench_coldrun.py).
        # A plain interpreter running this module, not multiprocessing: spawn re-imports the
        # caller's __main__, which deadlocks on the lock held here when a script lacks its guard
        done = subprocess.run([sys.executable, "-m", __name__, str(model_path), str(out_dir), "1" if int8 else "0"],
                              capture_output=True, text=True)
        if done.returncode != 0 or not target.is_file():
            tail = (done.stderr or done.stdout).strip().splitlines()[-12:]
            raise RuntimeError(f"exporting {model_path} to ONNX{' int8' if int8 else ''} failed "
                               f"(exit {done.returncode}):\n" + "\n".join(tail))
    return target


def _write_export(model_path: str, out_dir: str, int8: bool) -> None:
    """``model.onnx`` and, for int8, ``model-int8.onnx`` under ``out_dir`` (each written to a
    temporary file and renamed into place)."""
    out = Path(out_dir)
    fp32 = out / "model.onnx"
    if not fp32.is_file():
        _export_fp32(Path(model_path), fp32)
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        tmp = out / f".model-int8.onnx.{uuid.uuid4().hex[:8]}.tmp"
        quantize_dynamic(str(fp32), str(tmp), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
        os.replace(tmp, out / "model-int8.onnx")


def _export_fp32(model_path: Path, target: Path) -> None:
    import warnings

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from transformers import AutoModel

    _check_pooling(model_path)
    model = AutoModel.from_pretrained(str(model_path)).eval()

    class Pooled(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.m(input_ids=input_ids, attention_mask=attention_mask,
                       token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(h.dtype)
            return (h * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    ids = torch.ones(2, 16, dtype=torch.long)
    tmp = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.tmp"
    axes = {0: "batch", 1: "seq"}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(Pooled(model), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["sentence_embedding"],
                          dynamic_axes={"input_ids": axes, "attention_mask": axes, "token_type_ids": axes,
                                        "sentence_embedding": {0: "batch"}},
                          opset_version=17, dynamo=False)
    os.replace(tmp, target)


class OnnxEncoder:
    """The subset of ``SentenceTransformer`` the Embedder uses: ``encode`` and the dimension."""

    def __init__(self, model_path: str | Path, out_dir: str | Path, int8: bool = False, threads: int = 0):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_path = Path(model_path)
        self.onnx_path = export(self.model_path, out_dir, int8)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or _threads()
        opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(self.onnx_path), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(self.model_path / "tokenizer.json"))
        self.max_seq_length = _max_seq_length(self.model_path)
        self.tokenizer.enable_truncation(self.max_seq_length)
        self.tokenizer.enable_padding()  # to the longest text of each batch
        self._dim: int | None = None

    def get_sentence_embedding_dimension(self) -> int:
        if self._dim is None:
            self._dim = int(self.encode(["dimension probe"]).shape[1])
        return self._dim

    def encode(self, sentences: Sequence[str], batch_size: int = 32, normalize_embeddings: bool = False,
               convert_to_numpy: bool = True, show_progress_bar: bool = False, **_) -> np.ndarray:
        texts = list(sentences)
        out = np.zeros((len(texts), self._dim or 0), dtype=np.float32) if not texts else None
        if out is not None:
            return out
        # longest first, like sentence-transformers: a batch holds similar lengths
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vecs: list[np.ndarray] = [None] * len(texts)  # type: ignore[list-item]
        for start in range(0, len(order), max(1, batch_size)):
            idx = order[start:start + batch_size]
            enc = self.tokenizer.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in enc], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": np.array([e.attention_mask for e in enc], dtype=np.int64)}
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
            emb = self.session.run(None, feed)[0]
            for i, v in zip(idx, emb):
                vecs[i] = v
        arr = np.stack(vecs).astype(np.float32, copy=False)
        self._dim = arr.shape[1]
        if normalize_embeddings:
            norms = np.linalg.norm(arr, axis=1, keepdims=True)
            norms[norms == 0] = 1.0
            arr = arr / norms
        return arr


def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


if __name__ == "__main__":  # export(): the export itself, in its own process
    _write_export(sys.argv[1], sys.argv[2], sys.argv[3] == "1")
