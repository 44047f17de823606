"""The house rules of CONTRIBUTING.md, checked on the installed package's sources: short
modules and functions, and imports that point down the layers only."""
import ast
import pathlib
import re

import pytest

import perceptron_c

PACKAGE = pathlib.Path(perceptron_c.__file__).resolve().parent
CORE = PACKAGE / "_core"
SOURCES = sorted(p for folder in (PACKAGE, CORE) for p in folder.iterdir()
                 if p.suffix in (".py", ".pyx", ".pxd", ".h"))
MODELS = {"perceptron", "kernel_perceptron", "voted_perceptron", "passive_aggressive",
          "budget_perceptron", "kernel_passive_aggressive", "sequence",
          "token_features"}
# models built of models, as a Pipeline is: the tagger is token features plus a sequence model
COMPOSITES = {"tagging", "_tagger_structured"}
# modules that import nothing from the package: every layer may use them, routines included
LEAVES = {"_threads", "exceptions"}
# the one door into the routines folder
DISPATCHER = "_backend"
# what each layer may import from the package (CONTRIBUTING.md: arrows point down only)
BELOW_MODELS = {"_base", "_rows", "_validation", "_backend", "kernels", "theory", "lowlevel",
                "io", "_params", "_threads", "_linear_model", "_sgd_run",
                "_kernel_rows", "_guard", "_tagtext", "_tagger_core"} | LEAVES


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
    """The package's modules a module imports, as (folder, name): folder "" for the
    package's top level, "_core" for the routines."""
    inside_core = path.parent == CORE
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            parts = (node.module or "").split(".") if node.module else []
            base = "_core" if inside_core and node.level == 1 else ""
            if base == "" and parts[:1] == ["_core"]:
                base, parts = "_core", parts[1:]
        elif (node.module or "").startswith("perceptron_c."):
            parts = node.module.split(".")[1:]
            base = "_core" if parts[0] == "_core" else ""
            parts = parts[1:] if base else parts
        else:
            continue
        if parts and parts[0]:
            yield base, parts[0]
        else:
            yield from ((base, alias.name) for alias in node.names)


@pytest.mark.parametrize("path", [p for p in SOURCES if p.suffix == ".py"],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_imports_point_down(path):
    name = path.stem
    imported = set(_package_imports(path))
    top = {n for folder, n in imported if folder == ""}
    core = {n for folder, n in imported if folder == "_core"}
    if path.parent == CORE:
        assert top <= LEAVES, f"routine {name} imports {top - LEAVES} from above the core"
        return
    assert not core or name == DISPATCHER, \
        f"{name} reaches into _core ({core}): go through {DISPATCHER}"
    if name in LEAVES:
        assert not top, f"{name} imports {top} (it must stay a leaf)"
    elif name in MODELS:
        assert top <= BELOW_MODELS, f"model {name} imports {top - BELOW_MODELS}"
    elif name in COMPOSITES:
        allowed = BELOW_MODELS | MODELS | COMPOSITES
        assert top <= allowed, f"composite {name} imports {top - allowed}"
    elif name in BELOW_MODELS:
        above = MODELS | COMPOSITES
        assert not top & above, f"{name} imports the models {top & above}"


def test_the_core_folder_holds_exactly_the_registry():
    """Every routine module of the registry has both twins in _core/, and _core/ holds no
    twin the registry does not list."""
    from perceptron_c._core.registry import HELPER_PXD, ROUTINES, twins

    expected = {f"{m}.pyx" for name in ROUTINES for m in twins(name)[:1]}
    expected |= {f"{twins(name)[1]}.py" for name in ROUTINES}
    found = {p.name for p in CORE.iterdir() if p.name.endswith(("_c.pyx", "_py.py"))}
    assert found == expected
    pxd = {p.stem for p in CORE.iterdir() if p.suffix == ".pxd"}
    assert set(HELPER_PXD) <= pxd and pxd - set(HELPER_PXD) <= {twins(n)[0] for n in ROUTINES}


def test_every_registry_entry_has_its_accessor():
    from perceptron_c import _backend
    from perceptron_c._core.registry import ROUTINES

    source = (PACKAGE / "_backend.py").read_text(encoding="utf-8")
    for name in ROUTINES:
        assert f"from ._core import _{name}_py as {name}\n" in source, name
        assert f"{name} = _Twins({name!r})" in source.replace('"', "'"), name
        assert name in _backend.__all__
