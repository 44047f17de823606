# Shortcuts for contributors (see CONTRIBUTING.md), in the environment you are in: no new
# venv, no rebuild. noxfile.py runs the same checks in fresh venvs; `make ci` is what CI runs.
PYTHON ?= python

.PHONY: dev test test-python lint types docs bench ci

dev:            ## in-place build with every tool
	$(PYTHON) -m pip install -e ".[dev,plot]"

test:           ## the suite against the installed package, C twins and Python twins
	$(PYTHON) -Im pytest tests

test-python:    ## the same code forced onto the Python twins (no rebuild needed)
	PERCEPTRON_C_NO_EXTENSIONS=1 $(PYTHON) -Im pytest tests

lint:
	ruff check .
	cython-lint perceptron_c/_core/*.pyx perceptron_c/_core/*.pxd perceptron_c/_core/*.pxi perceptron_c/capi/*.pxd

types:
	mypy

docs:
	sphinx-build -W --keep-going -b html docs docs/_build/html

bench:
	cd /tmp && $(PYTHON) $(CURDIR)/bench/bench_linear.py && $(PYTHON) $(CURDIR)/bench/bench_kernels.py

ci:
	bash .ci/run
