"""The public API (finchunk_pipeline.__all__): every name resolves, importing the package is
free, and tests and bench reach the core through it."""
from __future__ import annotations

import subprocess
import sys

import pytest

import finchunk_pipeline


@pytest.mark.parametrize("name", finchunk_pipeline.__all__)
def test_every_public_name_resolves(name):
    assert getattr(finchunk_pipeline, name) is not None


def test_unknown_names_raise_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        finchunk_pipeline.no_such_name  # noqa: B018


def test_importing_the_package_imports_neither_dagster_nor_the_data_stack():
    code = ("import sys, finchunk_pipeline; "
            "print(sorted(m for m in ('dagster', 'pandas', 'torch', 'pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_names_are_listed_by_dir():
    assert set(finchunk_pipeline.__all__) <= set(dir(finchunk_pipeline))
