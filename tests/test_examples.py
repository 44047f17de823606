"""The persona scripts of examples/ run end to end, each in a fresh interpreter from an empty
folder, as a user runs them: ``python examples/<name>.py``.

A script names the optional packages it needs in a line of its docstring,
``Needs: river, pandas`` (import names); without one of them the test is skipped, saying
which. A script exits with status 0 when its workflow ran and every check it makes held.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
SCRIPTS = sorted(EXAMPLES.glob("persona_*.py"))


def _needs(script: Path) -> list[str]:
    match = re.search(r"^Needs: (.+)$", script.read_text(encoding="utf-8"), re.MULTILINE)
    return [name.strip() for name in match.group(1).split(",")] if match else []


def test_every_persona_has_a_script():
    names = {script.stem for script in SCRIPTS}
    assert names >= {"persona_nltk", "persona_river", "persona_sklearn", "persona_onnx",
                     "persona_cython"}, names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.stem)
def test_persona_script_runs(script, tmp_path):
    missing = [name for name in _needs(script) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{script.name} needs {', '.join(missing)}")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"{script.name}:\n{done.stdout}\n{done.stderr}"
