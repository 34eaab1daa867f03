"""The evaluation corpus: its format, loading and validation, and the synthetic generator."""
from .loader import Corpus, CorpusError, load_corpus

__all__ = ["Corpus", "CorpusError", "load_corpus"]
