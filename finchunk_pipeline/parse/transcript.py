"""Earnings-call transcript parser (doc_type earnings_call, format text or markdown).

The view is the raw text (identity offsets): ``raw[block.start:block.end] == block.text``.

Representation (chosen convention): **one TURN block per speaker turn**, from the speaker
line to the end of the turn's last paragraph (the speaker label is part of the block text,
so a retrieved turn always names its speaker). attrs: ``speaker``, ``role`` (operator /
analyst / executive), ``firm`` (analysts, when known), ``title`` (as printed, when given),
``turn_index`` (0-based, over the whole call) and ``n_paragraphs``.

Other blocks: the event title (first line, HEADING level 1), section headings (HEADING
level 2: Prepared Remarks / Presentation, Questions and Answers / Q&A, Call Participants,
...), and PARAGRAPH blocks for text outside turns (date lines, participant rosters).

Speaker lines (Markdown ``**`` / ``#`` decoration is ignored):
  ``Operator: text`` · ``Name -- Analyst, Firm: text`` · ``Name - Title: text`` ·
  ``Name (Firm): text`` · ``NAME:`` / ``Name:`` alone, paragraphs follow ·
  ``Name -- Title`` alone (Motley Fool), paragraphs follow · ``Name: text`` (2-4 capitalised
  words, or a name already known).

Roles: the operator; ``analyst`` when the title says analyst, the firm is not the issuer, the
operator introduced the speaker ("next question comes from Jane Doe with Morgan Stanley"),
or a participant roster lists them as analyst; ``executive`` for officer titles or the
issuer's own people. Unknown speakers: in Q&A, the one right after the operator is the
analyst asking; otherwise executive. A speaker keeps the first role established for them
by an explicit title / roster.
"""
from __future__ import annotations

import re
from typing import Any

from ..storage import sha256_text
from .gcpause import without_gc
from .lines import line_spans
from .model import Block, BlockKind, ParsedDocument
from .offsets import OffsetMap

VERSION = "1"
LANGUAGES = ("es",)  # languages with rules of their own: their blocks are stored apart (registry.key_for)

_NAME = r"(?:[A-Z][A-Za-z.'’\-]*\.?|[A-Z]\.)(?:\s+(?:(?:de|van|der|von|da|di|la|le|del|bin|al)\s+)?(?:[A-Z][A-Za-z.'’\-]*\.?|[A-Z]\.)){0,4}"
_DASH = r"\s+(?:--|—|–|-)\s+"
_RE_DASH_COLON = re.compile(rf"^(?P<name>{_NAME}){_DASH}(?P<desc>[^:\n]{{2,140}}?)\s*:\s*(?P<text>.*)$")
_RE_PAREN = re.compile(rf"^(?P<name>{_NAME})\s*\((?P<desc>[^)\n]{{2,100}})\)\s*(?:[-–—:]\s*(?P<text>.*))?$")
_RE_DASH_LINE = re.compile(rf"^(?P<name>{_NAME}){_DASH}(?P<desc>[^:\n]{{2,140}})$")
_RE_COLON = re.compile(rf"^(?P<name>{_NAME})\s*:\s*(?P<text>.*)$")
_SECTION = re.compile(
    r"^(?:prepared remarks|presentation|management(?:'s)? (?:remarks|presentation|discussion)|opening remarks|"
    r"questions?\s*(?:and|&)\s*answers?(?: session)?|question-and-answer session|q\s*&\s*a(?: session)?|"
    r"call participants|participants|corporate participants|conference call participants|"
    r"company participants|analysts?|executives|disclaimer|safe harbor(?: statement)?|closing remarks)\s*:?$",
    re.I,
)
_QA = re.compile(r"question|q\s*&\s*a", re.I)
_PARTICIPANTS = re.compile(r"participants|^analysts?$|^executives$", re.I)
_EXEC = re.compile(
    r"\b(?:chief|officer|ceo|cfo|coo|cto|cio|president|chair(?:man|woman|person)?|vp|evp|svp|"
    r"vice president|head of|investor relations|treasurer|controller|founder|executive|general counsel|"
    r"secretary|director of|ir\b|managing partner)\b",
    re.I,
)
_ANALYST = re.compile(r"\banalyst\b|\bresearch\b|\bequity\b|\bsell[- ]side\b", re.I)
_INTRO = re.compile(
    rf"(?:question|line)\s+(?:comes|is coming|will come|is)\s+from\s+(?:the line of\s+)?(?P<name>{_NAME})"
    rf"\s*(?:with|from|of|at|,)\s+(?P<firm>[A-Z][\w&.'’\- ]{{1,60}}?)(?=[.,;:!?]|\s+(?:please|your|go)|$)",
)
_NOT_NAME = frozenset(
    """the total net revenue revenues question questions answer answers note notes safe forward item
    quarter year q1 q2 q3 q4 fy operating income guidance outlook thank thanks good so and but okay ok yes
    no well sure great hello hi welcome ladies today also first second third finally overall margin
    date time location event call conference webcast transcript source copyright""".split()
)


