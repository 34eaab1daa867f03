"""The bounds of one download as the command line reads them: the flag, else the setting,
else the default; the source's name in any error."""
from __future__ import annotations

import pytest

from finchunk_pipeline.fetch.limits import DEFAULT_MAX_BYTES, first_given, parse_size


def test_the_flag_wins_over_the_setting():
    assert first_given(parse_size, DEFAULT_MAX_BYTES, ("1K", "--max-bytes"), ("2K", "SETTING")) == 1024


def test_the_setting_when_no_flag_then_the_default():
    assert first_given(parse_size, DEFAULT_MAX_BYTES, (None, "--max-bytes"), ("2K", "SETTING")) == 2048
    assert first_given(parse_size, DEFAULT_MAX_BYTES, (None, "--max-bytes"), (None, "SETTING")) == DEFAULT_MAX_BYTES


def test_an_empty_flag_is_an_error_naming_the_flag():
    with pytest.raises(ValueError, match="--max-bytes"):
        first_given(parse_size, DEFAULT_MAX_BYTES, ("", "--max-bytes"), ("2K", "SETTING"))
