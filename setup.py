"""Build script: compiles the Cython twins unless PERCEPTRON_C_NO_EXTENSIONS is set.

Without the variable a compile failure fails the build loudly (and says how to get the pure
build): a wheel that silently fell back to the Python twins would be 100x slower without
telling anyone. With it, the build is pure and leaves a PURE_BUILD file in the package, so
the installed package knows it has no C core on purpose and says so once at import.
"""
import os
import re
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
# the one list of routine modules (perceptron_c/_core/registry.py imports nothing)
REGISTRY = runpy.run_path(os.path.join("perceptron_c", "_core", "registry.py"))
MODULES = [REGISTRY["twins"](name)[0] for name in REGISTRY["ROUTINES"]]
# Cython's runtime support (memoryviews, function objects, ...) compiled once, into this
# module, which the others import, instead of a copy in each of the 13 (Cython 3.1+).
SHARED = "perceptron_c._core._cyutility"
# binding=False: the def functions are builtin functions, not Cython's function objects (40 KB
# less in the wheel); embedsignature's "clinic" format gives each a __text_signature__, from
# which inspect.signature reads its parameters (tests/test_twins.py compares them with the
# Python twin's). unpack_method_calls=False: a Python method call is made as written, without
# the bound-method unpacking inlined at each call site (8 KB less; the tagger's and the token
# features' epochs, whose loops make such calls, changed by under 1.3% in instructions).
DIRECTIVES = {"language_level": 3, "boundscheck": False, "wraparound": False,
              "cdivision": True, "initializedcheck": False, "embedsignature": True,
              "freethreading_compatible": True, "binding": False,
              "embedsignature.format": "clinic", "optimize.unpack_method_calls": False,
              "auto_pickle": False}


def compile_args():
    if sys.platform == "win32":
        # /fp:precise is MSVC's default, stated so that a /fp:fast in the CL environment variable
        # (read before the command line) cannot turn it off. Since Visual Studio 2022 it fuses
        # nothing into FMA (-ffp-contract=off's contract); older compilers fused only where FMA
        # was enabled (/arch:AVX2, never passed) and _simd.h's pragma covers its SIMD paths.
        # No /arch flag: the AVX2 and AVX-512 paths are chosen at run time.
        return ["/O2", "/fp:precise"]
    # Portable and exact: no CPU-specific flags and no contraction into FMA (the twins agree
    # bit for bit); wider instructions (popcount) are chosen at run time instead. -g0: no
    # debug info in the wheels (2.7 MB -> 0.6 MB).
    flags = ["-O3", "-g0", "-fno-strict-aliasing", "-ffp-contract=off"]
    if sys.platform.startswith("linux"):
        # The .eh_frame unwind tables serve C++ exceptions and debuggers' backtraces; C code
        # called from Python needs neither (43 KB less in the wheel, the same speed).
        flags.append("-fno-asynchronous-unwind-tables")
    return flags


def size_args():
    """Flags of the modules compiled for size: Cython's shared runtime runs once per call
    (argument parsing, memoryview acquisition), never per element. -Os shrinks it from 98 to
    55 KB compressed for +0.1 us per routine call; the routine modules stay -O3, where -Os
    made epochs 1.3-2x slower."""
    return [] if sys.platform == "win32" else ["-Os"]


def link_args():
    # The symbol table is for debuggers; the wheel needs only the dynamic symbols (the
    # module's init function): stripped at link time, on Linux (GNU ld, lld).
    return ["-Wl,--strip-all"] if sys.platform.startswith("linux") else []


# What runs once per call is compiled for size, the loops for speed. setup.py reads each
# generated C file and marks its functions (GCC's attributes; clang takes PC_ROUTINE_BODY
# only and MSVC none, whose builds are the same, only larger):
# - PC_GLUE (cold: optimized for size, as Cython's module init): the wrappers (argument
#   parsing, memoryview acquisition) and every def body that does no work of its own, one that
#   neither releases the GIL nor calls a C routine (a cdef function, a pc_ helper) other than
#   glue: the fused dispatchers, the path switches, the Gram drivers around their blocks.
# - PC_GLUE_SIZE (optimize("Os"), not cold): the cdef glue (the gate's checks: they hold the
#   GIL, can raise, call only glue) and Cython's utility functions (-fno-strict-aliasing and
#   -ffp-contract=off hold there too: checked in GCC's assembly). Not cold, because GCC takes
#   the path to a cold call as never run: a chunk loop that calls between_chunks was compiled
#   for size (the conjunction epochs ran 2x slower). In the twins of OBJECT_CODE the cdef
#   functions are the work and keep -O3.
# - PC_ROUTINE_BODY (noinline, used): the other def bodies. noinline: none is folded into a
#   cold wrapper; used: GCC does not infer that a function called only from cold code is cold
#   itself (which made the kernel epochs 2x slower).
# CONTRIBUTING.md, "The wheel's size", has what each measured.
HEAD = (r"^static ((?:CYTHON_INLINE )?)([^\n(;{=]*?)"
        r"\b((?:__pyx_fuse_\d+)?__pyx_(?:pw|pf|gb|f)_\w+|__Pyx_\w+)\(")