# Spanish transcripts (meta["language"] "es"): the same rules, Spanish words added (English
# words still match); other languages read the English rules only
_ES = {
    "section": re.compile(_SECTION.pattern.replace("closing remarks)", "closing remarks|presentaci[oó]n|"
                          "turno de preguntas|ronda de preguntas|preguntas y respuestas|participantes|analistas|"
                          "directivos|aviso legal|comentarios finales)"), re.I),
    "qa": re.compile(r"question|q\s*&\s*a|pregunta", re.I),
    "participants": re.compile(r"participants|^analysts?$|^executives$|participantes|^analistas$|^directivos$", re.I),
    "exec": re.compile(_EXEC.pattern[:-3] + r"|consejer[oa] delegad[oa]|director(?:a)? (?:financier[oa]|general)|"
                       r"president[ea]|relaci[oó]n(?:es)? con inversores)\b", re.I),
    "analyst": re.compile(_ANALYST.pattern + r"|\banalista\b|\ban[aá]lisis\b", re.I),
    "operator": re.compile(r"^(?:operador(?:a)?|moderador(?:a)?)", re.I),
}
# names with accented letters ("Javier Ruiz Díaz", "Íñigo Muñoz")
_NAME_ES = _NAME.replace("[A-Z]", "[A-ZÁÉÍÓÚÑÜ]").replace("[A-Za-z.'’\\-]", "(?:[^\\W\\d_]|[.'’\\-])")
for _key, _rx_en in (("_RE_DASH_COLON", _RE_DASH_COLON), ("_RE_PAREN", _RE_PAREN), ("_RE_DASH_LINE", _RE_DASH_LINE),
                     ("_RE_COLON", _RE_COLON)):
    _ES[_key] = re.compile(_rx_en.pattern.replace(_NAME, _NAME_ES), _rx_en.flags)
_ES["_INTRO"] = re.compile(
    _INTRO.pattern.replace(_NAME, _NAME_ES).replace("(?:question|line)", "(?:question|line|pregunta)")
    .replace("(?:comes|is coming|will come|is)\\s+from", "(?:comes|is coming|will come|is|es|viene)\\s+(?:from|de)")
    .replace("(?:with|from|of|at|,)", "(?:with|from|of|at|de|,)"), _INTRO.flags)
_EN = {"section": _SECTION, "qa": _QA, "participants": _PARTICIPANTS, "exec": _EXEC, "analyst": _ANALYST,
       "operator": None, "_RE_DASH_COLON": _RE_DASH_COLON, "_RE_PAREN": _RE_PAREN, "_RE_DASH_LINE": _RE_DASH_LINE,
       "_RE_COLON": _RE_COLON, "_INTRO": _INTRO}


def _rx(name: str):
    from ..lang.current import current_language

    return (_ES if current_language() == "es" else _EN)[name]


def _clean(line: str) -> str:
    """A line without Markdown decoration (``## ``, ``**``, ``__``)."""
    s = line.strip()
    s = re.sub(r"^#{1,6}\s+", "", s)
    s = s.replace("**", "").replace("__", "")
    if s.startswith("*") and s.endswith("*") and len(s) > 2:
        s = s[1:-1]
    return s.strip()


def _plausible_name(name: str, known: dict[str, Any]) -> bool:
    if name.lower() in known:
        return True
    words = name.split()
    if not 1 <= len(words) <= 5:
        return False
    if any(w.lower().strip(".") in _NOT_NAME for w in words):
        return False
    return True


def _split_desc(desc: str, issuer: str) -> tuple[str | None, str | None, str | None]:
    """'Analyst, Goldman Sachs' -> (title, firm, role hint)."""
    d = desc.strip().strip(",;")
    parts = [p.strip() for p in re.split(r"\s*,\s*|\s+(?:--|—|–|-)\s+|\s+at\s+|\s+with\s+", d) if p.strip()]
    title, firm, hint = None, None, None
    if _rx('analyst').search(d):
        hint = "analyst"
        rest = [p for p in parts if not _rx('analyst').search(p)]
        firm = ", ".join(rest) or None
        title = next((p for p in parts if _rx('analyst').search(p)), None)
    elif _rx('exec').search(d):
        hint = "executive"
        title = d
        rest = [p for p in parts if not _rx('exec').search(p)]
        if rest and issuer and not _same_firm(", ".join(rest), issuer):
            firm = ", ".join(rest)
    else:
        title = None
        firm = d
    return title, firm, hint


