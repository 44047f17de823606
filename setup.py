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
# module, which the others import, instead of a copy in each of the 12 (Cython 3.1+).
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
              "embedsignature.format": "clinic", "optimize.unpack_method_calls": False}


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


# Cython's wrappers (argument parsing, memoryview acquisition: once per call) are compiled
# for size, the routines' bodies for speed. Cython marks its module init CYTHON_SMALL_CODE
# (GCC's cold attribute: optimized for size; empty on clang and MSVC); the wrappers get the
# same mark, and the bodies they call PC_ROUTINE_BODY: noinline, so that no body is folded
# into a cold wrapper, and used, so that GCC does not infer that a function called only from
# cold code is cold itself (which made the kernel epochs 2x slower). 98 KB less compressed
# (the 12 modules 808 -> 710 KB), epochs unchanged, +0.07 us a routine call. Without the marks
# (another compiler, another Cython's output) the build is the same as before, only larger.
WRAPPER = re.compile(r"^static PyObject \*((?:__pyx_fuse_\d+)?__pyx_pw_)", re.M)
BODY = re.compile(r"^static PyObject \*((?:__pyx_fuse_\d+)?__pyx_pf_)", re.M)
ROUTINE_BODY = ("#if defined(__GNUC__) || defined(__clang__)\n"
                "#define PC_ROUTINE_BODY __attribute__((noinline, used))\n"
                "#else\n#define PC_ROUTINE_BODY\n#endif\n")


def mark_wrappers_cold(c_file):
    """Rewrite one generated C file as above, once (a file already marked is left)."""
    with open(c_file, encoding="utf-8") as handle:
        text = handle.read()
    if "PC_ROUTINE_BODY" in text:
        return
    text = WRAPPER.sub(r"static CYTHON_SMALL_CODE PyObject *\1", text)
    text = BODY.sub(r"static PC_ROUTINE_BODY PyObject *\1", text)
    first, rest = text.split("\n", 1)  # after Cython's "Generated by" line
    with open(c_file, "w", encoding="utf-8") as handle:
        handle.write(first + "\n" + ROUTINE_BODY + rest)


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
                mark_wrappers_cold(ext.sources[0])
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
