"""Questions in plain words from tagged facts: who (the registrant as it names itself), what
(the concept in words, or a note's subject), when (the period in words), in which filing —
never the answer, and never the row's own label (the concept's name is what is asked).

Each question type has a few wordings, chosen per question by the seeded generator, so a
retriever cannot learn one template."""
from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

from ...types.blocks import TaggedFact
from .words import concept_words, date_words, iso, member_words, period_words, topic_words

TYPES = ("xbrl_table", "xbrl_prior_period", "xbrl_segment", "xbrl_text_figure", "xbrl_note")

_CURRENT = (
    "What was {entity}'s {label} {when}?",
    "How much did {entity} report as {label} {when}, according to its {form}?",
    "In {entity}'s {form}, what amount is given for {label} {when}?",
)
_PRIOR = (
    "In its {form}, what did {entity} report as {label} for the earlier period, {period}?",
    "What {label} figure does {entity}'s {form} give {when}?",
)
_SEGMENT = (
    "What was {entity}'s {label} for {members} {when}?",
    "According to {entity}'s {form}, how much {label} is attributed to {members} {when}?",
)
_NOTE = (
    "What does {entity}'s {form} say about its {topic}?",
    "How does {entity} describe its {topic} in its {form}?",
)
_SCALE = {3: "thousand", 6: "million", 9: "billion"}


@dataclass(frozen=True)
class Filing:
    """What a question names about the filing it comes from."""

    entity: str
    form: str            # "10-K for fiscal year 2024", "10-Q for the quarter ended June 28, 2025"
    period_end: date | None
    fiscal_year: int | None
    view: str = ""
    view_lower: str = ""


def form_words(doc_type: str | None, period_end: date | None, fiscal_year: int | None) -> str:
    kind = doc_type or "filing"
    if kind in ("10-K", "10-K/A", "20-F", "40-F", "annual_report") and fiscal_year:
        name = "annual report" if kind == "annual_report" else kind
        return f"{name} for fiscal year {fiscal_year}"
    if kind in ("10-Q", "10-Q/A") and period_end:
        return f"{kind} for the quarter ended {date_words(period_end)}"
    return f"{kind} for the period ended {date_words(period_end)}" if period_end else kind


def is_current(fact: TaggedFact, filing: Filing) -> bool:
    end = iso(fact.period_end)
    return filing.period_end is None or end is None or abs((filing.period_end - end).days) <= 7


def when_words(fact: TaggedFact, filing: Filing) -> tuple[str, str] | None:
    """("as of September 28, 2024" / "for fiscal year 2024", the period alone) or None."""
    period = period_words(fact.period_start, fact.period_end, filing.period_end, filing.fiscal_year)
    if period is None:
        return None
    return (f"as of {period}" if fact.period_start is None else f"for {period}"), period


def answer_words(fact: TaggedFact) -> str:
    """The figure as a reader would quote it: "14,695 million USD", "-1,234 thousand USD"."""
    if fact.value == 0:
        return "0"  # a dash or "no" shown for zero
    sign = "-" if fact.sign == "-" else ""
    scale = _SCALE.get(fact.scale, f"x 10^{fact.scale}" if fact.scale else "")
    unit = fact.unit or ""
    if fact.scale == -2 and unit.lower() == "pure":
        return f"{sign}{fact.display}%"
    return " ".join(p for p in (f"{sign}{fact.display}", scale, unit) if p)


def members_words(fact: TaggedFact, filing: Filing) -> str:
    parts = []
    for axis, member in fact.dimensions:
        m = member_words(member, filing.view, filing.view_lower)
        a = member_words(axis)
        parts.append(f"{m} ({a})")
    return " and ".join(parts)


def figure_question(fact: TaggedFact, qtype: str, filing: Filing, rng: random.Random) -> str:
    when = when_words(fact, filing)
    assert when is not None
    fields = {"entity": filing.entity, "label": concept_words(fact.concept), "when": when[0],
              "period": when[1], "form": filing.form}
    if qtype == "xbrl_segment":
        return rng.choice(_SEGMENT).format(members=members_words(fact, filing), **fields)
    if qtype == "xbrl_prior_period":
        return rng.choice(_PRIOR).format(**fields)
    return rng.choice(_CURRENT).format(**fields)


def note_question(fact: TaggedFact, filing: Filing, rng: random.Random) -> str:
    return rng.choice(_NOTE).format(entity=filing.entity, form=filing.form, topic=topic_words(fact.concept))
