"""The system tier of the tests (markers and rules: tests/conftest.py, tests/architecture/test_tiers.py)."""
