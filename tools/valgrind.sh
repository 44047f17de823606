#!/usr/bin/env bash
# valgrind memcheck over a quick part of the suite on the installed package: invalid reads
# and writes, uses of uninitialised memory, and memory definitely lost by the C core.
# PYTHONMALLOC=malloc makes every Python allocation visible to valgrind; the suppressions
# in valgrind-python.supp cover what CPython and numpy keep alive until exit.
#   bash tools/valgrind.sh [pytest args...]     (default: the routine and fuzz tests)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
command -v valgrind >/dev/null || { echo "valgrind: not installed" >&2; exit 1; }
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    tests=("$root/tests/test_linear_routines.py" "$root/tests/test_dual_routines.py"
           "$root/tests/test_lowlevel.py" "$root/tests/test_voted.py" "$root/tests/test_dot.py"
           "$root/tests/test_sequence_routines.py" "$root/tests/test_tagging_routines.py"
           "$root/tests/test_token_features.py" "$root/tests/test_crfsuite_routines.py"
           "$root/tests/test_crftag_routines.py"
           "-k" "not hypothesis")
fi
cd "$(mktemp -d)"
PYTHONMALLOC=malloc PERCEPTRON_C_HYPOTHESIS_PROFILE=dev valgrind --tool=memcheck \
    --error-exitcode=99 --errors-for-leak-kinds=definite --leak-check=full \
    --show-leak-kinds=definite --suppressions="$root/tools/valgrind-python.supp" \
    --num-callers=30 --quiet \
    "$py" -Im pytest -q -p no:cacheprovider "${tests[@]}"
echo "valgrind: no memory error and no definite leak"
