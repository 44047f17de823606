"""Build script: compiles the Cython twins unless PERCEPTRON_C_NO_EXTENSIONS is set.

Without the variable a compile failure fails the build loudly: a wheel that silently fell
back to the Python twins would be 100x slower without telling anyone.
"""
import os
import sys

from setuptools import Extension, setup

NO_EXTENSIONS = bool(os.environ.get("PERCEPTRON_C_NO_EXTENSIONS"))
MODULES = ["_linear_c", "_kernels_c", "_dual_c", "_voted_c"]


def extensions():
    if NO_EXTENSIONS:
        return []
    import numpy
    from Cython.Build import cythonize

    if sys.platform == "win32":
        args = ["/O2"]
    else:
        # Portable and exact: no CPU-specific or fast-math flags (the twins agree bit for bit);
        # wider instructions (popcount) are chosen at run time instead.
        args = ["-O3", "-fno-strict-aliasing", "-ffp-contract=off"]
    macros = [
        ("NPY_NO_DEPRECATED_API", "NPY_1_23_API_VERSION"),
        ("NPY_TARGET_VERSION", "NPY_1_23_API_VERSION"),
    ]
    exts = [
        Extension(
            f"perceptron_c.{name}",
            [f"perceptron_c/{name}.pyx"],
            include_dirs=[numpy.get_include(), "perceptron_c"],
            define_macros=macros,
            extra_compile_args=args,
        )
        for name in MODULES
    ]
    return cythonize(
        exts,
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "embedsignature": True,
        },
    )


setup(ext_modules=extensions())
