"""Off-the-shelf baselines scored on the same gold: LangChain's RecursiveCharacterTextSplitter
(add_start_index=True) and chonkie's TokenChunker, over each document's raw text.

Optional extra ``baselines`` (pip install -e '.[baselines]'): imports are guarded, and
``available()`` lists what is installed; missing libraries are skipped, never an error.
Each baseline chunk maps to one raw span [start, start + len(text)) (LangChain: the
``start_index`` metadata; chonkie: ``start_index`` / ``end_index``); the result is a chunk
table (doc_id, spans, embedding_text, source_text) that ``evaluate_retriever`` scores with
BM25 exactly like a pipeline chunk set.
"""
from __future__ import annotations

import pandas as pd


def _langchain(texts: dict[str, str], size: int, overlap: int):
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
    for doc_id, text in texts.items():
        for d in splitter.create_documents([text]):
            start = int(d.metadata["start_index"])
            if start >= 0:
                yield doc_id, start, start + len(d.page_content), d.page_content


def _chonkie(texts: dict[str, str], size: int, overlap: int):
    from chonkie import TokenChunker

    chunker = TokenChunker(chunk_size=max(1, size // 4), chunk_overlap=max(0, overlap // 4))
    for doc_id, text in texts.items():
        for c in chunker.chunk(text):
            yield doc_id, int(c.start_index), int(c.end_index), c.text


BASELINES = {"langchain-recursive": ("langchain_text_splitters", _langchain),
             "chonkie-token": ("chonkie", _chonkie)}


def available() -> list[str]:
    import importlib.util

    return [n for n, (mod, _) in BASELINES.items() if importlib.util.find_spec(mod) is not None]


def baseline_chunks(name: str, documents: pd.DataFrame, size: int = 500, overlap: int = 50) -> pd.DataFrame:
    _, fn = BASELINES[name]
    rows = [{"chunk_id": f"{d}#b{i:05d}", "doc_id": d, "spans": [{"start": s, "end": e}],
             "embedding_text": t, "source_text": t}
            for i, (d, s, e, t) in enumerate(fn(dict(zip(documents["doc_id"], documents["text"])), size, overlap))]
    return pd.DataFrame(rows, columns=["chunk_id", "doc_id", "spans", "embedding_text", "source_text"])


def evaluate_baselines(corpus, size: int = 500, overlap: int = 50, modes=("global", "filtered")) -> list[dict]:
    """Report entries (same schema as the chunk sets) for every installed baseline."""
    from ..index.retriever import BM25Retriever
    from .retrieval import evaluate_retriever

    entries = []
    for name in available():
        chunks = baseline_chunks(name, corpus.documents, size, overlap)
        retriever = BM25Retriever.build(chunks["embedding_text"].tolist())
        n_chars = chunks["embedding_text"].str.len()
        base = {"name": name, "strategy": f"baseline:{name}", "params": {"size": size, "overlap": overlap},
                "header": False, "chunks": len(chunks), "mean_chars": float(n_chars.mean()) if len(chunks) else 0.0,
                "duplication": float(n_chars.sum() / max(1, corpus.documents["text"].str.len().sum()))}
        for mode in modes:
            entries.append({**base, **evaluate_retriever(retriever, chunks, corpus.passages, corpus.questions,
                                                         mode).summary()})
    return entries
