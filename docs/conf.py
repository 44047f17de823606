"""Sphinx configuration: the user guide (Markdown, through MyST) and the API reference
(autodoc on the numpy-style docstrings). Built in CI with warnings as errors:
``sphinx-build -W --keep-going -b html docs docs/_build/html``. No network is needed (no
intersphinx), so the build works offline."""
import perceptron_c

project = "perceptron_c"
author = "perceptron_c developers"
copyright = "perceptron_c developers"
release = version = perceptron_c.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon",
              "sphinx.ext.autosummary"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "description"
autosummary_generate = False
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False

html_theme = "alabaster"
html_static_path: list = []
html_title = f"perceptron_c {release}"
