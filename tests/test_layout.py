"""The house rules of CONTRIBUTING.md, checked on the installed package's sources: short
modules and functions, and imports that point down the layers only."""
import ast
import pathlib
import re

import pytest
from conftest import c_api_files

import perceptron_c

PACKAGE = pathlib.Path(perceptron_c.__file__).resolve().parent
CORE = PACKAGE / "_core"
SUFFIXES = (".py", ".pyx", ".pxd", ".pxi", ".h")
CHECKOUT_CORE = pathlib.Path(__file__).resolve().parents[1] / "perceptron_c" / "_core"
# every source of the package, its rooms included, and the C sources the wheel does not ship
# (the .pyx, the .pxd and headers that no capi declaration reaches), from the checkout beside
# the tests
SOURCES = sorted(p for p in PACKAGE.rglob("*") if p.suffix in SUFFIXES
                 and "__pycache__" not in p.parts) + sorted(
    p for p in (CHECKOUT_CORE.iterdir() if CHECKOUT_CORE.is_dir() else ())
    if p.suffix in SUFFIXES[1:] and not (CORE / p.name).exists())
# modules are named by their dotted path below perceptron_c ("_utils._validation")
MODELS = {"perceptron", "kernel_perceptron", "voted_perceptron", "passive_aggressive",
          "budget_perceptron", "kernel_passive_aggressive", "sequence",
          "token_features"}
# models built of models, as a Pipeline is: the tagger is token features plus a sequence model
COMPOSITES = {"tagging", "tagging._structured", "tagging._state", "tagging._scores"}
# modules that import nothing from the package but one another (the thread guard raises
# exceptions' ConcurrentUseError): every layer may use them, routines included
LEAVES = {"_utils._threads", "exceptions", "_utils._docs", "_utils._moved"}
# the one door into the routines folder
DISPATCHER = "_backend"
# what each layer may import from the package (CONTRIBUTING.md: arrows point down only)
BELOW_MODELS = {"_backend", "kernels", "theory", "lowlevel", "io",
                "_estimator._base", "_estimator._training",
                "_estimator._linear_model", "_estimator._sgd_run",
                "_utils._rows", "_utils._validation", "_utils._params",
                "_utils._npzfile",
                "kernels._rows", "kernels._model", "kernels._specs",
                "tagging._text", "tagging._codes", "tagging._nltk", "tagging._confusion",
                "tagging._entities"} | LEAVES
# the package's top level: the public modules, the dispatcher, and the rooms (folders)
MAX_TOP_LEVEL = 20


def _dotted(path):
    """A module's dotted name below perceptron_c: "perceptron", "_utils._validation",
    "kernels" for kernels/__init__.py."""
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _docstring_lines(tree):
    """The line numbers of the docstrings of a Python module, its classes and functions."""
    lines = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and body and isinstance(body[0], ast.Expr) and \
                isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def _lines(path):
    """Lines of code: a Python module's docstrings (numpydoc sections on every public
    function, the documentation) do not count; everything else does."""
    text = path.read_text(encoding="utf-8")
    docs = _docstring_lines(ast.parse(text)) if path.suffix == ".py" else set()
    return text.count("\n") - len(docs)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_module_over_600_lines(path):
    assert _lines(path) <= 600, f"{path.name} has {_lines(path)} lines of code"


