"""The optional C accelerator of token counting (finchunk_pipeline/models/_wordcount.c).

Everything else is in pyproject.toml. ``optional=True``: without a working compiler the
install still succeeds and TokenCounter counts in pure Python (the same counts).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("finchunk_pipeline.models._wordcount",
                             ["finchunk_pipeline/models/_wordcount.c"], optional=True)])
