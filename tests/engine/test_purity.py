"""The engine is a pure library: no I/O, clock, randomness or service imports."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {
    "pbem", "email", "smtplib", "imaplib", "socket", "ssl", "sqlite3", "sqlalchemy", "sqlmodel",
    "asyncio", "time", "datetime", "random", "secrets", "os", "subprocess", "urllib", "http",
    "aiosmtplib", "imap_tools", "threading",
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_engine_modules_import_nothing_impure() -> None:
    modules = sorted(ENGINE.rglob("*.py"))
    assert len(modules) >= 5
    for module in modules:
        bad = _imports(module) & FORBIDDEN
        assert not bad, f"{module.name} imports {sorted(bad)}"


def test_no_open_or_print_in_engine() -> None:
    for module in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in {"open", "print", "input"}, f"{module.name} calls {node.func.id}"