def _python_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstring_lines(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            span = range(node.lineno, node.end_lineno + 1)
            yield node.name, sum(1 for line in span if line not in docs)


def _cython_functions(path):
    """def/cdef/cpdef functions of a .pyx: from their first line to the next line at the
    same or a lower indentation (a ``cdef class X(Base):`` is not one)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start = re.compile(r"^(\s*)(?:cdef|cpdef|def)\s+(?!class\s)(?:[\w\[\]:,\s\*]+\s+)?(\w+)"
                       r"\s*\(")
    for i, line in enumerate(lines):
        match = start.match(line)
        if not match or line.rstrip().endswith(")") and "nogil" in line and ":" not in line:
            continue
        indent = len(match.group(1))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip()) > indent or
                                  lines[j].lstrip().startswith((")", "#"))):
            j += 1
        while j > i + 1 and not lines[j - 1].strip():
            j -= 1
        yield match.group(2), j - i


@pytest.mark.parametrize("path", [p for p in SOURCES if p.suffix in (".py", ".pyx")],
                         ids=lambda p: p.name)
def test_no_function_over_80_lines(path):
    functions = _python_functions(path) if path.suffix == ".py" else _cython_functions(path)
    long = [(name, n) for name, n in functions if n > 80]
    assert not long, f"{path.name}: {long}"


def _package_imports(path):
    """The package's modules a module imports, by dotted name below perceptron_c
    ("_core._linear_py", "_utils._validation"): ``from X import name`` counts as X.name when
    X.name is a module, else as X."""
    here = list(path.relative_to(PACKAGE).parts[:-1])
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = here[:len(here) - node.level + 1]
            parts = base + (node.module.split(".") if node.module else [])
        elif node.module == "perceptron_c" or (node.module or "").startswith("perceptron_c."):
            parts = node.module.split(".")[1:]
        else:
            continue
        for alias in node.names:
            sub = PACKAGE.joinpath(*parts, alias.name)
            if sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file():
                yield ".".join(parts + [alias.name])
            elif parts:
                yield ".".join(parts)


@pytest.mark.parametrize("path", [p for p in SOURCES if p.suffix == ".py"],
                         ids=lambda p: _dotted(p) or "__init__")
def test_imports_point_down(path):
    name = _dotted(path)
    imported = set(_package_imports(path))
    core = {n for n in imported if n.startswith("_core")}
    if path.parent == CORE:
        assert not imported - core - LEAVES, \
            f"routine {name} imports {imported - core - LEAVES} from above the core"
        return
    assert not core or name == DISPATCHER, \
        f"{name} reaches into _core ({core}): go through {DISPATCHER}"
    top = imported - core
    if name in LEAVES:
        assert top <= LEAVES - {name}, f"{name} imports {top - LEAVES} (it must stay a leaf)"
    elif name in MODELS:
        assert top <= BELOW_MODELS, f"model {name} imports {top - BELOW_MODELS}"
    elif name in COMPOSITES:
        allowed = BELOW_MODELS | MODELS | COMPOSITES
        assert top <= allowed, f"composite {name} imports {top - allowed}"
    elif name in BELOW_MODELS:
        above = MODELS | COMPOSITES
        assert not top & above, f"{name} imports the models {top & above}"


def test_the_top_level_is_the_public_modules_and_the_rooms():
    """The package's top level holds its public modules, the dispatcher and the rooms; a
    wing's private modules live in its room (crfsuite/_train.py, not crfsuite/_train.py)."""
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL, top
    private = [n for n in top if n.startswith("_") and not n.startswith("__")]
    assert private == ["_backend.py"], private
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == {"_core", "capi", "_estimator", "_utils", "crfsuite", "dask", "datasets",
                     "kernels", "river", "tagging"}, rooms


def test_the_installed_core_holds_the_registry():
    """Every routine module of the registry is installed: its Python twin, and its compiled
    twin where the C core is in use (tests/test_contract.py checks the checkout's sources);
    and so are the .pxd files and headers of the C API."""
    import importlib.util

    from perceptron_c._core.registry import ROUTINES, twins

    for name in ROUTINES:
        c, py = twins(name)
        assert (CORE / f"{py}.py").is_file(), py
        if perceptron_c.BACKEND == "c":
            spec = importlib.util.find_spec(f"perceptron_c._core.{c}")
            assert spec is not None and spec.origin.endswith(tuple(
                importlib.machinery.EXTENSION_SUFFIXES)), c
    # the .pxd files and headers behind perceptron_c.capi (the checkout holds them all)
    assert c_api_files() <= {p.name for p in CORE.iterdir()}


def test_every_registry_entry_has_its_accessor():
    from perceptron_c import _backend
    from perceptron_c._core.registry import ROUTINES

    source = (PACKAGE / "_backend.py").read_text(encoding="utf-8")
    for name in ROUTINES:
        assert f"from ._core import _{name}_py as {name}\n" in source, name
        assert f"{name} = _Twins({name!r})" in source.replace('"', "'"), name
        assert name in _backend.__all__


# the route of a fit at its defaults, read as a reader reads it: the Python files whose
# functions run from the call to its first epoch (CONTRIBUTING.md: "the route of a fit")
MAX_FILES_TO_THE_FIRST_EPOCH = 6


def _route_to_first_epoch(fit):
    """The package's Python files (relative to it, in order of first call) whose functions
    run from ``fit()`` until ``_training.epoch`` is called, and whether it was."""
    import sys

    files, reached = [], []

    def profile(frame, event, arg):
        if reached or event != "call":
            return
        path = pathlib.Path(frame.f_code.co_filename).resolve()
        if frame.f_code.co_name == "epoch" and path == PACKAGE / "_estimator" / "_training.py":
            reached.append(True)
        elif PACKAGE in path.parents and CORE not in path.parents:
            rel = path.relative_to(PACKAGE).as_posix()
            if rel not in files:
                files.append(rel)

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        fit()
    finally:
        sys.setprofile(old)
    return files, bool(reached)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_a_perceptron_fit_reaches_its_first_epoch_through_six_files(n_classes):
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, n_classes, size=40)
    files, reached = _route_to_first_epoch(
        lambda: perceptron_c.Perceptron(max_iter=1).fit(X, y))
    assert reached
    assert "perceptron.py" in files and "_estimator/_training.py" in files
    assert len(files) <= MAX_FILES_TO_THE_FIRST_EPOCH, files
