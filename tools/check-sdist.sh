#!/usr/bin/env bash
# The sdist carries every tracked file but the few listed below: build it from a copy of the
# tracked files (python -m build --sdist) and compare its file list with `git ls-files`.
# Catches a MANIFEST.in rule that drops a file (as `global-exclude *.c` once dropped
# bench/popcnt_bound.c, and a test skipped in the sdist), and a build that ships a file git
# does not track (only the metadata below is expected).
#   bash tools/check-sdist.sh            (needs git and `pip install build`; PYTHON picks python)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Tracked files the sdist leaves out on purpose, as grep -E patterns of paths; each with why.
excluded=(
    '^\.ci/'                      # the CI driver: runs on a clone, in fresh venvs
    '^\.github/'                  # GitHub's workflows
    '^\.gitignore$'               # git's own files
    '^\.pre-commit-config\.yaml$' # pre-commit hooks: run on a git checkout
)
# Files the build writes into every sdist (metadata), not tracked.
generated='^(PKG-INFO|setup\.cfg|[^/]*\.egg-info/.*)$'

mkdir "$work/src" "$work/dist"
(cd "$root" && git ls-files -z) | (cd "$root" && tar --null -T - -cf -) | tar -xf - -C "$work/src"
"$py" -m build --sdist --outdir "$work/dist" "$work/src" >"$work/build.log" 2>&1 || {
    cat "$work/build.log" >&2; echo "check-sdist: building the sdist failed" >&2; exit 1; }

(cd "$root" && git ls-files) | grep -Ev "$(IFS='|'; echo "${excluded[*]}")" | sort \
    >"$work/expected"
tar -tzf "$work"/dist/*.tar.gz | sed -e 's|^[^/]*/||' -e '/^$/d' -e '/\/$/d' \
    | grep -Ev "$generated" | sort >"$work/actual"

missing=$(comm -23 "$work/expected" "$work/actual")
extra=$(comm -13 "$work/expected" "$work/actual")
status=0
if [ -n "$missing" ]; then
    echo "check-sdist: tracked files missing from the sdist (fix MANIFEST.in, or exclude them" \
         "in tools/check-sdist.sh with a reason):"; echo "$missing" | sed 's/^/  /'; status=1
fi
if [ -n "$extra" ]; then
    echo "check-sdist: files in the sdist that git does not track:"
    echo "$extra" | sed 's/^/  /'; status=1
fi
[ $status -eq 0 ] && echo "check-sdist: the sdist has the $(wc -l <"$work/actual") tracked" \
    "files, $(( $(cd "$root" && git ls-files | wc -l) - $(wc -l <"$work/expected") )) excluded"
exit $status
