"""The arithmetic contract is written once per language: twins share it, not each other."""
import ast
import re
from pathlib import Path

import numpy as np
import pytest

from perceptron_c._core import _contract
from perceptron_c._core.registry import HELPER_PXD, HELPER_PY, ROUTINES, twins

CORE = Path(__file__).resolve().parents[1] / "perceptron_c" / "_core"
PY_TWINS = sorted(CORE.glob("_*_py.py"))
C_TWINS = sorted(CORE.glob("_*_c.pyx")) + sorted(CORE.glob("_*_c.pxd"))


def _private_imports_from_twins(tree):
    """(module, name) of every `from ._x_py import _name` (absolute form too) in tree."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            module = node.module.rsplit(".", 1)[-1]
            if re.fullmatch(r"_\w+_py", module):
                found += [(module, a.name) for a in node.names if a.name.startswith("_")]
    return found


def test_the_twins_are_found():
    assert {p.stem for p in PY_TWINS} == {twins(n)[1] for n in ROUTINES}
    assert {p.stem for p in C_TWINS if p.suffix == ".pyx"} == {twins(n)[0] for n in ROUTINES}


@pytest.mark.parametrize("path", PY_TWINS, ids=lambda p: p.stem)
def test_no_python_twin_imports_a_private_name_of_another_twin(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = _private_imports_from_twins(tree)
    assert not bad, f"{path.name} imports {bad}: shared helpers belong in _contract"


def _python_imports(source):
    """The Python-level `from ... import ...` statements of a .pyx/.pxd (not its cimports)."""
    pattern = r"^from[ \t]+\S+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)"
    return [ast.parse(m.group(0)).body[0] for m in re.finditer(pattern, source, re.M)]


@pytest.mark.parametrize("path", C_TWINS, ids=lambda p: p.name)
def test_no_c_twin_imports_a_private_name_of_another_python_twin(path):
    own = path.stem[:-2] + "_py"  # _x_c -> _x_py
    tree = ast.Module(body=_python_imports(path.read_text(encoding="utf-8")), type_ignores=[])
    bad = [(m, n) for m, n in _private_imports_from_twins(tree) if m != own]
    assert not bad, f"{path.name} imports {bad}: shared helpers belong in _contract"


def test_the_rule_catches_a_private_import():
    bad = ast.parse("from ._dual_py import _need, check\nfrom perceptron_c._core._linear_py "
                    "import _dot\nfrom ._contract import need\n")
    assert _private_imports_from_twins(bad) == [("_dual_py", "_need"), ("_linear_py", "_dot")]
    pyx = ("from perceptron_c._core._checks cimport (need,\n    non_finite)\n"
           "from perceptron_c._core._gram_py import (_check_float, _norms,\n    row_norms)\n"
           "from perceptron_c._core._dual_py import _dot4\n")
    tree = ast.Module(body=_python_imports(pyx), type_ignores=[])
    assert _private_imports_from_twins(tree) == [("_gram_py", "_check_float"),
                                                 ("_gram_py", "_norms"), ("_dual_py", "_dot4")]


def test_the_core_helpers_are_registered():
    """Besides the twins, _core holds the registry and the helpers it lists, nothing else."""
    py = {p.stem for p in CORE.glob("*.py")} - {p.stem for p in PY_TWINS}
    assert py == {"__init__", "registry", *HELPER_PY}
    assert "_lanes" in HELPER_PXD and (CORE / "_lanes.pxd").is_file()


def test_every_c_twin_that_sums_lanes_takes_them_from_lanes_pxd():
    """No C twin writes its own 4-lane sum: the lanes (s0 + s1) + (s2 + s3) appear in
    _lanes.pxd only (the headers vectorize the same contract for Gram and emission blocks)."""
    for path in C_TWINS:
        text = path.read_text(encoding="utf-8")
        assert "(s0 + s1) + (s2 + s3)" not in text, path.name
        assert "(s[0] + s[1]) + (s[2] + s[3])" not in text, path.name


# ---- the lane sums themselves: the forms agree with each other and with plain sums on
# integer data (where every float sum is exact)

def test_lane_sums_on_integer_data():
    rng = np.random.default_rng(0)
    for n in range(0, 11):
        a = rng.integers(-9, 10, n).astype(float).tolist()
        b = rng.integers(-9, 10, n).astype(float).tolist()
        exact = float(sum(x * y for x, y in zip(a, b)))
        assert _contract.dot4(a, b) == exact
        assert _contract.dot4_indexed(a, None, b) == exact
        assert _contract.dot4_indexed(a, list(range(n)), b) == exact
        assert _contract.dot4_cols(a, b, list(range(n))) == exact
        assert _contract.dot4_cols(a, b, None) == exact
        assert _contract.sqnorm4(a) == float(sum(x * x for x in a))


def test_lane_order():
    # 2^53 + 1 - 2^53 in one lane loses the 1; spread over lanes it does not: the lanes are
    # k % 4 (by position for dot4_indexed, by column for dot4_cols)
    big = 2.0 ** 53
    a = [big, 1.0, 0.0, 0.0, -big]
    ones = [1.0] * 5
    assert _contract.dot4(a, ones) == 1.0  # big and -big share lane 0: 0.0 + 1.0
    assert _contract.dot4([big, 1.0, -big], ones) == 0.0  # (big + 1) + (-big) rounds
    assert _contract.dot4_indexed([big, 1.0, -big], [0, 4, 5], [1.0] * 6) == 0.0
    w = [1.0] * 8
    # by column: columns 0 and 4 share lane 0, column 5 is lane 1
    assert _contract.dot4_cols(w, [big, 1.0, -big], [0, 4, 5]) == 0.0
    assert _contract.dot4_cols(w, [big, -big, 1.0], [0, 4, 5]) == 1.0


def test_checks_raise_the_documented_errors():
    with pytest.raises(ValueError, match="what"):
        _contract.need(False, "what")
    _contract.need(True, "what")
    err = _contract.non_finite(3, 7)
    assert isinstance(err, FloatingPointError) and "position 3" in str(err) and "row 7" in str(err)
    with pytest.raises(OverflowError):
        _contract.check_headroom(np.array([2**60, 2**60]), 0, "alpha")
    _contract.check_headroom(np.array([2**59, -(2**59)]), 0, "alpha")
    assert _contract.exact([1, -1, 3], [70, 2, 0], 5) == (1 << 70) - 4 + 3 + 5
