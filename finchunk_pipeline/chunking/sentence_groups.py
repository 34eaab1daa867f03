"""Consecutive sentences packed up to ``max_chars``, testing only the boundaries the packing reads.

A paragraph longer than its strategy's bound is cut into groups of whole sentences: a group
starts at a sentence and takes every following sentence while its end stays within
``max_chars`` of the group's start (a first sentence longer than that stays whole). The
packing reads one boundary per group — the last one within reach — yet splitting the whole
paragraph first tests every candidate (a period and whitespace: 58 K on financebench_dev for
19 K groups). Here the candidates within reach are tested from the last one backwards,
stopping at the first boundary.

Only the open parenthesis test depends on the boundary before a candidate (split_sentences
counts brackets since it). A candidate with every "(" between the last boundary known and
itself closed before it passes that test whatever lies between; otherwise the candidates in between are
tested in order first, as split_sentences does, so the previous boundary is exact.

``sentence_groups(text, start, end, max_chars)`` equals packing
``split_sentences(text, start, end)`` greedily (tests/unit/test_sentence_groups.py).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right, insort

from ..lang.current import current_language
from .sentence import _BLANK_LINE, boundary_candidates, candidate_passes, open_parenthesis, sentence_openers


class SentenceEnds:
    """The ends of split_sentences' ranges over ``text[start:end]``, candidates tested on demand."""

    def __init__(self, text: str, start: int, end: int, language: str | None = None):
        self.text, self.start = text, start
        self.language = language or current_language()
        self.openers = sentence_openers(self.language)
        self.matches = list(boundary_candidates(text, start, end))
        self.ends = [m.end() for m in self.matches]        # a boundary's sentence ends at its match's end
        self.state: list[bool | None] = [None] * len(self.matches)  # None: not tested yet
        self.trues: list[int] = []                          # indices of the boundaries found, sorted
        self.final = _rstrip(text, start, end)
        # a blank line always ends a sentence (at the last non-space before it), as does the range
        nl = text.find("\n", start, end)  # a blank line holds two: most paragraphs have none
        self.fixed = sorted({_rstrip(text, start, m.start()) for m in _BLANK_LINE.finditer(text, nl, end)
                             if start < m.start() < end} | {self.final}) if nl >= 0 else [self.final]

    def _is_boundary(self, i: int) -> bool:
        st = self.state[i]
        if st is not None:
            return st
        text, m = self.text, self.matches[i]
        ok = candidate_passes(text, m, self.start, self.language, self.openers)
        if ok:
            k = bisect_left(self.trues, i)
            pos = self.ends[self.trues[k - 1]] if k else self.start
            m_start = m.start()
            if text.find("(", pos, m_start) >= 0 and not _closed(text, pos, m_start):
                # the previous boundary decides: test the candidates since the last one known, in order
                for j in range(self.trues[k - 1] + 1 if k else 0, i):
                    sj = self.state[j]
                    if sj is None:
                        mj = self.matches[j]
                        sj = self.state[j] = (candidate_passes(text, mj, self.start, self.language, self.openers)
                                              and not open_parenthesis(text, pos, mj.start()))
                        if sj:
                            insort(self.trues, j)
                    if sj:
                        pos = self.ends[j]
                ok = not open_parenthesis(text, pos, m_start)
        self.state[i] = ok
        if ok:
            insort(self.trues, i)
        return ok

    def last_end(self, after: int, limit: int) -> int | None:
        """The largest sentence end in (after, limit], or None."""
        ends, fixed = self.ends, self.fixed
        k = bisect_right(fixed, limit)
        best = fixed[k - 1] if k and fixed[k - 1] > after else None
        floor = after if best is None else best
        for i in range(bisect_right(ends, limit) - 1, bisect_right(ends, floor) - 1, -1):
            if self._is_boundary(i):
                return ends[i]
        return best

    def first_end(self, after: int) -> int:
        """The smallest sentence end after ``after`` (< self.final)."""
        ends = self.ends
        f = self.fixed[bisect_right(self.fixed, after)]
        for i in range(bisect_right(ends, after), bisect_left(ends, f)):
            if self._is_boundary(i):
                return ends[i]
        return f


def _closed(text: str, lo: int, hi: int) -> bool:
    """Is every "(" in ``text[lo:hi]`` closed before ``hi``? Then no range ending at ``hi`` and
    starting in it holds more "(" than ")": the open parenthesis test passes from any start."""
    depth = 0  # ")" seen (right to left) not yet matched
    while True:
        o = text.rfind("(", lo, hi)
        c = text.rfind(")", lo, hi)
        if o < 0:
            return True
        if c > o:
            depth += 1
            hi = c
        elif depth == 0:
            return False
        else:
            depth -= 1
            hi = o


def _rstrip(text: str, lo: int, e: int) -> int:
    while e > lo and text[e - 1].isspace():
        e -= 1
    return e


def lstrip_at(text: str, s: int, hi: int) -> int:
    while s < hi and text[s].isspace():
        s += 1
    return s


def sentence_groups(text: str, start: int, end: int, max_chars: int,
                    language: str | None = None, first_max_chars: int | None = None) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` packed greedily: each group from a sentence's start to
    the last sentence end within ``max_chars`` of it (at least its first sentence);
    ``first_max_chars``: the first group's limit instead (room left beside what it carries)."""
    ends = SentenceEnds(text, start, end, language)
    final = ends.final
    g = lstrip_at(text, start, final)
    out: list[tuple[int, int]] = []
    limit = max_chars if first_max_chars is None else first_max_chars
    while g < final:
        e = ends.last_end(g, g + limit)
        if e is None:
            e = ends.first_end(g)
        out.append((g, e))
        g = lstrip_at(text, e, final)
        limit = max_chars
    return out
