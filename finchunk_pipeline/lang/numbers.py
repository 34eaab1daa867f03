"""Numbers as written in a language's locale, normalised to one token form.

English writes "13,668.9" (comma thousands, point decimal); Spanish, German, French and
Italian write "13.668,9" (point thousands, comma decimal; French also a space or a no-break
space: "13 668,9"). BM25 indexes a number as its value with a point decimal and no
thousands separators ("13668.9") so a figure matches however the document and the question
write it. The English rule is the tokenizer's historic one (commas dropped) and unchanged.
Language-neutral text reads a number by its shape: with both marks the last one is the
decimal mark; one mark followed by exactly three digits is a thousands separator.
"""
from __future__ import annotations

import re

COMMA_DECIMAL = frozenset({"es", "de", "fr", "it"})
# a space between digit groups inside a number ("13 668,9", "1 234 567")
_GROUP_SPACE = re.compile(r"(?<=\d)[\u00a0\u202f\u2009 ](?=\d{3}(?!\d))")


def join_group_spaces(text: str) -> str:
    """French-style digit groups joined ("13 668,9" → "13668,9"); comma-decimal locales only."""
    return _GROUP_SPACE.sub("", text)


def normalise_number(token: str, language: str) -> str:
    """A number token (digits with "," "." "'" inside) as its value's plain spelling."""
    token = token.replace("'", "")
    if language == "en":
        return token.replace(",", "")
    if language in COMMA_DECIMAL:
        return token.replace(".", "").replace(",", ".")
    commas, dots = token.count(","), token.count(".")
    if commas and dots:
        dec = "," if token.rfind(",") > token.rfind(".") else "."
        return token.replace("." if dec == "," else ",", "").replace(dec, ".")
    sep = "," if commas else "." if dots else None
    if sep is None:
        return token
    parts = token.split(sep)
    if len(parts) > 2 or len(parts[1]) == 3:
        return "".join(parts)
    return ".".join(parts)


def number_value(token: str, language: str) -> float | None:
    try:
        return float(normalise_number(token, language))
    except ValueError:
        return None
