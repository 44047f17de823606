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

# old name -> the module's name now, both below perceptron_c: the two shared rooms kept the
# names of the modules they took in; the wings' rooms dropped the prefix their folder now says
_KEPT = {"_utils": "_docs _threads _npzfile _validation _params _rows",
         "_estimator": "_base _training _linear_model _sgd_run"}
_RENAMED = {
    "_utils": "_guard:_threads _labels:_validation",
    "_estimator": "_supervised:_base _state:_training _run:_training",
    "kernels": "_kernel_specs:_specs _kernel_rows:_rows _kernel_model:_model",
    "crfsuite": "_crfsuite_crf:_crf _crfsuite_decode:_decode _crfsuite_file:_file "
                "_crfsuite_log:_log _crfsuite_metrics:_metrics _crfsuite_model:_model "
                "_crfsuite_online:_online _crfsuite_train:_train",
    "river": "_river_budget:_budget _river_models:_models _river_pa:_pa _river_rows:_rows "
             "_river_rules:_rules",
    "dask": "_dask_predict:_predict _dask_sequence:_sequence _mixing:_mixing",
    "tagging": "_tagger_core:_codes _tagger_nltk:_nltk _tagger_scores:_scores "
               "_tagger_state:_state _tagger_structured:_structured _tagtext:_text "
               "_confusion:_confusion _cli_tagger:_cli",
    "datasets": "_datafiles:_files _sequences:_sequences _tagged_files:_tagged "
                "_textdata:_text",
}
MOVED = {name: f"{room}.{name}" for room, names in _KEPT.items() for name in names.split()}
MOVED.update({old: f"{room}.{new}" for room, pairs in _RENAMED.items()
              for old, new in (pair.split(":") for pair in pairs.split())})


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
