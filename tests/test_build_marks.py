"""setup.py's marks on the generated C (compiled for size or for speed), checked on Cython's
real output for a module shaped like the routine modules: a def gate that checks and then
runs a nogil loop in chunks, a fused dispatcher, a path switch, and the cdef functions.

A function marked for size that does the work would make an epoch slower without failing a
test of its results; here that fails. Needs Cython (the test extra installs it).
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).parents[1]

SOURCE = '''
from cpython.exc cimport PyErr_CheckSignals
from cython cimport floating

cdef int check_rows(Py_ssize_t n) except -1:
    if n < 0:
        raise ValueError("n must be >= 0")
    return 0

cdef double total(const double* x, Py_ssize_t n) noexcept nogil:
    cdef double s = 0
    cdef Py_ssize_t i
    for i in range(n):
        s += x[i]
    return s

cdef int between_chunks() except -1:
    PyErr_CheckSignals()
    return 0

def epoch(const double[::1] x):
    cdef double s = 0
    cdef Py_ssize_t start
    check_rows(x.shape[0])
    for start in range(0, x.shape[0], 1024):
        with nogil:
            s += total(&x[start], min(1024, x.shape[0] - start))
        between_chunks()
    return s

def fill(double[::1] x):
    cdef Py_ssize_t i
    with nogil:
        for i in range(x.shape[0]):
            x[i] = 0

def total_now(const double[::1] x):
    return total(&x[0], x.shape[0])

def fused_epoch(const floating[::1] x):
    return x.shape[0]

def set_path(name):
    if name not in ("a", "b"):
        raise ValueError(name)
    return name
'''


def _setup_functions():
    """setup.py's marking functions and constants, without running setup()."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    keep = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
            and all(alias.name in ("os", "re", "sys") for alias in node.names)
            or isinstance(node, ast.FunctionDef) and node.name in ("glue_functions",
                                                                    "mark_functions")
            or isinstance(node, ast.Assign) and node.targets[0].id in (
                "HEAD", "DEFINITION", "CALL", "NOGIL", "OBJECT_CODE", "PRELUDE")]
    namespace: dict = {}
    exec(compile(ast.Module(body=keep, type_ignores=[]), "setup.py", "exec"), namespace)
    return namespace


KINDS = (("__pyx_pw_", "pw"), ("__pyx_pf_", "pf"), ("__pyx_gb_", "gb"), ("__pyx_f_", "f"),
         ("__Pyx", "Pyx"))


@pytest.fixture(scope="module")
def marked(tmp_path_factory):
    """{"kind name": its marks} in the marked C of SOURCE (kind: pw a wrapper, pf a def
    body, f a cdef function, Pyx one of Cython's helpers)."""
    pytest.importorskip("Cython")
    from Cython.Build import cythonize

    folder = tmp_path_factory.mktemp("marks")
    (folder / "_demo_c.pyx").write_text(SOURCE, encoding="utf-8")
    cythonize([str(folder / "_demo_c.pyx")], quiet=True,
              compiler_directives={"language_level": 3, "binding": False})
    _setup_functions()["mark_functions"](str(folder / "_demo_c.c"))
    text = (folder / "_demo_c.c").read_text(encoding="utf-8")
    marks = {}
    for line in text.splitlines():
        for mark in ("PC_GLUE_SIZE", "PC_GLUE", "PC_ROUTINE_BODY"):
            if line.startswith("static") and f" {mark} " in line and "(" in line:
                name = line.split("(")[0].split()[-1].lstrip("*")
                kind = next(kind for prefix, kind in KINDS if prefix in name)
                short = name.split("_demo_c_")[-1].lstrip("0123456789").lstrip("_")
                marks.setdefault(f"{kind} {short}", set()).add(mark)
    return marks


def test_the_work_is_compiled_for_speed(marked):
    # the def body that releases the GIL around its loop, and the nogil loop (unmarked: -O3)
    assert marked["pf epoch"] == {"PC_ROUTINE_BODY"}
    assert marked["pf fill"] == {"PC_ROUTINE_BODY"}  # its loop without the GIL, no call
    assert marked["pf total_now"] == {"PC_ROUTINE_BODY"}  # the loop called with the GIL
    assert "f total" not in marked


def test_the_glue_is_compiled_for_size(marked):
    assert marked["pf set_path"] == {"PC_GLUE"}  # checks, holds the GIL, calls nothing
    assert marked["pf fused_epoch"] == {"PC_GLUE"}  # the fused dispatcher
    wrappers = {name: mark for name, mark in marked.items() if name.startswith("pw ")}
    assert len(wrappers) >= 4 and all(mark == {"PC_GLUE"} for mark in wrappers.values())
    # the gate's checks, called from the work: for size, but never cold (a cold call would
    # make GCC compile the chunk loop around it for size)
    assert marked["f check_rows"] == marked["f between_chunks"] == {"PC_GLUE_SIZE"}
    # Cython's own helpers (argument parsing, tracebacks): for size, never cold
    helpers = [mark for name, mark in marked.items() if name.startswith("Pyx ")]
    assert len(helpers) > 10 and all(mark == {"PC_GLUE_SIZE"} for mark in helpers)
