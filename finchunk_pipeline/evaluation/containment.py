"""Answer containment: is the reference answer in the delivered text?

Delivered text = the indexed text (``embedding_text``) of the delivered chunks, the last one cut
at the budget (see ``budget.py``). Questions of type calculation / point_in_time (answers
computed, not quoted) and questions without an answer are skipped.

Matching:
- numeric answers: every number in the answer must occur as a number in the text. Numbers
  are compared as values after normalising thousands separators (",", ".", thin / no-break
  spaces, "'"), decimal marks ("." or ","), currency symbols (€ $ £ ¥ and ISO codes are
  ignored), "%" and signs / accounting parentheses (absolute values). A lone separator
  followed by exactly three digits ("1,165") is ambiguous and matches either reading
  (1165 or 1.165). Unit words ("million") are not required: tables state them once.
- other answers: case-folded, punctuation-stripped, whitespace-collapsed substring.

With the question's language (``contains_answer(..., language)``; lang/numbers.py): in a
comma-decimal locale (es, de, fr, it) numbers are read unambiguously by that locale
("1.165" is 1165, "13,5" is 13.5) and text is also compared with accents folded ("energia"
matches "Energía"). Without a language, or in English, the rules above, unchanged.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..lang.numbers import COMMA_DECIMAL
from .budget import REPORT_BUDGET
from .cells import pct
from .metrics import REPORT_K, Column, MetricSpec

SKIP_TYPES = frozenset({"calculation", "point_in_time", "unanswerable"})
_NUM = re.compile(r"\d(?:[\d,.'\u00a0\u202f\u2009]*\d)?")
_THIN = "'\u00a0\u202f\u2009"


def number_values(token: str) -> set[float]:
    """Every value a number token can mean (one, or two when a separator is ambiguous)."""
    t = token
    for ch in _THIN:
        t = t.replace(ch, "")
    commas, dots = t.count(","), t.count(".")
    if commas and dots:
        dec = "," if t.rfind(",") > t.rfind(".") else "."
        thou = "." if dec == "," else ","
        t = t.replace(thou, "").replace(dec, ".")
        return {_f(t)}
    sep = "," if commas else "." if dots else None
    if sep is None:
        return {_f(t)}
    parts = t.split(sep)
    if len(parts) > 2:  # repeated separator: thousands
        return {_f("".join(parts))}
    head, tail = parts
    if len(tail) == 3 and 1 <= len(head) <= 3 and head != "0":
        return {_f(head + tail), _f(head + "." + tail)}  # ambiguous
    return {_f(head + "." + tail)}


def _f(s: str) -> float:
    try:
        return round(float(s), 6)
    except ValueError:
        return float("nan")


def locale_values(token: str, language: str) -> set[float]:
    """The value of a number token in a comma-decimal locale (one value, never ambiguous)."""
    t = token
    for ch in _THIN:
        t = t.replace(ch, "")
    return {_f(t.replace(".", "").replace(",", "."))}


@lru_cache(maxsize=1 << 16)
def _token_values(token: str, comma_decimal_language: str | None) -> frozenset[float]:
    """A number token's values, remembered: delivered contexts repeat the same figures."""
    if comma_decimal_language is not None:
        return frozenset(locale_values(token, comma_decimal_language))
    return frozenset(number_values(token))


def numbers_in(text: str, language: str | None = None) -> list[frozenset[float]]:
    lang = language if language in COMMA_DECIMAL else None
    return [_token_values(m.group(0), lang) for m in _NUM.finditer(text)]


def normalise_text(text: str, fold_accents: bool = False) -> str:
    text = unicodedata.normalize("NFKC", text).casefold()
    if fold_accents:
        text = "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))
    text = re.sub(r"[^\w\s]", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def contains_answer(answer: str, text: str, language: str | None = None) -> bool:
    answer = str(answer)
    language = None if language in (None, "en") else language
    wanted = numbers_in(answer, language)
    if wanted:
        have: set[float] = set()
        for values in numbers_in(text, language):
            have |= values
        return all(values & have for values in wanted)
    a = normalise_text(answer, language is not None)
    return bool(a) and f" {a} " in f" {normalise_text(text, language is not None)} "


def scorable(question_type: str, answer) -> bool:
    if question_type in SKIP_TYPES or answer is None:
        return False
    if isinstance(answer, float) and answer != answer:  # NaN
        return False
    return bool(str(answer).strip())


# --- the metric (metrics.py) ------------------------------------------------------------------
def _score(q) -> tuple[bool | None, bool | None]:
    """(answer contained at k = 5, at the report budget); None when the question is not scorable."""

    if not scorable(q.question_type, q.answer):
        return None, None
    return (contains_answer(q.answer, q.delivery(k=REPORT_K)[2], q.language),
            contains_answer(q.answer, q.delivery(budget=REPORT_BUDGET)[2], q.language))


def _share(values, i: int) -> tuple[float | None, int]:
    vals = [v[i] for v in values if v[i] is not None]
    return (sum(vals) / len(vals) if vals else None), len(vals)


def _summarize(scored) -> dict:

    ck, nk = _share(scored.values, 0)
    cb, _ = _share(scored.values, 1)
    return {"answer_containment": {"k": REPORT_K, "value": ck, "chars": REPORT_BUDGET, "value_at_budget": cb,
                                   "questions": nk}}


def _group(pairs) -> dict:
    ck, nc = _share([v for _, v in pairs], 0)
    return {"answer_containment": ck, "containment_questions": nc}


def _columns(table: str, budgets) -> list:

    at, key = (f"@{REPORT_BUDGET}ch", "value_at_budget") if table == "budget" else ("@5", "value")
    return [Column(f"answer{at}", lambda e: pct((e.get("answer_containment") or {}).get(key)))]


METRIC = MetricSpec("containment", _score, _summarize, _group, _columns)
