"""Which encoder embeds chunk, sentence and query texts: the embedding backend.

The backend (``Embedder(backend=...)``; the run's ``Settings.embed_backend``, read from
``FINCHUNK_EMBED_BACKEND`` by settings.py) is one of:

- ``onnx-int8`` (default): the model exported locally to ONNX Runtime with int8 MatMul
  weights (onnx_backend.py);
- ``onnx``: the same export in fp32;
- ``torch``: sentence-transformers on torch, the reference;
- ``static``: a static embedding model (model2vec) distilled locally from the same model, or
  the model2vec folder the model path names (static_backend.py; extra ``static``).

Why ``onnx-int8`` is the default (docs/benchmarks/embeddings.md, bench/bench_embeddings.py):
on the dev sets it embeds 1.6-2.2x the texts per second of torch on the same texts in the
same run, and its dense and hybrid recall at equal budget are torch's within a point
(dense -0.9 to +2.3, hybrid +0.0 to +0.9 points over six cells). ``static`` embeds 100-175x
faster but loses 15-40 points of dense recall and up to 26 of hybrid: it is there for speed
where that loss is acceptable, not as a default.

Each backend but torch has its own model id (``<model id>-<backend>-e<version>``) and so its
own embedding cache and index keys: vectors of two backends are never mixed.
"""
from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

BACKENDS = ("torch", "onnx", "onnx-int8", "static")
DEFAULT_BACKEND = "onnx-int8"  # the module docstring says why

# bump a backend's version when what it computes changes (export graph, quantisation, distillation)
VERSIONS = {"onnx": "1", "onnx-int8": "1", "static": "1"}


def check_backend(value: str | None) -> str:
    """The embedding backend ``value`` names (None or "" = DEFAULT_BACKEND), lower-cased and checked."""
    b = (value or DEFAULT_BACKEND).strip().lower() or DEFAULT_BACKEND
    if b not in BACKENDS:
        raise ValueError(f"embed_backend / FINCHUNK_EMBED_BACKEND={b!r}: unknown embedding backend; "
                         f"known: {', '.join(BACKENDS)}")
    return b


def default_backend(value: str | None = None) -> str:
    """``value`` checked, or when it is None / "" the backend of the run's Settings (which read
    FINCHUNK_EMBED_BACKEND once): for callers that do not pass a backend."""
    if value:
        return check_backend(value)
    from ..settings import Settings

    return check_backend(Settings().embed_backend)


def backend_model_id(base_model_id: str, backend: str) -> str:
    """The model id of ``backend``'s vectors of the model ``base_model_id``."""
    return base_model_id if backend == "torch" else f"{base_model_id}-{backend}-e{VERSIONS[backend]}"


@contextmanager
def export_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` while a backend builds its local artefact (an ONNX
    export, a distilled model): concurrent runs build it once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)

