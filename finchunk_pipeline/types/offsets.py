"""Map positions in a parser's clean text view back to the raw document.

Markdown and plain text are parsed in place: the view *is* the raw text and the map is the
identity. HTML is not: tags, hidden content and inline-XBRL wrappers are dropped, so the
parser records runs ``(view_pos, raw_pos, length)`` where view characters copy raw ones.
Characters the parser inserts (cell separators, blank lines between blocks) belong to no run.
"""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field


@dataclass
class OffsetMap:
    view_starts: list[int] = field(default_factory=list)
    raw_starts: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)

    @classmethod
    def identity(cls, length: int) -> "OffsetMap":
        return cls([0], [0], [length])

    @property
    def is_identity(self) -> bool:
        return len(self.lengths) == 1 and self.view_starts[0] == 0 and self.raw_starts[0] == 0

    def add(self, view_pos: int, raw_pos: int, length: int) -> None:
        """Append a run; consecutive runs that continue each other are merged."""
        if length <= 0:
            return
        if self.view_starts and view_pos < self.view_starts[-1] + self.lengths[-1]:
            raise ValueError("runs must be added in increasing view order")
        if (
            self.lengths
            and self.view_starts[-1] + self.lengths[-1] == view_pos
            and self.raw_starts[-1] + self.lengths[-1] == raw_pos
        ):
            self.lengths[-1] += length
            return
        self.view_starts.append(view_pos)
        self.raw_starts.append(raw_pos)
        self.lengths.append(length)

    def raw_start(self, i: int) -> int:
        """Raw position of view character i (or of the next mapped character)."""
        k = bisect_right(self.view_starts, i) - 1
        if k >= 0 and i < self.view_starts[k] + self.lengths[k]:
            return self.raw_starts[k] + (i - self.view_starts[k])
        k += 1
        if k < len(self.view_starts):
            return self.raw_starts[k]
        return self.raw_starts[-1] + self.lengths[-1] if self.lengths else 0

    def raw_end(self, j: int) -> int:
        """Raw end (exclusive) of the view range ending at j."""
        if j <= 0:
            return self.raw_starts[0] if self.raw_starts else 0
        i = j - 1
        k = bisect_right(self.view_starts, i) - 1
        if k < 0:
            return self.raw_starts[0] if self.raw_starts else 0
        if i < self.view_starts[k] + self.lengths[k]:
            return self.raw_starts[k] + (i - self.view_starts[k]) + 1
        return self.raw_starts[k] + self.lengths[k]

    def to_raw(self, start: int, end: int) -> tuple[int, int]:
        rs, re_ = self.raw_start(start), self.raw_end(end)
        return (rs, max(rs, re_))

    def to_view(self, raw_start: int, raw_end: int) -> tuple[int, int] | None:
        """The view range of the characters copied from raw[raw_start:raw_end] (first to last),
        or None when none of them reached the view (hidden, or markup only). Runs follow the
        raw text in order (every parser copies it front to back), so raw starts are sorted."""
        if raw_end <= raw_start or not self.lengths:
            return None
        rs, ls, vs = self.raw_starts, self.lengths, self.view_starts
        k = bisect_right(rs, raw_start) - 1
        if k < 0 or raw_start >= rs[k] + ls[k]:
            k += 1  # raw_start falls between runs: the next run is the first candidate
        if k >= len(rs) or rs[k] >= raw_end:
            return None
        first = vs[k] + max(0, raw_start - rs[k])
        j = bisect_right(rs, raw_end - 1) - 1
        last = vs[j] + min(ls[j], raw_end - rs[j])  # exclusive
        return (first, last)

    def to_dict(self) -> dict:
        return {"view_starts": self.view_starts, "raw_starts": self.raw_starts, "lengths": self.lengths}

    @classmethod
    def from_dict(cls, d: dict) -> "OffsetMap":
        return cls(list(d["view_starts"]), list(d["raw_starts"]), list(d["lengths"]))
