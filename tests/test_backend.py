"""The dispatcher and the package's import: which twin runs, and what importing costs.

Each check that depends on how the package was installed runs in a fresh interpreter, on a
copy of the package's Python files laid out as the install would be (compiled modules, a
pure build's PURE_BUILD marker, or neither, as in a checkout that was never built).
"""
import os
import pathlib
import pkgutil
import shutil
import threading

import pytest
from conftest import run_python, skip_without_optional

import perceptron_c
from perceptron_c import _backend

PACKAGE = pathlib.Path(perceptron_c.__file__).resolve().parent


def _run(code, env_extra=None, path=None):
    env = {k: v for k, v in os.environ.items() if k != "PERCEPTRON_C_NO_EXTENSIONS"}
    env.update(env_extra or {})
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return run_python(["-c", code], env=env, capture_output=True, text=True, timeout=120,
                      cwd=path)


def _copy_package(tmp_path, with_compiled, pure_marker):
    """The package's sources (its rooms included: an import of a room missing from the copy
    would fail, or, beside an editable install, find the checkout's), without the compiled
    core unless ``with_compiled``."""
    folders = [PACKAGE] + sorted(p.parent for p in PACKAGE.rglob("__init__.py")
                                 if p.parent != PACKAGE and "__pycache__" not in p.parts)
    for folder in folders:
        target = tmp_path / folder.relative_to(PACKAGE.parent)
        target.mkdir()
        for f in folder.iterdir():
            compiled = f.name.endswith((".so", ".pyd"))
            if f.is_file() and (f.suffix in (".py", ".pxd", ".h") or
                                (compiled and with_compiled)):
                shutil.copy(f, target / f.name)
    target = tmp_path / "perceptron_c"
    if pure_marker:
        (target / "PURE_BUILD").write_text("pure\n")
    return tmp_path


def test_never_built_checkout_is_a_clear_import_error(tmp_path):
    root = _copy_package(tmp_path, with_compiled=False, pure_marker=False)
    result = _run("import perceptron_c", path=root)
    assert result.returncode != 0
    assert "the C core is not built" in result.stderr
    assert "PERCEPTRON_C_NO_EXTENSIONS=1" in result.stderr


def test_pure_build_warns_once_and_runs_the_twins(tmp_path):
    root = _copy_package(tmp_path, with_compiled=False, pure_marker=True)
    code = ("import warnings\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    import perceptron_c, importlib; importlib.reload(perceptron_c)\n"
            "print(perceptron_c.BACKEND, sorted({x.category.__name__ for x in w}), len(w))")
    result = _run(code, path=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["python", "['PureBuildWarning']", "1"]


def test_variable_selects_the_twins_silently(tmp_path):
    root = _copy_package(tmp_path, with_compiled=False, pure_marker=True)
    code = ("import warnings; warnings.simplefilter('error')\n"
            "import perceptron_c; print(perceptron_c.BACKEND)")
    result = _run(code, {"PERCEPTRON_C_NO_EXTENSIONS": "1"}, path=root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "python"


def test_import_pulls_in_neither_sklearn_nor_scipy():
    code = ("import sys, perceptron_c\n"
            "print(sorted(m for m in ('sklearn', 'scipy', 'matplotlib', 'pandas') "
            "if m in sys.modules))")
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_import_loads_no_compiled_module_and_no_heavy_stdlib():
    """``import perceptron_c`` stays close to ``import numpy`` (bench/bench_import.py): the
    compiled twins load on first use, zipfile, json, secrets and concurrent.futures with the
    first model file or thread pool. Counted beyond what numpy itself loads."""
    code = ("import sys, numpy\n"
            "before = set(sys.modules)\n"
            "import perceptron_c\n"
            "new = set(sys.modules) - before\n"
            "compiled = [m for m in new if m.startswith('perceptron_c') and "
            "str(getattr(sys.modules[m], '__file__', '') or '').endswith(('.so', '.pyd'))]\n"
            "heavy = [m for m in ('zipfile', 'json', 'secrets', 'concurrent.futures', 'logging',"
            " 'fractions', 'decimal', 'pathlib', 'shutil', 'tempfile', 'ast') if m in new]\n"
            "print(sorted(compiled), sorted(heavy))")
    result = _run(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[]", "[]"]


@pytest.mark.parametrize("name", sorted(
    [m.name for m in pkgutil.iter_modules([str(PACKAGE)])] +
    [f"_core.{m.name}" for m in pkgutil.iter_modules([str(PACKAGE / "_core")])]))
def test_every_module_imports_alone_in_a_fresh_interpreter(name):
    """Catches circular imports: each module first, before anything else of the package."""
    if name.endswith("_c") and perceptron_c.BACKEND != "c":
        pytest.skip("no compiled twins in this install")
    skip_without_optional(name)
    result = _run(f"import perceptron_c.{name}")
    assert result.returncode == 0, result.stderr


def test_using_is_per_thread():
    """A thread that switches to the Python twins never moves another thread off C."""
    seen, ready, release = {}, threading.Event(), threading.Event()

    def switcher():
        with _backend.using("python"):
            ready.set()
            release.wait(5)
            seen["switcher"] = _backend.gram.__name__

    thread = threading.Thread(target=switcher)
    thread.start()
    ready.wait(5)
    seen["main"] = _backend.gram.__name__
    release.set()
    thread.join()
    assert seen["switcher"] == "perceptron_c._core._gram_py"
    assert seen["main"] == f"perceptron_c._core._gram_{'c' if _backend.BACKEND == 'c' else 'py'}"
    assert _backend.active() == _backend.BACKEND


def test_using_rejects_unknown_and_unavailable_twins():
    with pytest.raises(ValueError, match="'c' or 'python'"):
        with _backend.using("fortran"):
            pass
    if _backend.BACKEND == "python":
        with pytest.raises(RuntimeError, match="not available"):
            with _backend.using("c"):
                pass
