#!/usr/bin/env -S uv run --script
# /// script
# dependencies = ["nox>=2024.4.15"]
# ///
"""Each check of CONTRIBUTING.md in a fresh virtual environment: ``nox -l`` lists them.

``nox`` alone runs lint, the C twins' suite on every Python 3.10-3.14 found (absent ones are
skipped) and the Python twins' suite; ``./noxfile.py`` does the same with nox fetched by uv.
``nox -s tests-3.12 -- tests/test_twins.py -x``: one Python, one test file (the words after
``--`` go to pytest). The Makefile runs the same commands in the current environment (no
fresh venv, no rebuild); ``bash .ci/run`` is what CI runs: repaired wheels from the sdist,
the oldest dependencies and the sanitizers as well.
"""
import glob
import os

import nox

# 2024.4.15: default= (types, docs and build run only when named)
nox.needs_version = ">=2024.4.15"
nox.options.default_venv_backend = "uv|virtualenv"

PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
# The switch to the pure-Python twins, at build time and at import (README: "Backends").
PURE = {"PERCEPTRON_C_NO_EXTENSIONS": "1"}
CYTHON_FILES = ["perceptron_c/_core/*.pyx", "perceptron_c/_core/*.pxd", "perceptron_c/_core/*.pxi",
                "perceptron_c/capi/*.pxd"]


def _pytest(session: nox.Session, env: dict[str, str] | None = None) -> None:
    # -I: neither the checkout nor tests/ shadows the installed package, so the compiled
    # module is the one tested (a C test fails, not skips, when it is missing).
    session.run("python", "-Im", "pytest", *(session.posargs or ["tests"]), env=env)


@nox.session(python=PYTHONS)
def tests(session: nox.Session) -> None:
    """The suite on the C twins, against the package built and installed into the session."""
    session.install(".[test]", env={"PERCEPTRON_C_NO_EXTENSIONS": ""})
    session.run("python", "-Ic", "import perceptron_c as p; assert p.BACKEND == 'c', p.BACKEND")
    _pytest(session, env={"PERCEPTRON_C_NO_EXTENSIONS": ""})


@nox.session
def tests_python(session: nox.Session) -> None:
    """The suite on the Python twins: the pure build (nothing compiled), used at import."""
    session.install(".[test]", env=PURE)
    _pytest(session, env=PURE)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff on the Python code, cython-lint on the Cython sources (what pre-commit runs)."""
    session.install("ruff", "cython-lint")
    session.run("ruff", "check", ".", *session.posargs)
    session.run("cython-lint", *sorted(f for pattern in CYTHON_FILES for f in glob.glob(pattern)))


@nox.session(default=False)
def types(session: nox.Session) -> None:
    """mypy, configured in pyproject.toml, with the dependencies CI's mypy sees installed.

    The dispatcher's accessors are the Python twins to mypy, so the pure build is enough."""
    session.install(".[test,plot]", "mypy", env=PURE)
    session.run("mypy", *session.posargs)


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """The documentation with warnings as errors, into docs/_build/html."""
    session.install(".[docs]", env=PURE)
    session.run("sphinx-build", "-W", "--keep-going", "-b", "html", "docs", "docs/_build/html",
                *session.posargs)


@nox.session(default=False)
def build(session: nox.Session) -> None:
    """The sdist, then a wheel built from it, into dist/; then the sdist checked to carry
    every tracked file (tools/check-sdist.sh builds its own from the tracked files)."""
    session.install("build")
    session.run("python", "-m", "build", "--outdir", "dist", ".")
    session.run("bash", "tools/check-sdist.sh", external=True,
                env={"PYTHON": os.path.join(session.bin, "python")})


if __name__ == "__main__":
    nox.main()
