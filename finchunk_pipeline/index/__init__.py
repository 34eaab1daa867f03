"""Indexes over chunk sets: BM25 (lexical), dense (FAISS) and hybrid."""