DEFINITION = re.compile(HEAD + r"[^;{]*\{\n(.*?)\n\}\n", re.M | re.S)
CALL = re.compile(r"\b((?:__pyx_fuse_\d+)?__pyx_f_\w+|pc_\w+)\(")
NOGIL = re.compile(r"PyEval_SaveThread|Py_UNBLOCK_THREADS|PyGILState_Ensure")
# The twins whose routines work on Python objects (strings, dicts, lists) with the GIL held,
# per token or per feature: there a cdef function that holds the GIL is the work itself.
OBJECT_CODE = ("_features_c", "_tagging_c", "_tokens_c", "_dicts_c", "_crftag_c")
PRELUDE = ("#if defined(__GNUC__) && !defined(__clang__)\n"
           "#define PC_GLUE __attribute__((cold))\n"
           "#define PC_GLUE_SIZE __attribute__((optimize(\"Os\")))\n"
           "#else\n#define PC_GLUE\n#define PC_GLUE_SIZE\n#endif\n"
           "#if defined(__GNUC__) || defined(__clang__)\n"
           "#define PC_ROUTINE_BODY __attribute__((noinline, used))\n"
           "#else\n#define PC_ROUTINE_BODY\n#endif\n")


def glue_functions(text):
    """The glue of one generated C file: the wrappers, and the def bodies and cdef functions
    that hold the GIL throughout and call only glue (a cdef function must also be able to
    raise: one that cannot is a nogil loop)."""
    bodies = {m.group(3): m.group(4) for m in DEFINITION.finditer(text)}

    def alone(name, body):
        if "__pyx_pw_" in name:
            return True
        return not NOGIL.search(body) and ("__pyx_f_" not in name or "__Pyx_AddTraceback" in body)

    glue = {name for name, body in bodies.items() if alone(name, body)}
    while True:  # drop what calls a function that is not glue, until nothing changes
        kept = {name for name in glue if "__pyx_pw_" in name
                or all(c in glue or c == name for c in CALL.findall(bodies[name]))}
        if kept == glue:
            return glue
        glue = kept


def mark_functions(c_file):
    """Rewrite one generated C file as above, once (a file already marked is left)."""
    with open(c_file, encoding="utf-8") as handle:
        text = handle.read()
    if "PC_ROUTINE_BODY" in text:
        return
    glue = glue_functions(text)
    if os.path.basename(c_file)[:-2] in OBJECT_CODE:
        glue = {name for name in glue if "__pyx_f_" not in name}

    def mark(match):
        inline, kind, name = match.groups()
        if name.startswith("__Pyx_"):
            return match.group(0) if inline else f"static PC_GLUE_SIZE {kind}{name}("
        if name in glue:
            attribute = "PC_GLUE_SIZE" if "__pyx_f_" in name else "PC_GLUE"
            return f"static {inline}{attribute} {kind}{name}("
        if "__pyx_f_" in name:
            return match.group(0)
        return f"static {inline}PC_ROUTINE_BODY {kind}{name}("

    text = re.sub(HEAD, mark, text, flags=re.M)
    first, rest = text.split("\n", 1)  # after Cython's "Generated by" line
    with open(c_file, "w", encoding="utf-8") as handle:
        handle.write(first + "\n" + PRELUDE + rest)


class BuildExt(build_ext):
    """Cythonize when the build runs (not at every setup.py invocation), compile the
    modules in parallel, and explain a failed compile."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def run(self):
        from Cython.Build import cythonize

        generated = cythonize(self.extensions, compiler_directives=DIRECTIVES,
                              nthreads=self.parallel or 1,
                              shared_utility_qualified_name=SHARED)
        for ext, c_ext in zip(self.extensions, generated):  # keep setuptools' Extension objects
            ext.sources = c_ext.sources
            if ext.name != SHARED:
                mark_functions(ext.sources[0])
        try:
            super().run()
        except Exception as exc:
            raise SystemExit(
                f"perceptron_c: compiling the C core failed ({exc}).\nInstall a C compiler "
                "(and the Python headers), or build the pure-Python package, about 100x "
                "slower, with PERCEPTRON_C_NO_EXTENSIONS=1 set.") from exc


class BuildPy(build_py):
    """A pure build marks itself, so the installed package can tell it from a broken one."""

    def run(self):
        super().run()
        if NO_EXTENSIONS:
            marker = os.path.join(self.build_lib, "perceptron_c", "PURE_BUILD")
            with open(marker, "w", encoding="utf-8") as handle:
                handle.write("built with PERCEPTRON_C_NO_EXTENSIONS set: no C core\n")


def extensions():
    if NO_EXTENSIONS:
        return []
    flags = {"extra_compile_args": compile_args(), "extra_link_args": link_args()}
    shared = Extension(SHARED, [SHARED.replace(".", "/") + ".c"],
                       **dict(flags, extra_compile_args=compile_args() + size_args()))
    return [shared] + [
        Extension(f"perceptron_c._core.{name}", [f"perceptron_c/_core/{name}.pyx"],
                  include_dirs=["perceptron_c/_core"], **flags)
        for name in MODULES]


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt, "build_py": BuildPy})
