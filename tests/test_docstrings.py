"""Public functions and methods have their numpydoc sections; cited keys are in the bibliography.

The public API is each public module's ``__all__`` (the top-level ``perceptron_c/*.py``
modules and rooms (``kernels/``, ``tagging/``, ...) without a leading underscore, the C API's
declarations aside, and ``perceptron_c`` itself) and the public methods of
the classes it exports that the package defines (inherited ones are checked once, where they
are defined). A function with parameters needs a ``Parameters`` section naming each of them; one
that returns a value needs ``Returns``, a generator ``Yields``; a class whose ``__init__`` takes
parameters lists them in the class docstring. Properties need only a summary line.
"""
import ast
import importlib
import inspect
import pathlib
import pkgutil
import re
import textwrap

import pytest

import perceptron_c

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCES = ROOT / "perceptron_c"
BIBLIOGRAPHY = ROOT / "docs" / "bibliography.md"
MODULES = ["perceptron_c"] + [
    f"perceptron_c.{m.name}" for m in pkgutil.iter_modules(perceptron_c.__path__)
    if not m.name.startswith("_") and m.name != "capi"]
SECTION = re.compile(r"^(\w[\w ]*)\n-{3,}[ \t]*$", re.M)
# a key of docs/bibliography.md as the sources cite it: author and year ([Collins2002]), or
# lecturer and course for lecture notes ([Bunescu-CS4900]); not an index such as x[K1]
KEY = re.compile(r"(?<![\w\]])\[([A-Z][A-Za-z]+(?:\d{4}[a-z]?|-[A-Z]+\d+))\]")


def _ours(obj):
    return (getattr(obj, "__module__", None) or "").startswith("perceptron_c")


def _public_api():
    """(qualified name, object) of every public function, class and method, each once."""
    found = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attr in module.__all__:
            obj = getattr(module, attr)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)) or not _ours(obj):
                continue
            found[f"{obj.__module__}.{obj.__qualname__}"] = obj
            if not inspect.isclass(obj):
                continue
            for klass in obj.__mro__:
                if not _ours(klass):
                    continue
                for key, value in vars(klass).items():
                    if key.startswith("_"):
                        continue
                    if isinstance(value, (staticmethod, classmethod)):
                        value = value.__func__
                    if inspect.isfunction(value) or isinstance(value, property):
                        found[f"{klass.__module__}.{klass.__qualname__}.{key}"] = (value, klass)
    return sorted((name, *(v if isinstance(v, tuple) else (v, None)))
                  for name, v in found.items())


API = _public_api()


def sections(doc):
    """The numpydoc sections of a docstring: {title: body}."""
    doc = inspect.cleandoc(doc or "")
    heads = list(SECTION.finditer(doc))
    return {h.group(1): doc[h.end():heads[i + 1].start() if i + 1 < len(heads) else None]
            for i, h in enumerate(heads)}


def documented_names(body):
    """The parameter names a Parameters section lists (``a, b : int`` names two)."""
    names = set()
    for line in body.splitlines():
        if line and not line[0].isspace():
            for name in line.split(" : ")[0].split(","):
                names.add(name.strip().lstrip("*"))
    return names


def _own_nodes(function):
    """The AST nodes of a function's own body, not of functions or classes nested in it."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError):
        return []
    todo, nodes = list(ast.iter_child_nodes(tree.body[0])), []
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        nodes.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return nodes


def problems(obj, owner=None):
    """What the docstring of one public definition lacks, as a list of sentences.

    A property of ``owner`` may instead be listed in the owner's ``Attributes`` section.
    """
    if isinstance(obj, property):
        listed = documented_names(sections(getattr(owner, "__doc__", "")).get("Attributes", ""))
        name = getattr(obj.fget, "__name__", "")
        return [] if (obj.__doc__ or "").strip() or any(
            getattr(owner, n, None) is obj for n in listed) or name in listed \
            else ["no docstring"]
    doc = inspect.getdoc(obj)
    if not doc or not doc.strip():
        return ["no docstring"]
    found = sections(doc)
    if inspect.isclass(obj):
        init = obj.__init__
        if not _ours(init):
            return []
        function, skip = init, 1
    else:
        function, skip = obj, 0
    params = list(inspect.signature(function).parameters)
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    elif skip:
        params = params[skip:]
    out = []
    if params:
        if "Parameters" not in found:
            out.append("no Parameters section")
        else:
            missing = set(params) - documented_names(found["Parameters"])
            if missing:
                out.append(f"Parameters does not name {sorted(missing)}")
    if inspect.isclass(obj):
        return out
    nodes = _own_nodes(function)
    if any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes):
        if "Yields" not in found:
            out.append("a generator without a Yields section")
    elif any(isinstance(n, ast.Return) and n.value is not None
             and not (isinstance(n.value, ast.Constant) and n.value.value is None)
             for n in nodes):
        if "Returns" not in found:
            out.append("returns a value without a Returns section")
    return out


def test_the_api_is_found():
    names = {name for name, *_ in API}
    assert len(API) > 100
    for name in ("perceptron_c.load", "perceptron_c.perceptron.Perceptron",
                 "perceptron_c.kernels._model.KernelClassifier.fit", "perceptron_c.dask.fit",
                 "perceptron_c.kernels._specs.gram", "perceptron_c.tagging.PerceptronTagger.tag"):
        assert name in names


@pytest.mark.parametrize("name,obj,owner", API, ids=[name for name, *_ in API])
def test_numpydoc_sections(name, obj, owner):
    assert problems(obj, owner) == [], name


def test_the_check_can_fail():
    def documented(a, b):
        """Add.

        Parameters
        ----------
        a, b : int
            The numbers.

        Returns
        -------
        int
            Their sum.
        """
        return a + b

    def undocumented(a):
        """Add one.

        Returns
        -------
        int
            One more.
        """
        return a + 1

    def silent(a):
        """Add one.

        Parameters
        ----------
        a : int
            The number.
        """
        return a + 1

    def generator(n):
        """Count.

        Parameters
        ----------
        n : int
            How far.
        """
        yield from range(n)

    assert problems(documented) == []
    assert problems(undocumented) == ["no Parameters section"]
    assert problems(silent) == ["returns a value without a Returns section"]
    assert problems(generator) == ["a generator without a Yields section"]


def _cited_keys():
    keys = {}
    for path in sorted(SOURCES.rglob("*")):
        if path.suffix not in (".py", ".pyx", ".pxd", ".h"):
            continue
        for key in KEY.findall(path.read_text(encoding="utf-8")):
            keys.setdefault(key, str(path.relative_to(ROOT)))
    return keys


def test_every_cited_key_is_in_the_bibliography():
    keys = _cited_keys()
    assert "Collins2002" in keys
    listed = set(re.findall(r"^\s*-?\s*`?\[([^\]]+)\]`?", BIBLIOGRAPHY.read_text("utf-8"), re.M))
    missing = {key: where for key, where in keys.items() if key not in listed}
    assert missing == {}
