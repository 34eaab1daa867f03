"""The model stack, below every stage: ``tokens`` (the token counter of the embedding model,
with the optional C word table ``_wordcount.c``), ``embed`` (the sentence embedder and its
cache of embeddings by text), ``backends`` (which encoder embeds: torch, ``onnx_backend``'s
ONNX export, ``static_backend``'s distilled static model). Chunking,
indexing and enrichment all count tokens and embed through here, none through another stage.
Heavy imports (sentence-transformers, onnxruntime, model2vec) stay inside the functions that need them."""
