"""No value the library computes goes through BLAS: its sums change with the BLAS kernel
and thread count (see tests/test_kernel_scale.py's test_float_kernels_do_not_depend_on_blas)."""
import ast
import pathlib
import re

import perceptron_c

PACKAGE = pathlib.Path(perceptron_c.__file__).parent
# the .pyx sources: a wheel ships none, so they are read from the checkout beside the tests
SOURCES = pathlib.Path(__file__).resolve().parents[1] / "perceptron_c"
BLAS_CALLS = {"dot", "matmul", "inner", "vdot", "tensordot", "einsum", "einsum_path", "linalg"}
# figures only: what they compute is drawn, never returned or trained on; and the SGD
# twin's own WeightVector.dot (a sequential sum in Python)
ALLOWED = {"plots.py": {"np.dot", "np.linalg"}, "demo.py": {"np.linalg"},
           "_sgd_py.py": {".dot"}}


def _uses(tree):
    """(line, what) for every matrix product and BLAS-backed numpy call in a module: "@",
    "np.<name>" or ".<name>" (a method, as ndarray.dot)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, ast.MatMult):
            yield node.lineno, "@"
        elif isinstance(node, ast.Attribute) and node.attr in BLAS_CALLS:
            on_numpy = isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy")
            yield node.lineno, ("np." if on_numpy else ".") + node.attr


def test_no_blas_in_python_modules():
    found = []
    paths = sorted(PACKAGE.rglob("*.py"))
    assert any(p.parent.name == "_core" for p in paths)  # the twins are read too
    for path in paths:
        allowed = ALLOWED.get(path.name, set())
        for line, what in _uses(ast.parse(path.read_text(encoding="utf-8"))):
            if what not in allowed:
                found.append(f"{path.name}:{line}: {what}")
    assert not found, found


def test_no_blas_in_compiled_modules():
    pattern = re.compile(r"\bnp\.(?:" + "|".join(sorted(BLAS_CALLS)) + r")\b|\S\s@\s|\s@=")
    found = []
    paths = sorted(SOURCES.rglob("*.pyx"))
    assert len(paths) >= 12, f"no .pyx sources under {SOURCES}"
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if pattern.search(code):
                found.append(f"{path.name}:{number}: {line.strip()}")
    assert not found, found


def test_the_check_finds_a_product():
    tree = ast.parse("import numpy as np\na = x @ y\nb = np.dot(x, y)\nc = np.linalg.norm(x)\n"
                     "d = x.dot(y)\ne = np.einsum('ij,ij->i', x, x)\n")
    assert [w for _, w in sorted(_uses(tree))] == ["@", "np.dot", "np.linalg", ".dot",
                                                   "np.einsum"]
