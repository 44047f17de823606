#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer run: build the C core with both sanitizers in
# a fresh venv, then run the test suite (the model-file fuzzer and the property tests
# included) with the sanitizer runtime preloaded. Any memory error or undefined behaviour
# in the C code aborts the run with a report. Linux + gcc or clang.
#   bash tools/sanitize.sh [tests/... or pytest args]   e.g. bash tools/sanitize.sh tests/test_trust.py
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
cc=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

asan=$("$cc" -print-file-name=libasan.so)
if [ ! -e "$asan" ]; then
    echo "sanitize: $cc has no AddressSanitizer runtime (libasan.so); install it" >&2
    exit 1
fi

# a clean copy of the working tree: no build/ left over from an unsanitized build
mkdir "$work/src"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | \
    xargs -0 -I{} cp --parents {} "$work/src/" 2>/dev/null || true)

"$py" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q --upgrade pip
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
CC="$cc" CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" \
    "$work/venv/bin/python" -m pip install -q --no-cache-dir "$work/src[test]"

# CPython itself is not instrumented and keeps memory at exit: no leak check here (valgrind
# covers leaks, tools/valgrind.sh). UBSan stops at the first finding.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export PERCEPTRON_C_HYPOTHESIS_PROFILE=${PERCEPTRON_C_HYPOTHESIS_PROFILE:-dev}
cd "$work"
LD_PRELOAD="$asan" "$work/venv/bin/python" -c \
    "import perceptron_c as p; assert p.BACKEND == 'c'; print('sanitized build:', p.__file__)"
# test paths given relative to the checkout run from the clean copy
args=()
for arg in "$@"; do
    case "$arg" in tests/*) args+=("$work/src/$arg") ;; *) args+=("$arg") ;; esac
done
[ ${#args[@]} -eq 0 ] && args=("$work/src/tests")
# the consumer test and the build-marked ones (the routine recipe's toy) build a second
# extension, which would need the sanitizer flags too
LD_PRELOAD="$asan" "$work/venv/bin/python" -Im pytest -q -p no:cacheprovider \
    --ignore "$work/src/tests/test_consumer.py" -m "not build" -x "${args[@]}"
echo "sanitize: no AddressSanitizer or UBSan finding"
