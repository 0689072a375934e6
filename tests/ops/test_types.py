"""The type checker, as CI runs it: the engine and the bots strictly typed, with no error; and a
ratchet for pbem: no module may have more errors than `mypy_baseline.json` says, so the count
only goes down (`python -m tests.ops.test_types --update` writes the counts of today, after
a change that fixed some).

It would have caught `pbem admin quarantine retry` calling functions whose signatures had
changed, which no test reached."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINE = Path(__file__).with_name("mypy_baseline.json")
_ERROR = re.compile(r"^([\w/.]+\.py):\d+: error:", re.M)


#: The checkout under the names it installs as: `engine/` is the package `pbem_engine` and `bots/`
#: is `pbem_bots` (pyproject.toml's package-dir), which the editable install maps with an import
#: hook that mypy does not run. Links with those names give mypy the same packages.
NAMES = ROOT / ".mypy_cache" / "names"
LINKS = {"pbem": "pbem", "pbem_engine": "engine", "pbem_bots": "bots"}


def _names() -> Path:
    NAMES.mkdir(parents=True, exist_ok=True)
    for name, folder in LINKS.items():
        link, target = NAMES / name, ROOT / folder
        if link.is_symlink() and link.resolve() != target.resolve():
            link.unlink()  # a checkout that moved
        if not link.is_symlink():
            link.symlink_to(target, target_is_directory=True)
    return NAMES


def _mypy(*args: str) -> tuple[int, str]:
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-color-output", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache"), *args],
        cwd=_names(), capture_output=True, text=True, timeout=600,
    )
    return run.returncode, run.stdout + run.stderr


def errors_per_file() -> dict[str, int]:
    """The type errors of pbem, counted per file."""
    _, output = _mypy("-p", "pbem")
    return dict(sorted(Counter(_ERROR.findall(output)).items()))


def test_the_engine_and_the_bots_are_strictly_typed() -> None:
    code, output = _mypy("--strict", "-p", "pbem_engine", "-p", "pbem_bots")
    assert code == 0, output


def test_no_module_of_pbem_has_more_type_errors_than_before() -> None:
    baseline: dict[str, int] = json.loads(BASELINE.read_text(encoding="utf-8"))
    now = errors_per_file()
    worse = {path: (baseline.get(path, 0), count) for path, count in now.items() if count > baseline.get(path, 0)}
    assert not worse, f"more type errors than the baseline (before, now): {worse}; `python3 -m mypy pbem` lists them"
    better = {path: (count, now.get(path, 0)) for path, count in baseline.items() if now.get(path, 0) < count}
    assert not better, (
        f"fewer type errors than the baseline (before, now): {better}: lock the gain in with "
        "`python3 -m tests.ops.test_types --update`"
    )


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    counts = errors_per_file()
    BASELINE.write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    print(f"{sum(counts.values())} errors in {len(counts)} files of pbem written to {BASELINE.name}")
