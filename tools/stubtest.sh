#!/bin/sh
# Check the .pyi stubs of the C twins against the compiled modules of the installed package:
# names, parameter names, kinds and defaults (mypy's stubtest).
#
#   tools/stubtest.sh                      # the python on PATH
#   PYTHON=/path/to/python tools/stubtest.sh
#
# Two traps avoided here: stubtest passes *silently* over a private module (perceptron_c._x_c)
# whose stub mypy cannot find, and mypy cannot see through an editable install's import hook.
# So MYPYPATH points at the directory that holds the installed package (unless that is
# site-packages, which mypy searches anyway), and every stub must be found before stubtest
# runs. mypy builds the whole package to read the stubs, so it must type-check cleanly too.
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python}
modules="perceptron_c._linear_c perceptron_c._gram_c perceptron_c._dual_c
         perceptron_c._conjunction_c perceptron_c._voted_c perceptron_c._sgd_c
         perceptron_c._budget_c perceptron_c._kpa_c perceptron_c._order_c
         perceptron_c._sequence_c perceptron_c._tagging_c perceptron_c._features_c"

cd "${TMPDIR:-/tmp}"  # away from the checkout, so the installed package is the one imported
root=$("$python" - <<'PY'
import os, site
import perceptron_c
root = os.path.dirname(os.path.dirname(os.path.abspath(perceptron_c.__file__)))
sites = {os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]}
print("" if os.path.realpath(root) in sites else root)
PY
)
if [ -n "$root" ]; then
    MYPYPATH="$root${MYPYPATH:+:$MYPYPATH}"
    export MYPYPATH
fi

# shellcheck disable=SC2086  # $modules is a word list on purpose
"$python" - $modules <<'PY'
import sys
from mypy.build import default_data_dir
from mypy.modulefinder import FindModuleCache, compute_search_paths
from mypy.options import Options

options = Options()
finder = FindModuleCache(compute_search_paths([], options, default_data_dir()), None, options)
missing = [m for m in sys.argv[1:] if not str(finder.find_module(m)).endswith(".pyi")]
if missing:
    sys.exit(f"stubtest.sh: mypy finds no .pyi stub for {', '.join(missing)}")
PY

# pyproject.toml's mypy settings, less the warning for per-module sections that match no
# module: stubtest builds only what the compiled modules' stubs import, not the whole
# package, so the sections of the other modules are unused here (and only here).
config=$(mktemp "${TMPDIR:-/tmp}/stubtest-XXXXXX.toml")
trap 'rm -f "$config"' EXIT
sed 's/^warn_unused_configs = true$/warn_unused_configs = false/' "$here/pyproject.toml" \
    >"$config"
# shellcheck disable=SC2086
"$python" -m mypy.stubtest --mypy-config-file "$config" \
    --allowlist "$here/tests/stubtest-allowlist.txt" $modules
