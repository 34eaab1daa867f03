"""Toy Dagster definitions for bench/dagster_mechanisms.py (loaded by file path: toys.py)."""
