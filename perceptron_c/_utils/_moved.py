"""The private modules of the flat layout (before the rooms), importable under their old
names. A pickle names the module of each class it holds (``perceptron_c._validation.
PackedBits``, ``perceptron_c._river_models.Perceptron``): a pickle made before the move loads
after it. The old name is an alias of the module itself, not a copy: ``import
perceptron_c._validation`` gives ``perceptron_c._utils._validation``.

Model files (`perceptron_c.io`) name classes, never modules, and need none of this.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import cast

# old name -> the module's name now, both below perceptron_c
MOVED = {
    "_docs": "_utils._docs", "_threads": "_utils._threads", "_npzfile": "_utils._npzfile",
    "_validation": "_utils._validation", "_params": "_utils._params", "_labels": "_utils._labels",
    "_guard": "_utils._guard", "_rows": "_utils._rows", "_base": "_estimator._base",
    "_supervised": "_estimator._supervised", "_training": "_estimator._training",
    "_run": "_estimator._run", "_state": "_estimator._state",
    "_linear_model": "_estimator._linear_model", "_sgd_run": "_estimator._sgd_run",
    "_kernel_specs": "kernels._specs", "_kernel_rows": "kernels._rows",
    "_kernel_model": "kernels._model", "_crfsuite_crf": "crfsuite._crf",
    "_crfsuite_decode": "crfsuite._decode", "_crfsuite_file": "crfsuite._file",
    "_crfsuite_log": "crfsuite._log", "_crfsuite_metrics": "crfsuite._metrics",
    "_crfsuite_model": "crfsuite._model", "_crfsuite_online": "crfsuite._online",
    "_crfsuite_train": "crfsuite._train", "_river_budget": "river._budget",
    "_river_models": "river._models", "_river_pa": "river._pa", "_river_rows": "river._rows",
    "_river_rules": "river._rules", "_dask_predict": "dask._predict",
    "_dask_sequence": "dask._sequence", "_mixing": "dask._mixing",
    "_tagger_core": "tagging._codes", "_tagger_nltk": "tagging._nltk",
    "_tagger_scores": "tagging._scores", "_tagger_state": "tagging._state",
    "_tagger_structured": "tagging._structured", "_tagtext": "tagging._text",
    "_confusion": "tagging._confusion", "_cli_tagger": "tagging._cli",
    "_datafiles": "datasets._files", "_sequences": "datasets._sequences",
    "_tagged_files": "datasets._tagged", "_textdata": "datasets._text",
}


class _Alias:
    """Finds ``perceptron_c.<old name>`` and loads it as the module it became: a meta path
    finder and its loader (importlib.abc's protocols, not its classes: importlib.abc imports
    importlib.resources, tempfile and shutil, which ``import perceptron_c`` does not load)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        package, _, name = fullname.partition(".")
        if package != __name__.partition(".")[0] or name not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)  # type: ignore[arg-type]

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        package, _, name = spec.name.partition(".")
        module = importlib.import_module(f"{package}.{MOVED[name]}")
        spec.loader_state = module.__spec__  # the import machinery overwrites __spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # the module ran when it was imported under its own name: give it its spec back
        alias = module.__spec__
        if alias is not None and isinstance(cast(object, alias.loader), _Alias):
            module.__spec__ = alias.loader_state


def install() -> None:
    """Add the alias finder after the others (once): a module found under its own name is
    never shadowed."""
    if not any(isinstance(finder, _Alias) for finder in sys.meta_path):
        sys.meta_path.append(_Alias())
