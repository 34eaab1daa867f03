"""Notes a chunk-set build collects: what a strategy or the shared step did that a user
should know (pieces cut by characters to respect the size bound, tables semantic chunking
did not embed, ...). ``build_chunk_set`` opens a collector; code anywhere below it calls
``note(...)``; the counts and a few example documents go into the chunk set's manifest."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Iterator

MAX_EXAMPLES = 5


@dataclass
class Notes:
    counts: dict[str, int] = field(default_factory=dict)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, key: str, n: int = 1, example: str | None = None) -> None:
        self.counts[key] = self.counts.get(key, 0) + n
        ex = self.examples.setdefault(key, [])
        if example is not None and example not in ex and len(ex) < MAX_EXAMPLES:
            ex.append(example)

    def as_dict(self) -> dict[str, dict]:
        return {k: {"count": n, "examples": self.examples.get(k, [])} for k, n in sorted(self.counts.items())}


_current: ContextVar[Notes | None] = ContextVar("finchunk_chunking_notes", default=None)


@contextmanager
def collecting() -> Iterator[Notes]:
    notes = Notes()
    token = _current.set(notes)
    try:
        yield notes
    finally:
        _current.reset(token)


def note(key: str, n: int = 1, example: str | None = None) -> None:
    """Record ``n`` occurrences of ``key`` (e.g. a document id as ``example``); a no-op when
    nothing collects."""
    notes = _current.get()
    if notes is not None and n:
        notes.add(key, n, example)