def _norm_firm(s: str) -> str:
    s = re.sub(r"[^a-z0-9 ]", " ", s.lower())
    s = re.sub(r"\b(?:inc|corp|corporation|co|company|plc|ltd|llc|group|holdings|the|sa|ag|nv)\b", " ", s)
    return " ".join(s.split())


def _same_firm(a: str, b: str) -> bool:
    x, y = _norm_firm(a), _norm_firm(b)
    return bool(x and y) and (x == y or x in y or y in x)


class _Speaker:
    __slots__ = ("name", "title", "firm", "role", "inline")

    def __init__(self, name: str, title: str | None, firm: str | None, role: str | None, inline: bool):
        self.name, self.title, self.firm, self.role, self.inline = name, title, firm, role, inline


def _speaker(line: str, nxt_blank: bool, known: dict[str, dict], issuer: str) -> _Speaker | None:
    s = _clean(line)
    if not s or len(s) > 2000:
        return None
    if re.match(r"^operator\s*:?\s*", s, re.I) and (s.lower() == "operator" or re.match(r"^operator\s*:", s, re.I)):
        return _Speaker("Operator", None, None, "operator", bool(re.sub(r"(?i)^operator\s*:?\s*", "", s)))
    op = _rx("operator")
    if op is not None and op.match(s) and (op.fullmatch(s.rstrip(":").strip()) or re.match(op.pattern + r"\s*:", s, re.I)):
        label = op.match(s).group(0)
        return _Speaker(label[:1].upper() + label[1:].lower(), None, None, "operator",
                        bool(s[len(label):].lstrip(" :").strip()))
    m = _rx('_RE_DASH_COLON').match(s)
    if m and _plausible_name(m.group("name"), known):
        title, firm, hint = _split_desc(m.group("desc"), issuer)
        return _Speaker(m.group("name"), title, firm, hint, bool(m.group("text").strip()))
    m = _rx('_RE_PAREN').match(s)
    if m and _plausible_name(m.group("name"), known) and (m.group("text") is not None or nxt_blank or s.endswith(")")):
        desc = m.group("desc")
        title, firm, hint = _split_desc(desc, issuer)
        if hint is None:  # "(Firm)": an outside firm asks questions; the issuer's own people answer
            if issuer and _same_firm(desc, issuer):
                hint, firm = "executive", None
            else:
                hint = "analyst"
        return _Speaker(m.group("name"), title, firm, hint, bool((m.group("text") or "").strip()))
    m = _rx('_RE_DASH_LINE').match(s)
    if m and len(s) <= 160 and _plausible_name(m.group("name"), known) and not s.endswith("."):
        title, firm, hint = _split_desc(m.group("desc"), issuer)
        if hint is not None:
            return _Speaker(m.group("name"), title, firm, hint, False)
    m = _rx('_RE_COLON').match(s)
    if m:
        name, text = m.group("name"), m.group("text").strip()
        if name.lower() in known or (not text and _plausible_name(name, known)) or (
                text and len(name.split()) >= 2 and _plausible_name(name, known)):
            return _Speaker(name, None, None, None, bool(text))
    return None


@without_gc
def parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    from ..lang.codes import normalise
    from ..lang.current import document_language

    with document_language(normalise((meta or {}).get("language"), f"document {doc_id}")):
        return _parse(doc_id, text, meta)


