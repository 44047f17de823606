"""CONTRIBUTING.md's layout names every module of the package, and no module it lacks.

Read from the checkout beside the tests, not from the installed package: a wheel ships no
``.pyx`` (the sdist does).
"""
import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
CONTRIBUTING = REPO / "CONTRIBUTING.md"
PACKAGE = REPO / "perceptron_c"
SUFFIXES = (".py", ".pyx", ".pxd", ".pxi", ".h")
MODULE = re.compile(r"\w+(?:\.\w+)*(?:\.py|\.pyx|\.pxd|\.pxi|\.h)")

pytestmark = pytest.mark.skipif(not (CONTRIBUTING.is_file() and PACKAGE.is_dir()),
                                reason="no checkout (CONTRIBUTING.md, perceptron_c/) beside "
                                       "the tests")


def _layout_block():
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text.split("\n## The layout\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"^```\n(.*?)^```$", section, re.S | re.M).group(1)


def _layout():
    """{folder: [module names]}: a folder is a line that starts at column 0; its modules are
    the names that start each indented line below it, up to the first word that is not one
    (the description)."""
    named, folder = {}, None
    for line in _layout_block().splitlines():
        if line[:1].strip():
            folder = line.split()[0].rstrip("/")
            named.setdefault(folder, [])
            continue
        for word in line.split():
            if not MODULE.fullmatch(word):
                break
            named[folder].append(word)
    return named


def _folders():
    """The package and its subpackages, as paths relative to the checkout."""
    found = [PACKAGE] + [p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    return sorted(p.relative_to(REPO).as_posix() for p in found)


def _modules(folder):
    return {p.name for p in (REPO / folder).iterdir() if p.suffix in SUFFIXES and p.is_file()}


def test_the_layout_has_a_part_for_each_package_folder():
    assert sorted(_layout()) == _folders()


@pytest.mark.parametrize("folder", _folders() if PACKAGE.is_dir() else [])
def test_the_layout_names_every_module(folder):
    missing = _modules(folder) - set(_layout().get(folder, []))
    assert not missing, f"CONTRIBUTING.md's layout does not name {sorted(missing)} in {folder}/"


@pytest.mark.parametrize("folder", _folders() if PACKAGE.is_dir() else [])
def test_every_module_the_layout_names_exists(folder):
    listed = _layout().get(folder, [])
    absent = set(listed) - _modules(folder)
    assert not absent, f"CONTRIBUTING.md's layout names {sorted(absent)}, not in {folder}/"
    twice = sorted({name for name in listed if listed.count(name) > 1})
    assert not twice, f"CONTRIBUTING.md's layout names {twice} twice in {folder}/"


def test_the_routines_are_described_as_the_registry_says():
    from perceptron_c._core.registry import ROUTINES

    block = " ".join(_layout_block().split())
    for name, description in ROUTINES.items():
        assert " ".join(description.split()) in block, \
            f"CONTRIBUTING.md's layout does not describe {name} as _core/registry.py does"
