"""Markdown blocks exact on the dev corpora's documents (devdata; the rest: tests/unit/test_markdown_parser.py)."""
from __future__ import annotations

from tests.conftest import DEVDATA, needs_devdata
from tests.unit.test_markdown_parser import _check_corpus


@needs_devdata
def test_finqa_and_tatqa_parse_exactly():
    _check_corpus(DEVDATA / "finqa_dev")
    _check_corpus(DEVDATA / "tatqa_dev")
