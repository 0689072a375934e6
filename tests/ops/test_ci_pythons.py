""".ci/run finds the other Pythons it runs the suite on (3.12, 3.13) by name, never by a path
written into it, and a machine without one fails the step with one line that says so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _find_python(version: str) -> subprocess.CompletedProcess[str]:
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    function = re.search(r"^find_python\(\) \{\n.*?^\}\n", text, re.S | re.M)
    assert function is not None, ".ci/run has no find_python"
    return subprocess.run(["bash", "-c", f"set -euo pipefail\n{function.group(0)}step=check find_python {version}"],
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60)


def test_a_python_that_is_missing_fails_with_one_line() -> None:
    result = _find_python("3.99")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (".ci/run: check: no Python 3.99 here "
                             "(python3.99 neither runs from PATH nor is among pyenv's versions)\n")


def test_the_python_running_the_tests_is_found_by_its_version() -> None:
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    result = _find_python(version)
    assert result.returncode == 0, result.stderr
    found = result.stdout.strip()
    ran = subprocess.run([found, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                         capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == version
