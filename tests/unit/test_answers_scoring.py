"""Scoring a model's answer against the reference: numbers with units and scale normalised,
text by exact / contains."""
from __future__ import annotations

import pytest

from finchunk_pipeline.evaluation.answers import numeric_match, quantities, score_answer, summarise


@pytest.mark.parametrize("answer, reference", [
    ("$1.5 billion", "$1,496.5 million"),        # scale words, 0.2% apart
    ("1,496.5", "$1,496.5 million"),             # the table states the unit once
    ("6,951 thousand", "6951"),
    ("56.2%", "0.56197"),                        # a ratio given as a percentage
    ("1.9", "1.9%"),
    ("(411.5)", "411.5 thousand"),               # accounting parentheses: absolute values
    ("€525.7m", "€525.7 million"),
    ("Revenue rose to 8.850,3 million", "8,850.3"),  # decimal comma
    ("It decreased by $2.5bn", "No. Microsoft decreased its debt by $2.5bn in FY 2023 vs FY 2022."),  # years are context
])
def test_numeric_answers_match_after_normalisation(answer, reference):
    assert numeric_match(answer, reference)
    assert score_answer(answer, reference)["correct"] is True


@pytest.mark.parametrize("answer, reference", [
    ("$1.6 billion", "$1,496.5 million"),        # 7% off
    ("500", "5"),                                # no % anywhere: no hundredfold
    ("2023", "$2.5bn in FY 2023"),               # the year alone is not the answer
    ("not in context", "132.3"),
    ("132.3 and 5", "132.3; 353 thousand"),      # every reference number is needed
])
def test_numeric_answers_that_must_not_match(answer, reference):
    assert not numeric_match(answer, reference)
    assert score_answer(answer, reference)["correct"] is False


def test_text_answers_exact_and_contains():
    s = score_answer("Its legacy printing division.", "its legacy printing division")
    assert s == {"numeric": None, "exact": True, "contains": True, "correct": True}
    s = score_answer("The group sold its legacy printing division in May", "legacy printing division")
    assert s["exact"] is False and s["contains"] is True and s["correct"] is True
    s = score_answer("printing", "legacy printing division")
    assert s["contains"] is False and s["correct"] is False
    assert score_answer(None, "x")["correct"] is None
    assert score_answer("x", None)["correct"] is None


def test_quantities_read_scale_and_years():
    qs = quantities("$1.2 bn in 2024, up 5%")
    assert 1.2e9 in qs[0].values and 1.2 in qs[0].values
    assert qs[1].year and not qs[2].year and qs[2].percent


def test_summary_per_column():
    cells = [{"recall": 1.0, "contained": True, "correct": True, "tokens": 10, "chars": 1500},
             {"recall": 0.0, "contained": None, "correct": False, "tokens": 5, "chars": 1000}]
    s = summarise(cells)
    assert s["recall"] == 0.5 and s["containment"] == 1.0 and s["containment_questions"] == 1
    assert s["accuracy"] == 0.5 and s["answered"] == 2 and s["tokens"] == 15 and s["mean_chars"] == 1250
