"""Builders that write a document and its canonical passages at the same time.

Every passage is recorded while its text is appended, so spans are exact by
construction: ``text[start:end]`` is the unit itself, never with the surrounding
newlines. Conventions (shared by every document class):

* Markdown / plain text: blocks are separated by one blank line ("\\n\\n"); the
  document ends with a single "\\n". One passage per heading line (``heading``),
  paragraph (``text``), footnote paragraph (``note``), bulleted list block
  (``list``), transcript turn (``turn``, may span several paragraphs), and one
  ``table_row`` passage per pipe-table row. The header row passage also covers the
  ``|---|`` separator line below it (the two lines form the Markdown header).
* HTML: one passage per ``<h1>``-``<h3>`` element (``heading``), ``<p>``
  (``text``, or ``note`` for footnotes ``<p class="footnote"><sup>1</sup> ...</p>``),
  ``<ul>`` (``list``) and ``<tr>`` (``table_row``, header rows included); each
  span covers the whole element, tags included. ``<html>``, ``<body>``, ``<table>``
  wrappers and the newlines between elements belong to no passage.
* ``section`` is the heading path (heading texts, outermost first) joined by " > ".
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"


def sup(n: int) -> str:
    """Unicode superscript mark for footnote number n (1 -> '¹', 12 -> '¹²')."""
    return "".join(SUPERSCRIPTS[int(c)] for c in str(n))


def money(tenths: int) -> str:
    """An amount held as an integer number of tenths, printed '1,234.5'."""
    return f"{tenths / 10:,.1f}"


def pct(x: float, digits: int = 1) -> str:
    return f"{x:.{digits}f}%"


def utc(y: int, m: int, d: int, hh: int = 0, mm: int = 0) -> dt.datetime:
    return dt.datetime(y, m, d, hh, mm, tzinfo=dt.timezone.utc)


def add_months(d: dt.date, months: int) -> dt.date:
    """Month-end arithmetic: the last day of the month `months` after d's month."""
    y, m = divmod(d.month - 1 + months, 12)
    y += d.year
    m += 1
    nxt = dt.date(y + (m == 12), m % 12 + 1, 1)
    return nxt - dt.timedelta(days=1)


def long_date(d: dt.date) -> str:
    return f"{d.strftime('%B')} {d.day}, {d.year}"


@dataclass
class Passage:
    passage_id: str
    doc_id: str
    section: str
    kind: str
    start: int
    end: int


@dataclass
class Question:
    question: str
    question_type: str
    doc_ids: list[str]
    gold_passages: list[str]
    answer: str | None
    as_of: dt.date | None = None


@dataclass
class Doc:
    """A finished document: its row for documents.parquet, passages and questions."""
    row: dict
    passages: list[Passage]
    questions: list[Question] = field(default_factory=list)

    @property
    def doc_id(self) -> str:
        return self.row["doc_id"]

    @property
    def text(self) -> str:
        return self.row["text"]

    def passage_text(self, pid: str) -> str:
        p = self._index()[pid]
        return self.text[p.start:p.end]

    def _index(self) -> dict[str, Passage]:
        idx = getattr(self, "_idx", None)
        if idx is None:
            idx = {p.passage_id: p for p in self.passages}
            self._idx = idx
        return idx


class _Base:
    def __init__(self, doc_id: str):
        self.doc_id = doc_id
        self.parts: list[str] = []
        self.pos = 0
        self.passages: list[Passage] = []
        self.path: list[tuple[int, str]] = []
        self._texts: dict[str, str] = {}

    @property
    def section(self) -> str:
        return " > ".join(t for _, t in self.path)

    def _emit(self, s: str) -> None:
        self.parts.append(s)
        self.pos += len(s)

    def _passage(self, s: str, kind: str) -> str:
        assert s and s == s.strip(), repr(s[:40])
        start = self.pos
        self._emit(s)
        pid = f"{self.doc_id}#p{len(self.passages):04d}"
        self.passages.append(Passage(pid, self.doc_id, self.section, kind, start, self.pos))
        self._texts[pid] = s
        return pid

    def _push(self, level: int, text: str) -> None:
        while self.path and self.path[-1][0] >= level:
            self.path.pop()
        self.path.append((level, text))

    def get(self, pid: str) -> str:
        return self._texts[pid]


