"""mypy passes on the package and follows a model's routine call into the Python twin.

The dispatcher's accessors are the Python twins to a type checker (``_backend.py``), so a
call such as ``Perceptron.fit``'s ``_backend.linear.perceptron_epoch_dense(...)`` is checked
against the specification's signature. mypy is in the ``dev`` extra: without it, or outside
a checkout (no pyproject.toml above this folder), these tests skip.
"""
import pathlib
import re

import pytest

api = pytest.importorskip("mypy.api")

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONFIG = ROOT / "pyproject.toml"
pytestmark = pytest.mark.skipif(not (CONFIG.is_file() and (ROOT / "perceptron_c").is_dir()),
                                reason="needs a checkout: pyproject.toml and perceptron_c/")

ROUTINE = "perceptron_epoch_dense"
SNIPPET = """\
import numpy as np

from perceptron_c import _backend
from perceptron_c._core import _linear_py

X = np.zeros((2, 3))
y = np.array([1.0, -1.0])
order = np.arange(2, dtype=np.int64)
w, b = np.zeros(3), np.zeros(1)
{call}
"""
RIGHT = "mistakes: int = _backend.linear.perceptron_epoch_dense(X, y, order, w, b, True, False)"
WRONG = "_backend.linear.perceptron_epoch_dense('not an array', y, order, w, b, True, False)"
REVEAL = ("reveal_type(_backend.linear.perceptron_epoch_dense)\n"
          "reveal_type(_linear_py.perceptron_epoch_dense)")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    # one cache for the module: the snippets' runs reuse what the package's run analysed
    return tmp_path_factory.mktemp("mypy_cache")


def _mypy(args, cache_dir):
    stdout, stderr, status = api.run(["--config-file", str(CONFIG), "--cache-dir",
                                      str(cache_dir), *args])
    assert status in (0, 1), f"mypy crashed (status {status}):\n{stdout}\n{stderr}"
    return stdout, status


def _check_snippet(call, tmp_path, cache_dir, monkeypatch):
    """mypy's lines about one snippet module that imports the checkout's package."""
    path = tmp_path / "snippet.py"
    path.write_text(SNIPPET.format(call=call))
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # the checkout's package, not an installed one
    # the config's per-module sections name modules a snippet does not import
    stdout, _ = _mypy(["--no-warn-unused-configs", str(path)], cache_dir)
    return [line for line in stdout.splitlines() if line.startswith(str(path))]


def test_the_package_has_no_type_errors(cache_dir):
    stdout, status = _mypy([str(ROOT / "perceptron_c")], cache_dir)
    assert status == 0 and "error:" not in stdout, stdout


def test_a_wrong_argument_to_a_routine_is_an_error_naming_it(tmp_path, cache_dir, monkeypatch):
    lines = _check_snippet(WRONG, tmp_path, cache_dir, monkeypatch)
    errors = [line for line in lines if ": error:" in line]
    assert len(errors) == 1, lines
    assert f'Argument 1 to "{ROUTINE}" has incompatible type "str"' in errors[0], errors
    assert errors[0].endswith("[arg-type]"), errors


def test_the_right_call_is_no_error(tmp_path, cache_dir, monkeypatch):
    lines = _check_snippet(RIGHT, tmp_path, cache_dir, monkeypatch)
    assert lines == [], lines


def test_the_accessor_is_the_python_twin(tmp_path, cache_dir, monkeypatch):
    lines = _check_snippet(REVEAL, tmp_path, cache_dir, monkeypatch)
    revealed = [m.group(1) for m in map(re.compile(r'.*Revealed type is "(.*)"$').match, lines)
                if m]
    assert len(revealed) == 2, lines
    via_backend, twin = revealed
    # the spec's signature, parameter by parameter: not Any, not some other routine's
    assert via_backend.startswith("def (X: ") and "sample_weight: " in via_backend, lines
    assert via_backend == twin, lines
