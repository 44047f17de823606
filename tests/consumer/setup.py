import os

from Cython.Build import cythonize
from setuptools import Extension, setup

import perceptron_c

# Cython finds perceptron_c/capi/*.pxd on sys.path, or here (an editable install);
# the C compiler finds the headers the declarations include in get_include().
site = os.path.dirname(os.path.dirname(perceptron_c.__file__))
ext = Extension("pc_consumer", ["consumer.pyx"], include_dirs=[perceptron_c.get_include()])
setup(ext_modules=cythonize([ext], include_path=[site],
                            compiler_directives={"language_level": 3}))
