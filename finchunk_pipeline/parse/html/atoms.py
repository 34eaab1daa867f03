"""Text atoms: the pieces of one block or table cell, each with the raw positions it came
from, so the view text and its offset runs are built from the same list.

An atom's kind says how it maps to the raw string: 0 = copied exactly (a run), 1 = a
decoded / normalised character (maps to one raw position), 2 = inserted (no raw position).
Footnote marks (``<sup>`` or raised text) are read from the atoms' ``sup`` flags."""
from __future__ import annotations

import html as std_html
import re

_TEXTPIECE = re.compile(
    r"[^&\s]+(?: [^&\s]+)*|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});?|\s+|&"
)
MARK_FIND = re.compile(r"\d{1,2}|(?<![A-Za-z])[a-z](?![A-Za-z])|[*†‡§]+")
MARKLIKE = re.compile(r"^\s*\(?\s*(?:\d{1,2}|[a-z]|[*†‡§]+)(?:\s*,\s*(?:\d{1,2}|[a-z]))*\s*\)?\s*$")
_LEAD_MARK = re.compile(r"^(?:\(\s*(?:\d{1,2}|[a-z])\s*\)|[*†‡§]+)$")
ORDINALS = frozenset(("st", "nd", "rd", "th", "tm", "sm", "®"))
_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\ufeff", "\xad", "")


class Atoms:
    """Atoms of one block / cell, plus what the block builder learnt about it on the way
    (heading level of its element, list item, header cell, colspan)."""

    __slots__ = ("parts", "rs", "re", "kinds", "bold", "sup", "ws", "nalnum", "nbold", "hlevel", "li", "th",
                 "colspan")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.rs: list[int] = []
        self.re: list[int] = []
        self.kinds: list[int] = []
        self.bold: list[bool] = []
        self.sup: list[bool] = []
        self.ws: int | None = None  # pending whitespace raw pos (-1 = inserted space, -2 = inserted newline)
        self.nalnum = 0
        self.nbold = 0
        self.hlevel = 0
        self.li = False
        self.th = False
        self.colspan = 1

    def __bool__(self) -> bool:
        return bool(self.parts)

    def space(self, raw_pos: int) -> None:
        if self.parts and self.ws is None:
            self.ws = raw_pos

    def add(self, s: str, rs: int, re_: int, kind: int, bold: bool, sup: bool) -> None:
        if self.ws is not None:
            w = self.ws
            self.ws = None
            self.parts.append("\n" if w == -2 else " ")
            self.rs.append(w)
            self.re.append(w + 1)
            self.kinds.append(2 if w < 0 else 1)
            if w < 0:
                self.rs[-1] = self.re[-1] = -1
            self.bold.append(bold)
            self.sup.append(False)
        self.parts.append(s)
        self.rs.append(rs)
        self.re.append(re_)
        self.kinds.append(kind)
        self.bold.append(bold)
        self.sup.append(sup)
        n = sum(map(str.isalnum, s)) if len(s) < 64 else len(s) - s.count(" ")
        self.nalnum += n
        if bold:
            self.nbold += n

    def text(self) -> str:
        return "".join(self.parts)

    def last_char(self) -> str:
        return self.parts[-1][-1] if self.parts else ""

    def extend(self, other: Atoms, sep: str | None = None) -> None:
        if not other.parts:
            return
        if sep is not None and self.parts:
            self.parts.append(sep)
            self.rs.append(-1)
            self.re.append(-1)
            self.kinds.append(2)
            self.bold.append(False)
            self.sup.append(False)
        self.parts += other.parts
        self.rs += other.rs
        self.re += other.re
        self.kinds += other.kinds
        self.bold += other.bold
        self.sup += other.sup
        self.nalnum += other.nalnum
        self.nbold += other.nbold

    def is_bold(self) -> bool:
        return self.nalnum > 0 and self.nbold >= 0.95 * self.nalnum

    def marks(self) -> list[str]:
        """Footnote marks cited by raised / ``<sup>`` text, in order, without repeats."""
        out: list[str] = []
        i, n = 0, len(self.parts)
        while i < n:
            if self.sup[i]:
                j = i
                while j < n and (self.sup[j] or (self.kinds[j] == 1 and self.parts[j] == " " and j + 1 < n
                                                  and self.sup[j + 1])):
                    j += 1
                s = "".join(self.parts[i:j]).strip()
                if MARKLIKE.match(s) and s.strip("()").lower() not in ORDINALS:
                    for m in MARK_FIND.findall(s):
                        if m not in out:
                            out.append(m)
                i = j
            else:
                i += 1
        return out


def add_raw_text(buf: Atoms, raw: str, a: int, b: int, bold: bool, sup: bool) -> None:
    """Append raw[a:b] (text between tags) to ``buf``: runs copied, entities decoded,
    whitespace collapsed, invisible characters dropped."""
    for m in _TEXTPIECE.finditer(raw, a, b):
        s = m.group()
        c = s[0]
        if c == "&" and len(s) > 1:
            dec = std_html.unescape(s)
            if dec == s:
                add_piece(buf, s, m.start(), m.end(), 0, bold, sup)
            elif dec.isspace():
                buf.space(m.start())
            elif dec in _INVISIBLE:
                continue
            else:
                add_piece(buf, dec, m.start(), m.end(), 1, bold, sup)
        elif c.isspace():
            buf.space(m.start())
        else:
            add_piece(buf, s, m.start(), m.end(), 0, bold, sup)


def add_piece(buf: Atoms, s: str, rs: int, re_: int, kind: int, bold: bool, sup: bool) -> None:
    """``buf.add`` with the space a reader expects between a word and a raised mark
    ("Revenue1" -> "Revenue 1") and after a leading mark ("(1)Services" -> "(1) Services")."""
    if sup and buf.parts and not buf.sup[-1] and buf.ws is None and buf.last_char().isalnum() \
            and MARKLIKE.match(s) and s.strip("()").lower() not in ORDINALS:
        buf.ws = -1
    elif buf.ws is None and 0 < len(buf.parts) <= 3 and s[:1].isalpha() and not sup and (
            _LEAD_MARK.match(buf.text()) or (all(buf.sup) and MARKLIKE.match(buf.text()))):
        buf.ws = -1
    buf.add(s, rs, re_, kind, bold, sup)
