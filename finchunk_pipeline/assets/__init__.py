"""The Dagster shell: assets, checks, schedules and sensors over the plain-Python core.
One module per asset group; ``finchunk_pipeline.definitions`` assembles them."""