class BlockBuilder(_Base):
    """Markdown (``markdown=True``) or plain text; blocks separated by a blank line."""

    def __init__(self, doc_id: str, markdown: bool = True):
        super().__init__(doc_id)
        self.markdown = markdown

    def _block(self, s: str, kind: str) -> str:
        if self.parts:
            self._emit("\n\n")
        return self._passage(s, kind)

    def heading(self, level: int, text: str) -> str:
        self._push(level, text)
        return self._block(("#" * level + " " + text) if self.markdown else text, "heading")

    def para(self, text: str, kind: str = "text") -> str:
        return self._block(text, kind)

    def bullets(self, items: list[str]) -> str:
        return self._block("\n".join("- " + i for i in items), "list")

    def table(self, header: list[str], rows: list[list[str]]) -> list[str]:
        """Pipe table; returns [header_pid, row_pid, ...]."""
        def line(cells):
            return "| " + " | ".join(cells) + " |"
        head = line(header) + "\n|" + "|".join("---" for _ in header) + "|"
        pids = [self._block(head, "table_row")]
        for r in rows:
            self._emit("\n")
            pids.append(self._passage(line(r), "table_row"))
        return pids

    def text(self) -> str:
        return "".join(self.parts) + "\n"


def _check_html(s: str) -> str:
    bad = [c for c in s if c in "<>&"]
    assert not bad, f"unescaped HTML character in {s[:60]!r}"
    return s


class HtmlBuilder(_Base):
    """EDGAR-like HTML; elements on their own lines."""

    def __init__(self, doc_id: str, title: str, namespaces: str = ""):
        super().__init__(doc_id)
        html = f"<html {namespaces}>" if namespaces else "<html>"
        self._emit(f"{html}\n<head>\n<title>{_check_html(title)}</title>\n</head>\n<body>\n")
        self.tail: list[str] = []  # markup written at the end of the body, after every passage

    def heading(self, level: int, text: str, markup: str | None = None) -> str:
        """``markup``: the heading's inner HTML when it carries tags (its text is ``text``)."""
        self._push(level, text)
        pid = self._passage(f"<h{level}>{markup or _check_html(text)}</h{level}>", "heading")
        self._emit("\n")
        return pid

    def p(self, inner: str, kind: str = "text") -> str:
        """inner may contain <b>/<i>/<sup> markup written by the caller."""
        cls = ' class="footnote"' if kind == "note" else ""
        pid = self._passage(f"<p{cls}>{inner}</p>", kind)
        self._emit("\n")
        return pid

    def note(self, n: int, text: str) -> str:
        return self.p(f"<sup>{n}</sup> {_check_html(text)}", kind="note")

    def ul(self, items: list[str]) -> str:
        pid = self._passage("<ul>" + "".join(f"<li>{_check_html(i)}</li>" for i in items) + "</ul>", "list")
        self._emit("\n")
        return pid

    def table(self, header_rows: list[list[tuple[str, int]]], rows: list[list[str]]) -> list[str]:
        """header_rows: cells as (html, colspan); rows: first cell label html, then values.
        Returns pids of every <tr>, header rows first."""
        self._emit('<table border="1">\n')
        pids = []
        for hr in header_rows:
            cells = "".join(
                f'<th colspan="{span}">{h}</th>' if span > 1 else f"<th>{h}</th>" for h, span in hr
            )
            pids.append(self._passage(f"<tr>{cells}</tr>", "table_row"))
            self._emit("\n")
        for r in rows:
            cells = f"<td>{r[0]}</td>" + "".join(f'<td align="right">{v}</td>' for v in r[1:])
            pids.append(self._passage(f"<tr>{cells}</tr>", "table_row"))
            self._emit("\n")
        self._emit("</table>\n")
        return pids

    def text(self) -> str:
        return "".join(self.parts) + "".join(t + "\n" for t in self.tail) + "</body>\n</html>\n"


def make_doc(builder: _Base, questions: list[Question] | None = None, **row) -> Doc:
    row["text"] = builder.text()
    row.setdefault("language", "en")
    row.setdefault("source_uri", None)
    doc = Doc(row=row, passages=builder.passages, questions=questions or [])
    return doc
