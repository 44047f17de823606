"""The house rules of CONTRIBUTING.md, checked on the installed package's sources: short
modules and functions, and imports that point down the layers only."""
import ast
import pathlib
import re

import pytest

import perceptron_c

PACKAGE = pathlib.Path(perceptron_c.__file__).resolve().parent
SOURCES = sorted(p for p in PACKAGE.iterdir() if p.suffix in (".py", ".pyx", ".pxd", ".h"))
MODELS = {"perceptron", "kernel_perceptron", "voted_perceptron", "passive_aggressive",
          "budget_perceptron", "kernel_passive_aggressive", "sequence",
          "token_features"}
# models built of models, as a Pipeline is: the tagger is token features plus a sequence model
COMPOSITES = {"tagging", "_tagger_structured"}
ROUTINES = {f"_{name}_{twin}" for name in ("linear", "gram", "dual", "conjunction", "voted", "sgd",
                                           "kpa", "order", "sequence", "tagging",
                                           "features")
            for twin in ("c", "py")}
# what each layer may import from the package (DESIGN.md: arrows point down only)
BELOW_MODELS = {"_base", "_rows", "_validation", "_backend", "kernels", "theory", "lowlevel",
                "io", "_params", "_threads", "_linear_model", "_sgd_run",
                "_kernel_rows", "_guard", "_tagtext", "_tagger_core"} | ROUTINES
# modules that import nothing from the package: every layer may use them, routines included
LEAVES = {"_threads"}


def _lines(path):
    return path.read_text(encoding="utf-8").count("\n")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_module_over_600_lines(path):
    assert _lines(path) <= 600, f"{path.name} has {_lines(path)} lines"


def _python_functions(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name, node.end_lineno - node.lineno + 1


def _cython_functions(path):
    """def/cdef/cpdef functions of a .pyx: from their first line to the next line at the
    same or a lower indentation."""
    lines = path.read_text(encoding="utf-8").split("\n")
    start = re.compile(r"^(\s*)(?:cdef|cpdef|def)\s+(?:[\w\[\]:,\s\*]+\s+)?(\w+)\s*\(")
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
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                yield node.module.split(".")[0]
            else:
                yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("perceptron_c."):
            yield node.module.split(".")[1]


@pytest.mark.parametrize("path", [p for p in SOURCES if p.suffix == ".py"],
                         ids=lambda p: p.name)
def test_imports_point_down(path):
    name = path.stem
    imported = set(_package_imports(path))
    if name in LEAVES:
        assert not imported, f"{name} imports {imported} (it must stay a leaf)"
    elif name in ROUTINES:
        allowed = ROUTINES | LEAVES
        assert imported <= allowed, f"routine {name} imports {imported - allowed}"
    elif name in MODELS:
        assert imported <= BELOW_MODELS, f"model {name} imports {imported - BELOW_MODELS}"
    elif name in COMPOSITES:
        allowed = BELOW_MODELS | MODELS | COMPOSITES
        assert imported <= allowed, f"composite {name} imports {imported - allowed}"
    elif name in BELOW_MODELS:
        above = MODELS | COMPOSITES
        assert not imported & above, f"{name} imports the models {imported & above}"
