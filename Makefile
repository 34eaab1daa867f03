# The two commands of a fresh machine:
#   make run    create .venv, install the project, run the whole pipeline on the embedded corpus
#   make run-es the same on the Spanish embedded corpus (data/corpus/es)
#   make test   the test suite (installs first if needed)
#   make image  the container image (deploy/image.sh; docs/operations-containers.md)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin

.PHONY: run run-es test ui bench clean image benchmarks

# setup.py builds the optional C word counter (models/_wordcount.c) in place: a changed
# source reinstalls, so the extension is never stale
$(BIN)/finchunk: pyproject.toml setup.py finchunk_pipeline/models/_wordcount.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first, alone: asked for alone, pip takes the CPU wheel that lies on these machines
	# (2.13.0+cpu); resolved together with the project, pip 26 took PyPI's 2.13.0 with 2.7 GB of
	# CUDA libraries (and ~300 MB more resident memory per process). Installed first, it satisfies
	# the project's torch==2.13.0 and stays.
	$(BIN)/python -m pip install --quiet 'torch==2.13.0'
	$(BIN)/python -m pip install --quiet -e '.[test,baselines,static,bench,postgres,s3,k8s,docker,ocr]'
	touch $@

run: $(BIN)/finchunk
	$(BIN)/finchunk run

# the Spanish embedded corpus (data/corpus/es), its own report under out/es
run-es: $(BIN)/finchunk
	$(BIN)/finchunk run --corpus data/corpus/es --out out/es

# all four tiers (tests/unit, integration, system, architecture; `pytest -m unit` for one), in
# parallel (pytest-xdist, one worker per core); --dist loadfile keeps a file's tests, and so its
# module-scoped fixtures, on one worker
test: $(BIN)/finchunk
	$(BIN)/python -m pytest -n auto --dist loadfile

ui: $(BIN)/finchunk
	$(BIN)/finchunk ui

# docs/benchmarks/ regenerated (bench/benchmarks.py: the runs each page reads are made first when
# absent; the dev sets' peer grids take hours cold — `python bench/benchmarks.py --list`)
benchmarks: $(BIN)/finchunk
	$(BIN)/python bench/benchmarks.py $(TOPICS)

# the container image finchunk:0.1.0 (deploy/Dockerfile) from reachable sources only: a base
# from Debian packages, the machine's CPU torch wheel (deploy/image.sh; needs a Docker engine)
image:
	deploy/image.sh

clean:
	rm -rf data/store out dagster_home
