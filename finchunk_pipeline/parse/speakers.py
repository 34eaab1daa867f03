"""Speaker lines of an earnings-call transcript: who speaks, with which title, firm and role hint.

Kept apart from the turn assembly (``transcript.py``) because recognising a speaker line is a
question about one line (plus the names already known), while assembling turns is a walk over
the whole call. The rules are English; with the document language ``es`` (``lang.current``)
Spanish words and accented names are read as well, English still matching.

Speaker lines (Markdown ``**`` / ``#`` decoration is ignored):
  ``Operator: text`` · ``Name -- Analyst, Firm: text`` · ``Name - Title: text`` ·
  ``Name (Firm): text`` · ``NAME:`` / ``Name:`` alone, paragraphs follow ·
  ``Name -- Title`` alone (Motley Fool), paragraphs follow · ``Name: text`` (2-4 capitalised
  words, or a name already known).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..lang.current import current_language

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


def rule(name: str) -> re.Pattern | None:
    """The pattern ``name`` in the rules of the current document language (``operator`` is
    None in English: "Operator" is matched literally)."""
    return (_ES if current_language() == "es" else _EN)[name]


def clean_line(line: str) -> str:
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
    if rule('analyst').search(d):
        hint = "analyst"
        rest = [p for p in parts if not rule('analyst').search(p)]
        firm = ", ".join(rest) or None
        title = next((p for p in parts if rule('analyst').search(p)), None)
    elif rule('exec').search(d):
        hint = "executive"
        title = d
        rest = [p for p in parts if not rule('exec').search(p)]
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


@dataclass(frozen=True, slots=True)
class Speaker:
    """A recognised speaker line: ``role`` is the hint the line itself gives (None when it
    gives none); ``inline`` says whether the turn's text starts on the speaker line."""

    name: str
    title: str | None
    firm: str | None
    role: str | None
    inline: bool


def speaker_of_line(line: str, nxt_blank: bool, known: dict[str, dict], issuer: str) -> Speaker | None:
    """The speaker ``line`` opens, or None when it is no speaker line. ``nxt_blank``: the next
    line is blank (a bare ``Name (Firm)`` only counts then); ``known``: lower-cased names
    already seen (a known name needs no plausibility test)."""
    s = clean_line(line)
    if not s or len(s) > 2000:
        return None
    if re.match(r"^operator\s*:?\s*", s, re.I) and (s.lower() == "operator" or re.match(r"^operator\s*:", s, re.I)):
        return Speaker("Operator", None, None, "operator", bool(re.sub(r"(?i)^operator\s*:?\s*", "", s)))
    op = rule("operator")
    if op is not None and op.match(s) and (op.fullmatch(s.rstrip(":").strip()) or re.match(op.pattern + r"\s*:", s, re.I)):
        label = op.match(s).group(0)
        return Speaker(label[:1].upper() + label[1:].lower(), None, None, "operator",
                        bool(s[len(label):].lstrip(" :").strip()))
    m = rule('_RE_DASH_COLON').match(s)
    if m and _plausible_name(m.group("name"), known):
        title, firm, hint = _split_desc(m.group("desc"), issuer)
        return Speaker(m.group("name"), title, firm, hint, bool(m.group("text").strip()))
    m = rule('_RE_PAREN').match(s)
    if m and _plausible_name(m.group("name"), known) and (m.group("text") is not None or nxt_blank or s.endswith(")")):
        desc = m.group("desc")
        title, firm, hint = _split_desc(desc, issuer)
        if hint is None:  # "(Firm)": an outside firm asks questions; the issuer's own people answer
            if issuer and _same_firm(desc, issuer):
                hint, firm = "executive", None
            else:
                hint = "analyst"
        return Speaker(m.group("name"), title, firm, hint, bool((m.group("text") or "").strip()))
    m = rule('_RE_DASH_LINE').match(s)
    if m and len(s) <= 160 and _plausible_name(m.group("name"), known) and not s.endswith("."):
        title, firm, hint = _split_desc(m.group("desc"), issuer)
        if hint is not None:
            return Speaker(m.group("name"), title, firm, hint, False)
    m = rule('_RE_COLON').match(s)
    if m:
        name, text = m.group("name"), m.group("text").strip()
        if name.lower() in known or (not text and _plausible_name(name, known)) or (
                text and len(name.split()) >= 2 and _plausible_name(name, known)):
            return Speaker(name, None, None, None, bool(text))
    return None

