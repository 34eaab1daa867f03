"""The built-in retrievers, one module each, listed in ``index/registry.py`` (``BUILTIN``)."""
