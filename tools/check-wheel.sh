#!/usr/bin/env bash
# The wheel stays small: print each wheel's size and fail above the limit. Issue 23's goal is
# 1 MB (1,000,000 bytes); the limit below is what the build reaches today: 1.15 MB on Linux,
# CPython 3.11, and 1.20 MB on 3.10, whose Cython runtime is 45 KB larger. The shared Cython
# utility module and stripped symbols took it from 2.08 MB to 1.27 MB, no unwind tables and the
# shared runtime compiled for size to 1.19 MB, the River adapters and the ONNX exporter added
# 40 KB of Python, and Cython's argument-parsing wrappers compiled for size (setup.py's
# mark_wrappers_cold) took 78 KB off. A change that grows it fails here; lower it as the wheel
# shrinks (CONTRIBUTING.md, "The wheel's size", lists what each option measured).
#   bash tools/check-wheel.sh dist/*.whl      (no argument: builds one from the checkout first;
#                                              PYTHON picks python, which needs pip)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
limit=${WHEEL_LIMIT_BYTES:-1210000}

wheels=("$@")
if [ ${#wheels[@]} -eq 0 ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    "$py" -m pip wheel -q --no-deps -w "$work" "$root" >"$work/build.log" 2>&1 || {
        cat "$work/build.log" >&2; echo "check-wheel: building the wheel failed" >&2; exit 1; }
    wheels=("$work"/*.whl)
fi
status=0
for whl in "${wheels[@]}"; do
    size=$(wc -c <"$whl")
    if [ "$size" -le "$limit" ]; then
        echo "check-wheel: $(basename "$whl"): $size bytes (limit $limit)"
    else
        echo "check-wheel: $(basename "$whl"): $size bytes, over the limit of $limit" >&2
        status=1
    fi
done
exit $status
