"""The engine's documented examples run as written: the package docstring and the README's."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_package_docstring_examples() -> None:
    result = doctest.testmod(engine, verbose=False)
    assert result.attempted >= 4 and result.failed == 0


def test_readme_engine_example_runs() -> None:
    section = README.read_text(encoding="utf-8").split("## The engine", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - our own documentation
    assert namespace["rules"].format(namespace["rules"].start(), namespace["move"]) == "d4"