def _parse(doc_id: str, text: str, meta: dict[str, Any] | None = None) -> ParsedDocument:
    if text is None or not text.strip():
        raise ValueError(f"{doc_id}: transcript is empty")
    meta = meta or {}
    issuer = str(meta.get("issuer") or "")
    lines = line_spans(text)
    n = len(lines)

    def L(k: int) -> str:
        return text[lines[k][0]:lines[k][1]]

    blank = [not L(k).strip() for k in range(n)]
    blocks: list[Block] = []
    headings: list[tuple[int, str]] = []
    warnings: list[str] = []
    known: dict[str, dict] = {}  # lower name -> {"role", "firm", "title"}
    section = ""
    turn_index = 0
    prev_role: str | None = None

    def add(kind: str, s: int, e: int, attrs: dict[str, Any]) -> Block:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        seq = len(blocks)
        b = Block(doc_id, f"{doc_id}#b{seq:05d}", seq, kind, s, e, s, e, text[s:e],
                  tuple(h for _, h in headings), None, attrs)
        blocks.append(b)
        return b

    def heading(level: int, k: int) -> None:
        nonlocal section
        title = _clean(L(k)).rstrip(":")
        while headings and headings[-1][0] >= level:
            headings.pop()
        headings.append((level, title))
        if level == 2:
            section = title
        add(BlockKind.HEADING, lines[k][0], lines[k][1], {"level": level})

    def learn(sp: _Speaker) -> None:
        key = sp.name.lower()
        if sp.role in ("analyst", "executive") and key not in known:
            known[key] = {"role": sp.role, "firm": sp.firm, "title": sp.title}

    # pre-scan: rosters ("Name -- Title" lines in a participants section) and operator intros
    in_roster = False
    for k in range(n):
        c = _clean(L(k))
        if not c:
            continue
        if _rx('section').match(c):
            in_roster = bool(_rx('participants').search(c))
            continue
        if in_roster:
            sp = _speaker(L(k), True, {}, issuer)
            if sp is not None:
                learn(sp)
                continue
        for m in _rx('_INTRO').finditer(c):
            key = m.group("name").lower()
            if key not in known:
                known[key] = {"role": "analyst", "firm": m.group("firm").strip(), "title": None}

    def is_section(k: int) -> bool:
        c = _clean(L(k))
        return bool(c) and len(c) <= 60 and bool(_rx('section').match(c))

    i = 0
    # event title: the first non-blank line when it is not a speaker line / section
    while i < n and blank[i]:
        i += 1
    if i < n and not is_section(i) and _speaker(L(i), i + 1 >= n or blank[i + 1], known, issuer) is None \
            and len(_clean(L(i))) <= 200:
        while headings:
            headings.pop()
        headings.append((1, _clean(L(i))))
        add(BlockKind.HEADING, lines[i][0], lines[i][1], {"level": 1, "event_title": True})
        i += 1

    roster_section = False
    while i < n:
        if blank[i]:
            i += 1
            continue
        if is_section(i):
            heading(2, i)
            roster_section = bool(_rx('participants').search(_clean(L(i))))
            i += 1
            continue
        sp = _speaker(L(i), i + 1 >= n or blank[i + 1], known, issuer)
        if roster_section and sp is not None and (sp.inline or sp.role == "operator" or sp.title is None
                                                  and sp.firm is None):
            roster_section = False  # the call itself starts
        if roster_section or sp is None:
            # paragraph outside any turn, or a participants roster: up to the next blank line
            j = i + 1
            while j < n and not blank[j] and not is_section(j) and (
                    roster_section or _speaker(L(j), j + 1 >= n or blank[j + 1], known, issuer) is None):
                j += 1
            add(BlockKind.LIST if roster_section else BlockKind.PARAGRAPH, lines[i][0], lines[j - 1][1], {})
            i = j
            continue
        # a turn: speaker line + following paragraphs until the next speaker line / section
        learn(sp)
        info = known.get(sp.name.lower(), {})
        role = sp.role or info.get("role")
        if role is None:
            if _rx('qa').search(section or "") and prev_role == "operator":
                role = "analyst"
            else:
                role = "executive"
            known.setdefault(sp.name.lower(), {"role": role, "firm": None, "title": None})
        elif sp.role and info.get("role") and info["role"] != sp.role and sp.role != "operator":
            role = info["role"] if info["role"] == "analyst" else sp.role
        firm = sp.firm or info.get("firm")
        title = sp.title or info.get("title")
        j = i + 1
        paras = 1 if sp.inline else 0
        in_para = sp.inline
        last = i
        while j < n:
            if blank[j]:
                in_para = False
                j += 1
                continue
            if is_section(j) or _speaker(L(j), j + 1 >= n or blank[j + 1], known, issuer) is not None:
                break
            if not in_para:
                paras += 1
                in_para = True
            last = j
            j += 1
        attrs: dict[str, Any] = {"speaker": sp.name, "role": role, "turn_index": turn_index, "n_paragraphs": paras}
        if firm:
            attrs["firm"] = firm
        if title:
            attrs["title"] = title
        if paras == 0:
            warnings.append(f"speaker line without text at line {i + 1}: {sp.name}")
        add(BlockKind.TURN, lines[i][0], lines[last][1], attrs)
        turn_index += 1
        prev_role = role
        i = last + 1

    if not blocks:
        raise ValueError(f"{doc_id}: no blocks found in transcript")
    if turn_index == 0:
        warnings.append("no speaker turns recognised")
    return ParsedDocument(
        doc_id=doc_id, doc_sha=sha256_text(text), parser="transcript", parser_version=VERSION,
        view_text=text, offsets=OffsetMap.identity(len(text)), blocks=blocks, warnings=warnings,
    )
