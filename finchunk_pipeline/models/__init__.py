"""The model stack, below every stage: ``tokens`` (the token counter of the embedding model,
with the optional C word table ``_wordcount.c``), ``embed`` (the sentence embedder and its
cache of embeddings by text) and ``onnx_backend`` (the embedder exported to ONNX). Chunking,
indexing and enrichment all count tokens and embed through here, none through another stage.
Heavy imports (sentence-transformers, onnxruntime) stay inside the functions that need them."""
