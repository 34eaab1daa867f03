"""Evaluation: gold passages vs retrieved chunks, scored by character spans."""
