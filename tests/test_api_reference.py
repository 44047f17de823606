"""docs/api.md documents every public name: each class and function a public module exports
(its ``__all__``), and each public method of a documented class. A name added to the code and
not to the reference fails here; CI then builds the reference with Sphinx, warnings as errors,
which fails on a name the reference lists and the code lacks.

The reference is read as Sphinx reads its directives: ``.. autoclass:: name`` and
``.. autofunction:: name`` document one object; ``.. automodule:: module`` with ``:members:``
documents the names listed there, or, with the option bare, the module's ``__all__``.
Constants (upper-case names) are described in their module's docstring instead."""
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import perceptron_c

API = Path(__file__).resolve().parent.parent / "docs" / "api.md"
OPTIONAL = {"perceptron_c.dask": "dask", "perceptron_c.river": "river",
            "perceptron_c.plots": "matplotlib"}


def _option(block, name):
    """The names an option lists (None: the option bare; (): no such option)."""
    found = re.search(rf":{name}:(.*?)(?=\n\s*:[a-z-]+:|\n\s*\n|\n```|$)", block, re.S)
    if found is None:
        return ()
    names = [n.strip() for n in found.group(1).replace("\n", " ").split(",")]
    return [n for n in names if n] or None


def _directives(text):
    """(kind, target, members or None for a bare :members:, or () without the option), the
    names of :exclude-members: left out."""
    found = []
    for block in re.split(r"\n(?=\.\. auto)", text):
        head = re.match(r"\.\. auto(class|function|module|data):: (\S+)", block.strip())
        if not head:
            continue
        listed, excluded = _option(block, "members"), _option(block, "exclude-members") or ()
        if listed:
            listed = [n for n in listed if n not in excluded]
        elif excluded:
            listed = ("all but", *excluded)
        found.append((head.group(1), head.group(2), listed))
    return found


def _resolve(dotted):
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def _public_modules():
    names = ["perceptron_c"] + [f"perceptron_c.{m.name}"
                                for m in pkgutil.iter_modules(perceptron_c.__path__)
                                if not m.name.startswith("_")]
    return [n for n in names if n != "perceptron_c.capi"]  # Cython's: docs/guide.md


def _documented():
    """The objects the reference documents, and each documented class's member list."""
    objects, members = [], {}
    for kind, target, listed in _directives(API.read_text(encoding="utf-8")):
        if kind in ("class", "function"):
            objects.append(_resolve(target))
            if kind == "class":
                members[_resolve(target)] = listed
        elif kind == "module":
            module = importlib.import_module(target)
            if isinstance(listed, tuple) and listed[:1] == ("all but",):
                names = [n for n in module.__all__ if n not in listed[1:]]
            else:
                names = module.__all__ if listed is None else (listed or [])
            for name in names:
                obj = getattr(module, name)
                objects.append(obj)
                if inspect.isclass(obj):
                    members.setdefault(obj, None)  # a class in a module block: all its members
    return objects, members


def _exported(module_name):
    module = importlib.import_module(module_name)
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        if (inspect.isclass(obj) or inspect.isfunction(obj)) and not name.isupper():
            yield name, obj


@pytest.mark.parametrize("module_name", _public_modules())
def test_every_exported_class_and_function_is_in_the_reference(module_name):
    if module_name in OPTIONAL:
        pytest.importorskip(OPTIONAL[module_name])
    module = importlib.import_module(module_name)
    assert hasattr(module, "__all__"), f"{module_name} has no __all__"
    objects, _ = _documented()
    missing = [name for name, obj in _exported(module_name)
               if not any(obj is known for known in objects)]
    assert not missing, f"docs/api.md lacks {module_name}: {missing}"


def test_every_public_method_of_a_documented_class_is_listed():
    _, members = _documented()
    for cls, listed in members.items():
        if listed is None:
            continue
        public = {name for name, _ in inspect.getmembers(cls)
                  if not name.startswith("_") and hasattr(cls, name)  # (available_if)
                  and callable(getattr(cls, name))
                  and not inspect.isclass(getattr(cls, name))}
        missing = sorted(public - set(listed))
        assert not missing, f"docs/api.md: {cls.__name__}'s :members: lacks {missing}"


def test_the_reader_sees_what_the_parser_reads():
    found = _directives(".. autoclass:: a.B\n   :members: fit, predict,\n             score\n"
                        "   :inherited-members:\n\n.. automodule:: a\n   :members:\n\n"
                        ".. automodule:: c\n   :members:\n   :exclude-members: X, f\n")
    assert found == [("class", "a.B", ["fit", "predict", "score"]), ("module", "a", None),
                     ("module", "c", ("all but", "X", "f"))]
